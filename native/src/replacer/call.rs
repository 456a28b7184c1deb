//! One call of the Replacer: its texts read (lone surrogates through private-use code
//! points), the Python detectors called beside the engine, the types they report added to
//! the replacer's table, and the allow-list's test.

use std::sync::Arc;

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::surrogates::{code_points, Surrogates};
use super::{DetectorError, Replacer};
use crate::replace::{Table, Texts};
use crate::{casefold, Ent};

/// One call's view of its texts: the replacer, its type table as this call knows it, and
/// the surrogates of the text being read.
pub(super) struct Call<'a, 'py> {
    py: Python<'py>,
    replacer: &'a Replacer,
    table: Arc<Table>,
    surrogates: Option<Surrogates>,
}

impl<'a, 'py> Call<'a, 'py> {
    pub(super) fn new(py: Python<'py>, replacer: &'a Replacer) -> Self {
        Call { py, replacer, table: replacer.table(), surrogates: None }
    }

    /// ``text`` as a Rust string: itself, or with its lone surrogates as private-use code
    /// points of a block it does not use (then remembered for reading the results).
    pub(super) fn read(&mut self, text: &Bound<'py, PyString>) -> PyResult<String> {
        if let Ok(s) = text.to_str() {
            self.surrogates = None;
            return Ok(s.to_owned());
        }
        let points = code_points(text)?;
        let Some(surrogates) = Surrogates::free(&points) else {
            return Err(DetectorError::new_err(
                "a text with lone surrogates and every private-use \
                                               block of planes 15 and 16 cannot be read",
            ));
        };
        let s = surrogates.map(&points);
        self.surrogates = Some(surrogates);
        Ok(s)
    }

    pub(super) fn engine_failed(&self) -> PyErr {
        let name = self.replacer.engine_at.map_or("patterns", |i| self.replacer.names[i].as_str());
        DetectorError::new_err(format!("redaction detector {name} failed (RuntimeError)"))
    }

    pub(super) fn type_named(&mut self, name: &str) -> PyResult<crate::Ty> {
        if let Some(ty) = self.table.find(name) {
            return Ok(ty);
        }
        let mut shared = self.replacer.table.write().unwrap_or_else(|e| e.into_inner());
        let grown = shared
            .with(self.py, name, &self.replacer.modes)
            .ok_or_else(|| PyValueError::new_err("too many entity types"))?;
        *shared = Arc::clone(&grown);
        self.table = grown;
        self.table.find(name).ok_or_else(|| PyValueError::new_err("entity type not numbered"))
    }

    /// The entities one Python detector reports on ``text`` (``len`` code points).
    pub(super) fn python_entities(
        &mut self,
        detector: &Bound<'py, PyAny>,
        text: &Bound<'py, PyString>,
        len: usize,
        out: &mut Vec<Ent>,
    ) -> PyResult<()> {
        for item in detector.call_method1("detect", (text,))?.try_iter()? {
            let (name, start, end, key): (
                Bound<'py, PyString>,
                isize,
                isize,
                Option<Bound<'py, PyString>>,
            ) = item?.extract()?;
            let (Ok(start), Ok(end)) = (usize::try_from(start), usize::try_from(end)) else {
                return Err(PyValueError::new_err("an entity before the text's start"));
            };
            if end > len || start > len {
                return Err(PyValueError::new_err("an entity beyond the text's end"));
            }
            let ty = self.type_named(name.to_str()?)?;
            let key = match key {
                Some(k) => Some(self.key_of(&k)?),
                None => None,
            };
            out.push(Ent::new(ty, start, end, key));
        }
        Ok(())
    }

    /// A key a Python detector made, as the text being read spells its surrogates.
    pub(super) fn key_of(&self, key: &Bound<'py, PyString>) -> PyResult<String> {
        let surrogates = self.surrogates.as_ref();
        let s = match key.to_str() {
            Ok(s) => s.to_owned(),
            Err(_) => match surrogates {
                Some(m) => {
                    let points = code_points(key)?;
                    if points.iter().any(|&p| m.holds_point(p)) {
                        return Err(PyValueError::new_err("a key in the text's private-use block"));
                    }
                    return Ok(m.map(&points));
                }
                None => return Err(PyValueError::new_err("a key with lone surrogates")),
            },
        };
        if surrogates.is_some_and(|m| s.chars().any(|c| m.holds(c))) {
            return Err(PyValueError::new_err("a key in the text's private-use block"));
        }
        Ok(s)
    }
}

impl<'py> Texts<'py> for Call<'_, 'py> {
    fn find(&mut self, s: &str) -> PyResult<Vec<Ent>> {
        let py = self.py;
        let replacer = self.replacer;
        let detector = replacer.detector.get();
        let mut found = Vec::new();
        let mut text: Option<(Bound<'py, PyString>, usize)> = None;
        for (i, other) in replacer.detectors.iter().enumerate() {
            if Some(i) == replacer.engine_at {
                match &self.surrogates {
                    None => found.extend(detector.find_str(py, s)),
                    Some(m) => found.extend(detector.find_str(py, &m.for_engine(s))),
                }
                continue;
            }
            if text.is_none() {
                text = Some((self.py_str(s)?, s.chars().count()));
            }
            let (text, len) = text.as_ref().map(|(t, n)| (t.clone(), *n)).expect("read above");
            self.python_entities(other.bind(py), &text, len, &mut found).map_err(|err| {
                if !err.is_instance_of::<PyException>(py) {
                    return err; // KeyboardInterrupt, SystemExit: not the text's failure
                }
                let class = err.get_type(py).name().map(|n| n.to_string()).unwrap_or_default();
                DetectorError::new_err(format!(
                    "redaction detector {} failed ({class})",
                    replacer.names[i]
                ))
            })?;
        }
        Ok(found)
    }

    fn table(&self) -> &Table {
        &self.table
    }

    fn py_str(&self, s: &str) -> PyResult<Bound<'py, PyString>> {
        match &self.surrogates {
            Some(m) if s.chars().any(|c| m.holds(c)) => m.unmap(self.py, s),
            _ => Ok(PyString::new(self.py, s)),
        }
    }

    fn allowed(&mut self, value: &str) -> bool {
        let py = self.py;
        if let Some(m) = &self.surrogates {
            if value.chars().any(|c| m.holds(c)) {
                return m
                    .unmap(py, value)
                    .and_then(|v| v.call_method0("casefold"))
                    .and_then(|v| self.replacer.allow_py.bind(py).contains(v))
                    .unwrap_or(false);
            }
        }
        let folded =
            if value.is_ascii() { value.to_ascii_lowercase() } else { casefold(py, value) };
        self.replacer.replacement.allow.contains(&folded)
    }
}

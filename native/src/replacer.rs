//! The Replacer: a Redactor's whole-text redaction (replace.rs), with the Python glue it
//! needs: the Python detectors called per pass beside the engine, the types they report
//! added to the replacer's table, and texts with lone surrogates read through private-use
//! code points.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFrozenSet, PyList, PyString, PyTuple};

use crate::replace::{self, Modes, Table, Texts};
use crate::{casefold, guarded, Detector, Ent};

pyo3::create_exception!(
    _native,
    DetectorError,
    PyRuntimeError,
    "A detector failed on a text (a Python detector raised, or the engine failed): the text is \
     withheld. The message names the detector and the exception's class, never the text."
);

const FAILED: &str = "<REDACTED>";

/// A Redactor's redaction of whole texts. ``detector`` is the engine (its types, built-in
/// and configured, come first in the table); ``detectors`` are the Redactor's detectors in
/// order, each called as ``detect(text)`` on every pass except the one at ``engine_at``,
/// which the engine serves. ``modes`` maps a type name to placeholder, hmac or drop
/// (``default_mode`` otherwise); ``hmac_token(type, key)`` makes the token of the hmac mode;
/// ``allow`` is the allow-list, case-folded (a value whose text or key folds to one of them
/// stays).
#[pyclass(frozen, module = "sidecar.redaction._native")]
pub struct Replacer {
    detector: Py<Detector>,
    detectors: Vec<PyObject>,
    names: Vec<String>,
    engine_at: Option<usize>,
    modes: Modes,
    replacement: replace::Replacement,
    /// the allow-list as a Python frozenset, for values holding lone surrogates
    allow_py: Py<PyFrozenSet>,
    table: RwLock<Arc<Table>>,
}

#[pymethods]
impl Replacer {
    #[new]
    #[pyo3(signature = (detector, *, modes, default_mode, hmac_token, allow = Vec::new(),
                        detectors = Vec::new(), engine_at = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(py: Python<'_>, detector: Py<Detector>, modes: HashMap<String, String>,
           default_mode: &str, hmac_token: Option<PyObject>, allow: Vec<Bound<'_, PyString>>,
           detectors: Vec<PyObject>, engine_at: Option<usize>) -> PyResult<Self> {
        let modes = Modes::new(&modes, default_mode)
            .ok_or_else(|| PyValueError::new_err("unknown redaction mode"))?;
        if modes.uses_hmac() && hmac_token.is_none() {
            return Err(PyValueError::new_err("the hmac mode needs hmac_token"));
        }
        if engine_at.is_some_and(|i| i >= detectors.len()) {
            return Err(PyValueError::new_err("engine_at is not a place in detectors"));
        }
        let names = detectors.iter()
            .map(|d| d.bind(py).getattr("name").and_then(|n| n.str()).map(|n| n.to_string()))
            .collect::<PyResult<Vec<String>>>()?;
        let valid: HashSet<String> = allow.iter().filter_map(|v| v.to_str().ok().map(str::to_owned)).collect();
        let allow_py = PyFrozenSet::new(py, &allow)?.unbind();
        let table = Table::new(py, &detector.get().type_names, &modes);
        Ok(Replacer {
            detector,
            detectors,
            names,
            engine_at,
            modes,
            replacement: replace::Replacement { hmac: hmac_token, allow: valid },
            allow_py,
            table: RwLock::new(Arc::new(table)),
        })
    }

    /// ``text`` with every detected value replaced, detection run again on the result until
    /// it finds nothing; the Redactor's scope (``tokens``, ``numbers``, ``counts``) is read
    /// and updated. Returns the text (the same object when nothing was found), with
    /// ``with_entities`` a tuple of it and the entities replaced (offsets into ``text``, in
    /// text order); "<REDACTED>" when the text still changed after 16 passes (counted as a
    /// REDACTION_ERROR). Raises DetectorError when a detector fails on the text (counted as
    /// a REDACTION_ERROR too); an exception that is no Exception passes through.
    #[pyo3(signature = (text, tokens, numbers, counts, with_entities = false))]
    fn redact<'py>(&self, py: Python<'py>, text: &Bound<'py, PyString>, tokens: Bound<'py, PyDict>,
                   numbers: Bound<'py, PyDict>, counts: Bound<'py, PyDict>, with_entities: bool)
                   -> PyResult<PyObject> {
        let mut scope = replace::Scope::new(tokens, numbers, counts);
        let mut call = Call::new(py, self);
        let outcome = self.redact_one(&mut call, text, &mut scope, with_entities);
        if matches!(&outcome, Err(err) if err.is_instance_of::<DetectorError>(py)) {
            scope.failed();
        }
        scope.flush(&self.table().names)?;
        let (redacted, entities) = outcome?;
        match entities {
            None => Ok(redacted.unbind()),
            Some(found) => Ok(PyTuple::new(py, [redacted, found.to_tuple().into_any()])?.into_any().unbind()),
        }
    }

    /// ``redact`` of each of ``texts`` in turn, in one scope, without the entities: a list of
    /// the results and the messages of the detector failures (each failed text withheld as
    /// "<REDACTED>" and counted as a REDACTION_ERROR).
    fn redact_many<'py>(&self, py: Python<'py>, texts: Vec<Bound<'py, PyString>>,
                        tokens: Bound<'py, PyDict>, numbers: Bound<'py, PyDict>,
                        counts: Bound<'py, PyDict>) -> PyResult<(Bound<'py, PyList>, Vec<String>)> {
        let mut scope = replace::Scope::new(tokens, numbers, counts);
        let mut call = Call::new(py, self);
        let out = PyList::empty(py);
        let mut failures = Vec::new();
        let mut outcome = Ok(());
        for text in &texts {
            match self.redact_one(&mut call, text, &mut scope, false) {
                Ok((redacted, _)) => out.append(redacted)?,
                Err(err) if err.is_instance_of::<DetectorError>(py) => {
                    failures.push(err.value(py).to_string());
                    scope.failed();
                    out.append(FAILED)?;
                }
                Err(err) => {
                    outcome = Err(err);
                    break;
                }
            }
        }
        scope.flush(&self.table().names)?;
        outcome.map(|()| (out, failures))
    }

    /// The entities a Redactor replaces in ``text`` in its first pass: every detector's,
    /// those kept (earliest, longest, a type before SECRET on the same span, none
    /// overlapping another or a placeholder), the allow-list's passed over, in text order.
    /// Raises DetectorError when a detector fails on the text.
    fn kept<'py>(&self, py: Python<'py>, text: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyList>> {
        let mut call = Call::new(py, self);
        let s = call.read(text)?;
        let found = guarded(|| -> PyResult<Vec<Ent>> {
            let found = call.find(&s)?;
            Ok(self.replacement.keep(found, &s, &mut call))
        }).map_err(|_| call.engine_failed())??;
        self.detector.get().entities(py, found, &call.table.names, &|k| call.py_str(k))
    }

    /// The token of one value (``type``, ``key``) in the scope, made on first sight and
    /// counted as one replacement of its type; "" when the type is dropped.
    fn token<'py>(&self, py: Python<'py>, r#type: &str, key: &Bound<'py, PyString>,
                  tokens: Bound<'py, PyDict>, numbers: Bound<'py, PyDict>,
                  counts: Bound<'py, PyDict>) -> PyResult<Bound<'py, PyString>> {
        let mut scope = replace::Scope::new(tokens, numbers, counts);
        let mut call = Call::new(py, self);
        let key = call.read(key)?;
        let ty = call.type_named(r#type)?;
        let token = self.replacement.count(&mut scope, &call, ty, &key);
        scope.flush(&self.table().names)?;
        Ok(token?.unwrap_or_else(|| PyString::new(py, "")))
    }
}

impl Replacer {
    fn table(&self) -> Arc<Table> {
        self.table.read().map(|t| Arc::clone(&t)).unwrap_or_else(|e| Arc::clone(&e.into_inner()))
    }

    /// One text redacted in ``scope``: the result (``text`` itself when unchanged) and, when
    /// asked for, the entities.
    fn redact_one<'py>(&self, call: &mut Call<'_, 'py>, text: &Bound<'py, PyString>,
                       scope: &mut replace::Scope<'py>, with_entities: bool)
                       -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyList>>)> {
        let py = text.py();
        let original = call.read(text)?;
        let outcome = guarded(|| replace::redact(&self.replacement, scope, call, &original, with_entities))
            .map_err(|_| call.engine_failed())??;
        let (redacted, found) = match outcome {
            replace::Redacted::Unchanged => (text.clone().into_any(), Vec::new()),
            replace::Redacted::Changed(s, found) => (call.py_str(&s)?.into_any(), found),
            replace::Redacted::Failed => (PyString::new(py, FAILED).into_any(), Vec::new()),
        };
        let entities = if with_entities {
            Some(self.detector.get().entities(py, found, &call.table.names, &|k| call.py_str(k))?)
        } else {
            None
        };
        Ok((redacted, entities))
    }
}

/// One call's view of its texts: the replacer, its type table as this call knows it, and
/// the surrogates of the text being read.
struct Call<'a, 'py> {
    py: Python<'py>,
    replacer: &'a Replacer,
    table: Arc<Table>,
    surrogates: Option<Surrogates>,
}

impl<'a, 'py> Call<'a, 'py> {
    fn new(py: Python<'py>, replacer: &'a Replacer) -> Self {
        Call { py, replacer, table: replacer.table(), surrogates: None }
    }

    /// ``text`` as a Rust string: itself, or with its lone surrogates as private-use code
    /// points of a block it does not use (then remembered for reading the results).
    fn read(&mut self, text: &Bound<'py, PyString>) -> PyResult<String> {
        if let Ok(s) = text.to_str() {
            self.surrogates = None;
            return Ok(s.to_owned());
        }
        let points = code_points(text)?;
        let Some(surrogates) = Surrogates::free(&points) else {
            return Err(DetectorError::new_err("a text with lone surrogates and every private-use \
                                               block of planes 15 and 16 cannot be read"));
        };
        let s = surrogates.map(&points);
        self.surrogates = Some(surrogates);
        Ok(s)
    }

    fn engine_failed(&self) -> PyErr {
        let name = self.replacer.engine_at.map_or("patterns", |i| self.replacer.names[i].as_str());
        DetectorError::new_err(format!("redaction detector {name} failed (RuntimeError)"))
    }

    fn type_named(&mut self, name: &str) -> PyResult<crate::Ty> {
        if let Some(ty) = self.table.find(name) {
            return Ok(ty);
        }
        let mut shared = self.replacer.table.write().unwrap_or_else(|e| e.into_inner());
        let grown = shared.with(self.py, name, &self.replacer.modes)
            .ok_or_else(|| PyValueError::new_err("too many entity types"))?;
        *shared = Arc::clone(&grown);
        self.table = grown;
        self.table.find(name).ok_or_else(|| PyValueError::new_err("entity type not numbered"))
    }

    /// The entities one Python detector reports on ``text`` (``len`` code points).
    fn python_entities(&mut self, detector: &Bound<'py, PyAny>, text: &Bound<'py, PyString>,
                       len: usize, out: &mut Vec<Ent>) -> PyResult<()> {
        for item in detector.call_method1("detect", (text,))?.try_iter()? {
            let (name, start, end, key): (Bound<'py, PyString>, isize, isize, Option<Bound<'py, PyString>>) =
                item?.extract()?;
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
    fn key_of(&self, key: &Bound<'py, PyString>) -> PyResult<String> {
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
                DetectorError::new_err(format!("redaction detector {} failed ({class})", replacer.names[i]))
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
                return m.unmap(py, value)
                    .and_then(|v| v.call_method0("casefold"))
                    .and_then(|v| self.replacer.allow_py.bind(py).contains(v))
                    .unwrap_or(false);
            }
        }
        let folded = if value.is_ascii() { value.to_ascii_lowercase() } else { casefold(py, value) };
        self.replacer.replacement.allow.contains(&folded)
    }
}

/// The code points of a str, lone surrogates included.
fn code_points(text: &Bound<'_, PyString>) -> PyResult<Vec<u32>> {
    let raw = text.call_method1("encode", ("utf-32-le", "surrogatepass"))?;
    let bytes: &[u8] = raw.extract()?;
    Ok(bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
}

const SURROGATES: std::ops::Range<u32> = 0xD800..0xE000;
const BLOCK: u32 = SURROGATES.end - SURROGATES.start;
const PRIVATE_USE: u32 = 0xF0000;

/// A text's lone surrogates, each read as the code point at its place in a block of
/// private-use code points (planes 15 and 16) that the text does not use: a one-to-one
/// map, so offsets, keys and the text itself are restored exactly.
struct Surrogates {
    base: u32,
}

impl Surrogates {
    fn free(points: &[u32]) -> Option<Surrogates> {
        let mut used = [false; 64];
        for &p in points {
            if p >= PRIVATE_USE {
                used[((p - PRIVATE_USE) / BLOCK) as usize] = true;
            }
        }
        let k = used.iter().position(|&u| !u)?;
        Some(Surrogates { base: PRIVATE_USE + k as u32 * BLOCK })
    }

    fn holds_point(&self, p: u32) -> bool {
        (self.base..self.base + BLOCK).contains(&p)
    }

    fn holds(&self, c: char) -> bool {
        self.holds_point(c as u32)
    }

    fn map(&self, points: &[u32]) -> String {
        points.iter().map(|&p| {
            let p = if SURROGATES.contains(&p) { self.base + (p - SURROGATES.start) } else { p };
            char::from_u32(p).unwrap_or('\u{FFFD}')
        }).collect()
    }

    /// The text as the engine reads it: each lone surrogate a U+FFFD (as Detector.detect
    /// reads a str), one code point for one.
    fn for_engine(&self, s: &str) -> String {
        s.chars().map(|c| if self.holds(c) { '\u{FFFD}' } else { c }).collect()
    }

    /// The Python str of ``s`` with its surrogates restored.
    fn unmap<'py>(&self, py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyString>> {
        let mut bytes = Vec::with_capacity(s.len() * 4);
        for c in s.chars() {
            let p = c as u32;
            let p = if self.holds_point(p) { SURROGATES.start + (p - self.base) } else { p };
            bytes.extend_from_slice(&p.to_le_bytes());
        }
        PyBytes::new(py, &bytes).call_method1("decode", ("utf-32-le", "surrogatepass"))?
            .downcast_into::<PyString>().map_err(PyErr::from)
    }
}

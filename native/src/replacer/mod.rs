//! The Replacer: a Redactor's whole-text redaction (native/src/replace/), with the Python glue it
//! needs: the Python detectors called per pass beside the engine, the types they report
//! added to the replacer's table, and texts with lone surrogates read through private-use
//! code points.

mod call;
mod surrogates;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFrozenSet, PyList, PyString, PyTuple};

use crate::replace::{self, Modes, Table, Texts};
use crate::{guarded, Detector, Ent};
use call::Call;

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
    fn new(
        py: Python<'_>,
        detector: Py<Detector>,
        modes: HashMap<String, String>,
        default_mode: &str,
        hmac_token: Option<PyObject>,
        allow: Vec<Bound<'_, PyString>>,
        detectors: Vec<PyObject>,
        engine_at: Option<usize>,
    ) -> PyResult<Self> {
        let modes = Modes::new(&modes, default_mode)
            .ok_or_else(|| PyValueError::new_err("unknown redaction mode"))?;
        if modes.uses_hmac() && hmac_token.is_none() {
            return Err(PyValueError::new_err("the hmac mode needs hmac_token"));
        }
        if engine_at.is_some_and(|i| i >= detectors.len()) {
            return Err(PyValueError::new_err("engine_at is not a place in detectors"));
        }
        let names = detectors
            .iter()
            .map(|d| d.bind(py).getattr("name").and_then(|n| n.str()).map(|n| n.to_string()))
            .collect::<PyResult<Vec<String>>>()?;
        let valid: HashSet<String> =
            allow.iter().filter_map(|v| v.to_str().ok().map(str::to_owned)).collect();
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
    fn redact<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
        tokens: Bound<'py, PyDict>,
        numbers: Bound<'py, PyDict>,
        counts: Bound<'py, PyDict>,
        with_entities: bool,
    ) -> PyResult<PyObject> {
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
            Some(found) => {
                Ok(PyTuple::new(py, [redacted, found.to_tuple().into_any()])?.into_any().unbind())
            }
        }
    }

    /// ``redact`` of each of ``texts`` in turn, in one scope, without the entities: a list of
    /// the results and the messages of the detector failures (each failed text withheld as
    /// "<REDACTED>" and counted as a REDACTION_ERROR).
    fn redact_many<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
        tokens: Bound<'py, PyDict>,
        numbers: Bound<'py, PyDict>,
        counts: Bound<'py, PyDict>,
    ) -> PyResult<(Bound<'py, PyList>, Vec<String>)> {
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
    fn kept<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut call = Call::new(py, self);
        let s = call.read(text)?;
        let found = guarded(|| -> PyResult<Vec<Ent>> {
            let found = call.find(&s)?;
            Ok(self.replacement.keep(found, &s, &mut call))
        })
        .map_err(|_| call.engine_failed())??;
        self.detector.get().entities(py, found, &call.table().names, &|k| call.py_str(k))
    }

    /// The token of one value (``type``, ``key``) in the scope, made on first sight and
    /// counted as one replacement of its type; "" when the type is dropped.
    fn token<'py>(
        &self,
        py: Python<'py>,
        r#type: &str,
        key: &Bound<'py, PyString>,
        tokens: Bound<'py, PyDict>,
        numbers: Bound<'py, PyDict>,
        counts: Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyString>> {
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
    fn redact_one<'py>(
        &self,
        call: &mut Call<'_, 'py>,
        text: &Bound<'py, PyString>,
        scope: &mut replace::Scope<'py>,
        with_entities: bool,
    ) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyList>>)> {
        let py = text.py();
        let original = call.read(text)?;
        let outcome =
            guarded(|| replace::redact(&self.replacement, scope, call, &original, with_entities))
                .map_err(|_| call.engine_failed())??;
        let (redacted, found) = match outcome {
            replace::Redacted::Unchanged => (text.clone().into_any(), Vec::new()),
            replace::Redacted::Changed(s, found) => (call.py_str(&s)?.into_any(), found),
            replace::Redacted::Failed => (PyString::new(py, FAILED).into_any(), Vec::new()),
        };
        let entities = if with_entities {
            Some(
                self.detector
                    .get()
                    .entities(py, found, &call.table().names, &|k| call.py_str(k))?,
            )
        } else {
            None
        };
        Ok((redacted, entities))
    }
}

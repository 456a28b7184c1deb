//! The Replacer: a Redactor's whole-text redaction, the Python glue of replace.rs.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::{casefold, guarded, replace, Detector, Ent};

/// A Redactor's replacement of values, for when the built-in detectors are its only ones:
/// ``modes`` maps a type name to placeholder, hmac or drop (``default_mode`` otherwise);
/// ``hmac_token(type, key)`` makes the token of the hmac mode; ``allow`` is the allow-list,
/// case-folded (a value whose text or key folds to one of them stays).
#[pyclass(frozen, module = "sidecar.redaction._native")]
pub struct Replacer {
    detector: Py<Detector>,
    replacement: replace::Replacement,
}

#[pymethods]
impl Replacer {
    #[new]
    #[pyo3(signature = (detector, *, modes, default_mode, hmac_token, allow = Vec::new()))]
    fn new(detector: Py<Detector>, modes: std::collections::HashMap<String, String>,
           default_mode: &str, hmac_token: Option<PyObject>, allow: Vec<String>) -> PyResult<Self> {
        let modes = replace::modes(&modes, default_mode, &detector.get().type_names)
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("unknown redaction mode"))?;
        if modes.contains(&replace::Mode::Hmac) && hmac_token.is_none() {
            return Err(pyo3::exceptions::PyValueError::new_err("the hmac mode needs hmac_token"));
        }
        let allow = allow.into_iter().collect();
        Ok(Replacer { detector, replacement: replace::Replacement { modes, hmac: hmac_token, allow } })
    }

    /// ``text`` with every detected value replaced, detection run again on the result until
    /// it finds nothing; the Redactor's scope (``tokens``, ``numbers``, ``counts``) is read
    /// and updated. Returns the text (the same object when nothing was found), with
    /// ``with_entities`` a tuple of it and the entities replaced (offsets into ``text``, in
    /// text order); "<REDACTED>" when the text still changed after 16 passes (counted as a
    /// REDACTION_ERROR); None when the text holds lone surrogates (the Redactor's Python
    /// rules then decide). Raises RuntimeError when the engine fails on the text.
    #[pyo3(signature = (text, tokens, numbers, counts, with_entities = false))]
    fn redact<'py>(&self, py: Python<'py>, text: &Bound<'py, PyString>, tokens: Bound<'py, PyDict>,
                   numbers: Bound<'py, PyDict>, counts: Bound<'py, PyDict>, with_entities: bool)
                   -> PyResult<PyObject> {
        let detector = self.detector.get();
        let mut scope = replace::Scope::new(tokens, numbers, counts, detector.names.len());
        let outcome = self.redact_one(py, text, &mut scope, with_entities);
        scope.flush(&detector.names)?;
        let Some((redacted, entities)) = outcome? else {
            return Ok(py.None());
        };
        if !with_entities {
            return Ok(redacted.unbind());
        }
        let found = detector.entities(py, entities)?.to_tuple();
        Ok(PyTuple::new(py, [redacted, found.into_any()])?.into_any().unbind())
    }

    /// ``redact`` of each of ``texts`` in turn, in one scope, without the entities: a list of
    /// the results and the number of texts the engine failed on (each withheld as
    /// "<REDACTED>", counted as a REDACTION_ERROR). A text with lone surrogates ends the
    /// list early with None: the Python rules take it, and the caller goes on after it.
    fn redact_many<'py>(&self, py: Python<'py>, texts: Vec<Bound<'py, PyString>>,
                        tokens: Bound<'py, PyDict>, numbers: Bound<'py, PyDict>,
                        counts: Bound<'py, PyDict>) -> PyResult<(Bound<'py, PyList>, usize)> {
        let detector = self.detector.get();
        let mut scope = replace::Scope::new(tokens, numbers, counts, detector.names.len());
        let out = PyList::empty(py);
        let mut failures = 0;
        let mut outcome = Ok(());
        for text in &texts {
            match self.redact_one(py, text, &mut scope, false) {
                Ok(Some((redacted, _))) => out.append(redacted)?,
                Ok(None) => {
                    out.append(py.None())?;
                    break;
                }
                Err(err) if err.is_instance_of::<PyRuntimeError>(py) => {
                    failures += 1;
                    scope.failed();
                    out.append(FAILED)?;
                }
                Err(err) => {
                    outcome = Err(err);
                    break;
                }
            }
        }
        scope.flush(&detector.names)?;
        outcome.map(|()| (out, failures))
    }
}

const FAILED: &str = "<REDACTED>";

impl Replacer {
    /// One text redacted in ``scope``: the result (``text`` itself when unchanged) and, when
    /// asked for, the entities; None for a text with lone surrogates.
    fn redact_one<'py>(&self, py: Python<'py>, text: &Bound<'py, PyString>,
                       scope: &mut replace::Scope<'py>, with_entities: bool)
                       -> PyResult<Option<(Bound<'py, PyAny>, Vec<Ent>)>> {
        let Ok(original) = text.to_str() else {
            return Ok(None);
        };
        let detector = self.detector.get();
        let outcome = guarded(|| replace::redact(
            &self.replacement, scope, &detector.names, original, with_entities,
            &mut |s: &str| Ok(detector.find_str(py, s)), &mut |k: &str| casefold(py, k)))??;
        Ok(Some(match outcome {
            replace::Redacted::Unchanged => (text.clone().into_any(), Vec::new()),
            replace::Redacted::Changed(s, found) => (PyString::new(py, &s).into_any(), found),
            replace::Redacted::Failed => (PyString::new(py, FAILED).into_any(), Vec::new()),
        }))
    }
}


//! citewatch's built-in redaction detectors, compiled: one call per text finds, validates,
//! types and keys every candidate (sidecar/redaction/_scanner.py is the Python front).
//!
//! Each group of `patterns` runs once over the text (a group whose trigger the text lacks is
//! skipped after a cheap test); its candidates are decided here and in `numbers` from a
//! bounded window of text around each one, so the whole call is linear in the text.
//! Offsets are code points, as Python indexes a str.

mod chars;
mod custom;
mod json;
mod nationalid;
mod normalize;
mod numbers;
mod patterns;
mod phonemeta;
mod pytables;
mod replace;
mod replacer;
mod scanner;
mod types;
mod validate;
mod words;

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple, PyType};

pub use scanner::Engine;
pub use types::{Ent, Ty, N_TYPES, TYPES};

/// The built-in detectors, configured: ``types`` (names of BUILTIN_TYPES), the country code
/// of the phone region, whether obfuscated e-mail addresses count, the class whose
/// instances ``detect`` returns (a tuple subclass of type, start, end, key), and
/// ``patterns``: configured entity types, each a name and a regex in the regex crate's
/// syntax (ValueError when one does not compile).
#[pyclass(frozen, module = "sidecar.redaction._native")]
pub(crate) struct Detector {
    engine: Engine,
    entity: Py<PyType>,
    pub(crate) names: Vec<Py<PyString>>,
    pub(crate) type_names: Vec<String>,
    /// whether each type is named SECRET (which loses a tie on the same span)
    secret: Vec<bool>,
    custom: Vec<custom::Custom>,
}

#[pymethods]
impl Detector {
    #[new]
    #[pyo3(signature = (types, *, country_code, email_obfuscations, entity, patterns = Vec::new()))]
    fn new(
        py: Python<'_>,
        types: Vec<String>,
        country_code: u32,
        email_obfuscations: bool,
        entity: Bound<'_, PyType>,
        patterns: Vec<(String, String)>,
    ) -> PyResult<Self> {
        if patterns.len() > usize::from(u8::MAX) {
            return Err(pyo3::exceptions::PyValueError::new_err("at most 255 configured patterns"));
        }
        let mut custom = Vec::with_capacity(patterns.len());
        for (name, pattern) in &patterns {
            custom.push(custom::Custom::new(pattern).map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(format!("pattern {name}: {e}"))
            })?);
        }
        let mut enabled = Vec::new();
        for name in &types {
            match TYPES.iter().find(|t| t.name() == name) {
                Some(&t) => enabled.push(t),
                None => {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "unknown entity type: {name}"
                    )))
                }
            }
        }
        let tuple = py.get_type::<PyTuple>();
        if !entity.is_subclass(&tuple)? || entity.getattr("__slots__").is_err() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "entity must be a NamedTuple class",
            ));
        }
        let type_names: Vec<String> = TYPES
            .iter()
            .map(|t| t.name().to_owned())
            .chain(patterns.into_iter().map(|(name, _)| name))
            .collect();
        let names = type_names.iter().map(|t| PyString::intern(py, t).unbind()).collect();
        Ok(Detector {
            engine: Engine::new(&enabled, country_code, email_obfuscations),
            entity: entity.unbind(),
            names,
            secret: type_names.iter().map(|n| n == "SECRET").collect(),
            type_names,
            custom,
        })
    }

    /// Entities of the enabled types in ``text`` (they may overlap), in the order of the
    /// groups, then of the text.
    fn detect<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyList>> {
        let found = self.find(py, text)?;
        self.entities(py, found, &self.names, &|k| Ok(PyString::new(py, k)))
    }

    /// The entities ``detect`` returns that a redactor with this detector alone keeps, in
    /// text order: the earliest, then the longest, on the same span a validated type before
    /// SECRET (ties in the order of ``detect``), each not overlapping one kept before it and
    /// not empty. Redactor.detect without placeholders in the text or an allow-list.
    fn detect_kept<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyList>> {
        let found = replace::keep(self.find(py, text)?, &[], &self.secret);
        self.entities(py, found, &self.names, &|k| Ok(PyString::new(py, k)))
    }
}

impl Detector {
    fn find(&self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Vec<Ent>> {
        let owned;
        let s: &str = match text.to_str() {
            Ok(s) => s,
            Err(_) => {
                // Lone surrogates (JSON can carry them): each becomes U+FFFD, one code point
                // for one, so offsets stay those of the str.
                owned = without_surrogates(text)?;
                &owned
            }
        };
        guarded(|| self.find_str(py, s))
    }

    /// The entities of ``s``: the built-in types' (``builtin``) and the configured
    /// patterns', found on ``s`` itself as RE2 finds them.
    pub(crate) fn find_str(&self, py: Python<'_>, s: &str) -> Vec<Ent> {
        let mut found = self.builtin(py, s);
        custom::find(&self.custom, s, &mut found);
        found
    }

    /// The built-in types' entities of ``s``, found on its folded form (normalize.rs) with
    /// offsets into ``s``; an entity keyed by its own text is keyed by its folded text when
    /// that differs.
    fn builtin(&self, py: Python<'_>, s: &str) -> Vec<Ent> {
        let Some(folded) = normalize::fold(s, &mut |c: char| nfkc(py, c)) else {
            return self.engine.detect(s, &mut |k: &str| casefold(py, k));
        };
        let found = self.engine.detect(&folded.text, &mut |k: &str| casefold(py, k));
        if found.is_empty() {
            return found;
        }
        let original: Vec<char> = s.chars().collect();
        let chars: Vec<char> = folded.text.chars().collect();
        found
            .into_iter()
            .map(|e| {
                let (a, b) = folded.original(e.start, e.end);
                let key = e.key.or_else(|| {
                    let seen = &chars[e.start..e.end];
                    (seen != &original[a..b]).then(|| seen.iter().collect())
                });
                Ent::new(e.ty, a, b, key)
            })
            .collect()
    }

    /// Entity instances of ``found``, typed by ``names`` (by ``Ty::index``), each key made
    /// a str by ``key_str``.
    pub(crate) fn entities<'py>(
        &self,
        py: Python<'py>,
        found: Vec<Ent>,
        names: &[Py<PyString>],
        key_str: &dyn Fn(&str) -> PyResult<Bound<'py, PyString>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        let entity = self.entity.bind(py);
        // The keys of the last few values, as str objects to share: a text that repeats a
        // value makes one str for it, whose hash Python then computes once (the Redactor
        // looks each key up in its scope).
        let mut recent: Vec<(String, Py<PyString>)> = Vec::new();
        let mut next = 0;
        let share = found.len() > 2;
        for e in found {
            let key: PyObject = match e.key {
                Some(k) if share => {
                    let known = recent.iter().find(|(r, _)| *r == k).map(|(_, o)| o.clone_ref(py));
                    match known {
                        Some(o) => o.into_any(),
                        None => {
                            let o = key_str(&k)?.unbind();
                            let shared = o.clone_ref(py).into_any();
                            if recent.len() < RECENT_KEYS {
                                recent.push((k, o));
                            } else {
                                recent[next] = (k, o);
                                next = (next + 1) % RECENT_KEYS;
                            }
                            shared
                        }
                    }
                }
                Some(k) => key_str(&k)?.into_any().unbind(),
                None => py.None(),
            };
            let fields = [
                names[e.ty.index()].clone_ref(py).into_any(),
                e.start.into_pyobject(py)?.into_any().unbind(),
                e.end.into_pyobject(py)?.into_any().unbind(),
                key,
            ];
            list.append(new_entity(py, entity, fields)?)?;
        }
        Ok(list)
    }
}

const RECENT_KEYS: usize = 8;

/// An instance of the entity class (a NamedTuple: a tuple subclass without a __dict__) made
/// as tuple.__new__(cls, fields) makes it, without a call into Python per entity.
fn new_entity<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    fields: [PyObject; 4],
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: cls is a subclass of tuple without a __dict__ (checked at construction);
    // PyType_GenericAlloc gives a new reference to a zeroed, GC-tracked instance of four
    // items, each set once below, which steals the reference to the field.
    unsafe {
        let raw = pyo3::ffi::PyType_GenericAlloc(cls.as_ptr().cast(), 4);
        if raw.is_null() {
            return Err(PyErr::fetch(py));
        }
        let obj = Bound::from_owned_ptr(py, raw);
        for (i, field) in fields.into_iter().enumerate() {
            if pyo3::ffi::PyTuple_SetItem(raw, i as pyo3::ffi::Py_ssize_t, field.into_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        // It holds a str, two ints and a str or None, so it can be part of no reference
        // cycle: the garbage collector need not walk it (as it stops walking such tuples).
        // A text full of values makes hundreds of thousands of them.
        pyo3::ffi::PyObject_GC_UnTrack(raw.cast());
        Ok(obj)
    }
}

fn without_surrogates(text: &Bound<'_, PyString>) -> PyResult<String> {
    let raw = text.call_method1("encode", ("utf-32-le", "surrogatepass"))?;
    let bytes: &[u8] = raw.extract()?;
    Ok(bytes
        .chunks_exact(4)
        .map(|b| char::from_u32(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).unwrap_or('\u{FFFD}'))
        .collect())
}

thread_local! {
    /// NFKC forms of the characters seen, None where NFKC leaves the character as it is.
    static NFKC: std::cell::RefCell<std::collections::HashMap<char, Option<String>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// unicodedata.normalize("NFKC", c) when it is not ``c`` (Python's own tables decide,
/// asked once per character).
fn nfkc(py: Python<'_>, c: char) -> Option<String> {
    if let Some(known) = NFKC.with(|cache| cache.borrow().get(&c).cloned()) {
        return known;
    }
    let own = c.to_string();
    let form = py
        .import("unicodedata")
        .and_then(|m| m.call_method1("normalize", ("NFKC", own.as_str())))
        .and_then(|f| f.extract::<String>())
        .ok()
        .filter(|f| *f != own);
    NFKC.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() < 1 << 16 {
            cache.insert(c, form.clone());
        }
    });
    form
}

/// str.casefold, for a key that is not ASCII (rare: Python's own tables decide).
pub(crate) fn casefold(py: Python<'_>, key: &str) -> String {
    PyString::new(py, key)
        .call_method0("casefold")
        .and_then(|k| k.extract::<String>())
        .unwrap_or_else(|_| key.to_lowercase())
}

/// The Luhn checksum of ASCII digits.
#[pyfunction]
fn luhn_valid(digits: &str) -> bool {
    digits.bytes().all(|b| b.is_ascii_digit()) && validate::luhn_valid(digits.as_bytes())
}

/// The compact upper-case form of an IBAN, or None.
#[pyfunction]
fn iban_key(candidate: &str) -> Option<String> {
    validate::iban_key(candidate)
}

/// The canonical form of an IPv4 or IPv6 address, or None.
#[pyfunction]
fn ip_key(candidate: &str) -> Option<String> {
    validate::ip_key(candidate)
}

/// Whether a JWT's header is base64url JSON naming an algorithm or a type.
#[pyfunction]
fn jwt_ok(candidate: &str) -> bool {
    validate::jwt_ok(candidate)
}

/// Shannon entropy of the characters of ``value``, in bits per character.
#[pyfunction]
fn entropy(value: &str) -> f64 {
    let c: Vec<char> = value.chars().collect();
    if c.is_empty() {
        0.0
    } else {
        validate::entropy(&c)
    }
}

thread_local! {
    static IN_ENGINE: Cell<bool> = const { Cell::new(false) };
}

/// ``work`` with a panic (a bug in the engine) turned into a RuntimeError. pyo3 would raise
/// PanicException, a BaseException that `except Exception` does not catch, so one text
/// could stop the service; a RuntimeError is caught by the Redactor, which withholds the
/// text and counts the failure. The panic's message is not printed: it may quote the text.
pub(crate) fn guarded<T>(work: impl FnOnce() -> T) -> PyResult<T> {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !IN_ENGINE.with(Cell::get) {
                previous(info); // another extension's panic: reported as before
            }
        }));
    });
    // Nested calls (a Python detector calling the engine) leave the flag as they found it.
    let outer = IN_ENGINE.with(|flag| flag.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(work));
    IN_ENGINE.with(|flag| flag.set(outer));
    result.map_err(|_| PyRuntimeError::new_err("the redaction engine failed on this text"))
}

/// A panic inside the engine, through the same guard as every text (for the tests).
#[pyfunction]
fn _panic_in_engine() -> PyResult<()> {
    guarded(|| panic!("a test panic quoting text: 555-201-7731"))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Detector>()?;
    m.add_class::<replacer::Replacer>()?;
    m.add("DetectorError", m.py().get_type::<replacer::DetectorError>())?;
    m.add("TYPES", PyTuple::new(m.py(), types::names())?)?;
    m.add("PLACEHOLDER", replace::PLACEHOLDER_PATTERN)?;
    m.add_function(wrap_pyfunction!(_panic_in_engine, m)?)?;
    m.add_function(wrap_pyfunction!(luhn_valid, m)?)?;
    m.add_function(wrap_pyfunction!(iban_key, m)?)?;
    m.add_function(wrap_pyfunction!(ip_key, m)?)?;
    m.add_function(wrap_pyfunction!(jwt_ok, m)?)?;
    m.add_function(wrap_pyfunction!(entropy, m)?)?;
    Ok(())
}

//! Redaction of a whole text in one call: every detector's entities (the engine's and those
//! of Python detectors, see native/src/replacer/) chosen as the Redactor chooses them, each
//! replaced by
//! its placeholder, hmac token or nothing, and detection run again on the result until it
//! finds nothing, an allow-list's values passed over (tests/redaction/_oracle.py holds the
//! same rules in Python, the reference the tests hold this to).
//!
//! The trace's scope stays the Redactor's: the same Python dicts of tokens, numbers and
//! counts, read and written here, so a value keeps its placeholder across the texts of a
//! trace.

mod keep;
mod table;

use std::collections::{HashMap, HashSet};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

pub use keep::{keep, keep_unless, Offsets, PLACEHOLDER_PATTERN};
pub use table::{Mode, Modes, Table};

use crate::{Ent, Ty};
use keep::protected;

/// At most this many passes over one text; a text still changing after them is withheld.
pub const MAX_PASSES: usize = 16;

/// The trace's scope: the Redactor's Scope dicts, and what this call learnt of them.
pub struct Scope<'py> {
    pub tokens: Bound<'py, PyDict>,
    pub numbers: Bound<'py, PyDict>,
    pub counts: Bound<'py, PyDict>,
    /// tokens made or read during this call, by type then key
    known: Vec<HashMap<String, Py<PyString>>>,
    counted: Vec<usize>,
    failures: usize,
}

impl<'py> Scope<'py> {
    pub fn new(
        tokens: Bound<'py, PyDict>,
        numbers: Bound<'py, PyDict>,
        counts: Bound<'py, PyDict>,
    ) -> Self {
        Scope { tokens, numbers, counts, known: Vec::new(), counted: Vec::new(), failures: 0 }
    }

    fn grow(&mut self, types: usize) {
        if self.counted.len() < types {
            self.known.resize_with(types, HashMap::new);
            self.counted.resize(types, 0);
        }
    }

    /// Adds what was counted to the scope's counts (each type's entities, and the texts
    /// withheld).
    pub fn flush(&mut self, names: &[Py<PyString>]) -> PyResult<()> {
        let py = self.counts.py();
        for (i, &n) in self.counted.iter().enumerate() {
            if n > 0 {
                add(&self.counts, names[i].bind(py).as_any(), n)?;
            }
        }
        if self.failures > 0 {
            add(&self.counts, PyString::new(py, "REDACTION_ERROR").as_any(), self.failures)?;
        }
        self.counted.iter_mut().for_each(|n| *n = 0);
        self.failures = 0;
        Ok(())
    }

    pub fn failed(&mut self) {
        self.failures += 1;
    }
}

fn add(counter: &Bound<'_, PyDict>, key: &Bound<'_, PyAny>, n: usize) -> PyResult<()> {
    let before: usize = match counter.get_item(key)? {
        Some(value) => value.extract()?,
        None => 0,
    };
    counter.set_item(key, before + n)
}

/// What one call reads its texts with: the detectors, the type table they grow, the Python
/// form of a piece of text, and the allow-list's test.
pub trait Texts<'py> {
    /// Every detector's entities of ``s``, in the detectors' order (they may overlap).
    fn find(&mut self, s: &str) -> PyResult<Vec<Ent>>;
    /// The types known so far (``find`` may add some).
    fn table(&self) -> &Table;
    /// The Python str of a piece of a text (a key, a redacted text).
    fn py_str(&self, s: &str) -> PyResult<Bound<'py, PyString>>;
    /// Whether the allow-list holds ``value`` (case-folded as str.casefold does).
    fn allowed(&mut self, value: &str) -> bool;
}

/// How values are replaced: the hmac token maker (a Python callable of the type and the
/// key) when a type uses it.
pub struct Replacement {
    pub hmac: Option<PyObject>,
    /// the allow-list, case-folded: a value whose text or key folds to one of these stays
    pub allow: HashSet<String>,
}

impl Replacement {
    /// The token of one value of type ``ty``, made and remembered in the scope on first
    /// sight (None: dropped).
    pub fn token<'py>(
        &self,
        scope: &mut Scope<'py>,
        texts: &dyn Texts<'py>,
        ty: Ty,
        key: &str,
    ) -> PyResult<Option<Bound<'py, PyString>>> {
        let py = scope.tokens.py();
        let table = texts.table();
        let i = ty.index();
        scope.grow(table.names.len());
        let mode = table.modes[i];
        if mode == Mode::Drop {
            return Ok(None);
        }
        if let Some(token) = scope.known[i].get(key) {
            return Ok(Some(token.bind(py).clone()));
        }
        let name = table.names[i].bind(py);
        let scope_key = PyTuple::new(py, [name.as_any().clone(), texts.py_str(key)?.into_any()])?;
        let token: Bound<'py, PyString> = match scope.tokens.get_item(&scope_key)? {
            Some(token) => token.downcast_into::<PyString>()?,
            None => {
                let token = match (mode, &self.hmac) {
                    (Mode::Hmac, Some(hmac)) => hmac
                        .bind(py)
                        .call1((name, scope_key.get_item(1)?))?
                        .downcast_into::<PyString>()?,
                    _ => {
                        let n: usize = match scope.numbers.get_item(name)? {
                            Some(value) => value.extract::<usize>()? + 1,
                            None => 1,
                        };
                        scope.numbers.set_item(name, n)?;
                        PyString::new(py, &format!("<{}_{}>", name.to_str()?, n))
                    }
                };
                scope.tokens.set_item(scope_key, &token)?;
                token
            }
        };
        scope.known[i].insert(key.to_owned(), token.clone().unbind());
        Ok(Some(token))
    }

    /// ``token``, counted as one replacement of ``ty``.
    pub fn count<'py>(
        &self,
        scope: &mut Scope<'py>,
        texts: &dyn Texts<'py>,
        ty: Ty,
        key: &str,
    ) -> PyResult<Option<Bound<'py, PyString>>> {
        scope.grow(texts.table().names.len());
        scope.counted[ty.index()] += 1;
        self.token(scope, texts, ty, key)
    }

    /// ``s`` with ``entities`` (code point spans of it, in order, not overlapping) replaced,
    /// and the code point length of each one's replacement.
    fn apply<'py>(
        &self,
        scope: &mut Scope<'py>,
        texts: &dyn Texts<'py>,
        s: &str,
        entities: &[Ent],
    ) -> PyResult<(String, Vec<usize>)> {
        let offsets = Offsets::new(s);
        let mut out = String::with_capacity(s.len());
        let mut lengths = Vec::with_capacity(entities.len());
        let mut cursor = 0;
        scope.grow(texts.table().names.len());
        for e in entities {
            let (a, b) = (offsets.byte(e.start), offsets.byte(e.end));
            scope.counted[e.ty.index()] += 1;
            let key = e.key.as_deref().unwrap_or(&s[a..b]);
            out.push_str(&s[cursor..a]);
            match self.token(scope, texts, e.ty, key)? {
                Some(token) => {
                    let token = token.to_str()?;
                    out.push_str(token);
                    lengths.push(token.chars().count());
                }
                None => lengths.push(0),
            }
            cursor = b;
        }
        out.push_str(&s[cursor..]);
        Ok((out, lengths))
    }

    /// The entities of ``s`` the Redactor keeps, the allow-list's values passed over.
    pub fn keep<'py>(&self, found: Vec<Ent>, s: &str, texts: &mut dyn Texts<'py>) -> Vec<Ent> {
        let offsets = Offsets::new(s);
        let shield = protected(s, &offsets);
        if self.allow.is_empty() || found.is_empty() {
            return keep(found, &shield, &texts.table().secret);
        }
        let secret = texts.table().secret.clone();
        keep_unless(found, &shield, &secret, &mut |e: &Ent| {
            let raw = &s[offsets.byte(e.start)..offsets.byte(e.end)];
            // `key or raw`: an empty key is no key here
            texts.allowed(raw)
                || texts.allowed(e.key.as_deref().filter(|k| !k.is_empty()).unwrap_or(raw))
        })
    }
}

/// What one text came to.
pub enum Redacted {
    /// nothing to replace: the text as it was
    Unchanged,
    /// the redacted text, and the entities replaced with offsets into the original text
    /// (in text order; empty unless asked for)
    Changed(String, Vec<Ent>),
    /// still changing after MAX_PASSES passes: withheld
    Failed,
}

/// Redacts ``original``, reading it and each pass's result with ``texts``.
pub fn redact<'py>(
    replacement: &Replacement,
    scope: &mut Scope<'py>,
    texts: &mut dyn Texts<'py>,
    original: &str,
    with_entities: bool,
) -> PyResult<Redacted> {
    if original.len() >= INSIDE_TOKEN as usize {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "text too long to redact (4 GB or more)",
        ));
    }
    let found = texts.find(original)?;
    let first = replacement.keep(found, original, texts);
    if first.is_empty() {
        return Ok(Redacted::Unchanged);
    }
    let (mut current, lengths) = replacement.apply(scope, texts, original, &first)?;
    // index in the original text of each code point of `current` (INSIDE_TOKEN inside a
    // token), built only when a later pass finds something and the entities are wanted
    let mut origin: Option<Vec<u32>> = None;
    let mut all = if with_entities { first.clone() } else { Vec::new() };
    for _ in 0..MAX_PASSES {
        let found = texts.find(&current)?;
        let more = replacement.keep(found, &current, texts);
        if more.is_empty() {
            all.sort_by_key(|e| e.start);
            return Ok(Redacted::Changed(current, all));
        }
        if with_entities {
            let map = origin.get_or_insert_with(|| first_origin(original, &first, &lengths));
            for e in &more {
                let (a, b) = (map[e.start], map[e.end - 1]);
                if a != INSIDE_TOKEN && b != INSIDE_TOKEN {
                    all.push(Ent::new(e.ty, a as usize, b as usize + 1, e.key.clone()));
                }
            }
        }
        let (next, more_lengths) = replacement.apply(scope, texts, &current, &more)?;
        if let Some(map) = origin.as_mut() {
            *map = next_origin(map, &more, &more_lengths);
        }
        current = next;
    }
    scope.failed();
    Ok(Redacted::Failed)
}

/// The origin map's mark of a code point inside a token (texts are shorter than 2^32).
const INSIDE_TOKEN: u32 = u32::MAX;

/// The origin map after the first pass: the identity map with its tokens put in.
fn first_origin(original: &str, entities: &[Ent], lengths: &[usize]) -> Vec<u32> {
    let identity: Vec<u32> = (0..original.chars().count() as u32).collect();
    next_origin(&identity, entities, lengths)
}

fn next_origin(map: &[u32], entities: &[Ent], lengths: &[usize]) -> Vec<u32> {
    let mut next = Vec::with_capacity(map.len());
    let mut cursor = 0;
    for (e, &len) in entities.iter().zip(lengths) {
        next.extend_from_slice(&map[cursor..e.start]);
        next.extend(std::iter::repeat(INSIDE_TOKEN).take(len));
        cursor = e.end;
    }
    next.extend_from_slice(&map[cursor..]);
    next
}

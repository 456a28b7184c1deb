//! Redaction of a whole text in one call: the detectors' entities chosen as the Redactor
//! chooses them, each replaced by its placeholder, hmac token or nothing, and detection run
//! again on the result until it finds nothing, an allow-list's values passed over
//! (sidecar/redaction/_redactor.py holds the same rules in Python, for what this does not
//! cover: several detectors, a text with lone surrogates).
//!
//! The trace's scope stays the Redactor's: the same Python dicts of tokens, numbers and
//! counts, read and written here, so a value keeps its placeholder across the texts of a
//! trace whichever way each text went.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use regex::Regex;

use crate::{Ent, Ty};

/// At most this many passes over one text; a text still changing after them is withheld.
pub const MAX_PASSES: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Placeholder,
    Hmac,
    Drop,
}

impl Mode {
    pub fn parse(name: &str) -> Option<Mode> {
        match name {
            "placeholder" => Some(Mode::Placeholder),
            "hmac" => Some(Mode::Hmac),
            "drop" => Some(Mode::Drop),
            _ => None,
        }
    }
}

/// What the redactor writes, never detected again (the Python PLACEHOLDER pattern).
fn placeholder() -> &'static Regex {
    static PLACEHOLDER: OnceLock<Regex> = OnceLock::new();
    PLACEHOLDER.get_or_init(|| {
        Regex::new(r"<[A-Z][A-Z0-9_]*_(?:[0-9]+|[0-9a-f]{16})>|<REDACTED>").expect("placeholder pattern")
    })
}

/// Code point offsets of the byte offsets of one str, computed once when it is not ASCII.
pub struct Offsets {
    /// byte offset of each code point, and of the end (None: ASCII, the same numbers)
    c2b: Option<Vec<usize>>,
}

impl Offsets {
    pub fn new(s: &str) -> Self {
        if s.is_ascii() {
            return Offsets { c2b: None };
        }
        let mut c2b: Vec<usize> = s.char_indices().map(|(b, _)| b).collect();
        c2b.push(s.len());
        Offsets { c2b: Some(c2b) }
    }

    pub fn byte(&self, char_index: usize) -> usize {
        match &self.c2b {
            None => char_index,
            Some(map) => map[char_index],
        }
    }

    /// The code point offset of a byte offset at a character boundary.
    pub fn char_of(&self, byte: usize) -> usize {
        match &self.c2b {
            None => byte,
            Some(map) => map.partition_point(|&b| b < byte),
        }
    }
}

/// The placeholders already in ``s``, as code point spans (never overlapping, in order).
fn protected(s: &str, offsets: &Offsets) -> Vec<(usize, usize)> {
    if !s.contains('<') {
        return Vec::new();
    }
    placeholder().find_iter(s).map(|m| (offsets.char_of(m.start()), offsets.char_of(m.end()))).collect()
}

/// The entities a Redactor keeps: earliest, then longest, on the same span a validated type
/// before SECRET (ties in the detectors' order); none overlapping one kept before it, none
/// overlapping a placeholder, none empty. In text order.
pub fn keep(found: Vec<Ent>, protected: &[(usize, usize)]) -> Vec<Ent> {
    keep_unless(found, protected, &mut |_| false)
}

/// ``keep``, passing over the entities ``allowed`` says stay (an allow-list's values), which
/// then hide nothing after them.
pub fn keep_unless(mut found: Vec<Ent>, protected: &[(usize, usize)],
                   allowed: &mut dyn FnMut(&Ent) -> bool) -> Vec<Ent> {
    found.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end), e.ty == Ty::Secret));
    let mut last_end = 0;
    let mut shield = 0;
    found.retain(|e| {
        if e.start < last_end || e.end <= e.start {
            return false;
        }
        while shield < protected.len() && protected[shield].1 <= e.start {
            shield += 1;
        }
        if shield < protected.len() && protected[shield].0 < e.end {
            return false;
        }
        if allowed(e) {
            return false;
        }
        last_end = e.end;
        true
    });
    found
}

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
    /// A scope for ``types`` entity types (the detector's names, built-in and configured).
    pub fn new(tokens: Bound<'py, PyDict>, numbers: Bound<'py, PyDict>, counts: Bound<'py, PyDict>,
               types: usize) -> Self {
        Scope { tokens, numbers, counts, known: (0..types).map(|_| HashMap::new()).collect(),
                counted: vec![0; types], failures: 0 }
    }

    /// Adds what was counted to the scope's counts (each type's entities, and a withheld text).
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

/// How each type's values are replaced, and the hmac token maker (a Python callable of the
/// type and the key) when a type uses it.
pub struct Replacement {
    pub modes: Vec<Mode>,
    pub hmac: Option<PyObject>,
    /// the allow-list, case-folded: a value whose text or key folds to one of these stays
    pub allow: HashSet<String>,
}

impl Replacement {
    /// The token of one value, made and remembered in the scope on first sight ("" to drop).
    fn token<'py>(&self, scope: &mut Scope<'py>, names: &[Py<PyString>], ty: Ty, key: &str)
                  -> PyResult<Option<Bound<'py, PyString>>> {
        let py = scope.tokens.py();
        let i = ty.index();
        if self.modes[i] == Mode::Drop {
            return Ok(None);
        }
        if let Some(token) = scope.known[i].get(key) {
            return Ok(Some(token.bind(py).clone()));
        }
        let name = names[i].bind(py);
        let scope_key = PyTuple::new(py, [name.as_any().clone(), PyString::new(py, key).into_any()])?;
        let token: Bound<'py, PyString> = match scope.tokens.get_item(&scope_key)? {
            Some(token) => token.downcast_into::<PyString>()?,
            None => {
                let token = match (self.modes[i], &self.hmac) {
                    (Mode::Hmac, Some(hmac)) => hmac.bind(py).call1((name, key))?.downcast_into::<PyString>()?,
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

    /// ``s`` with ``entities`` (code point spans of it, in order, not overlapping) replaced,
    /// and the code point length of each one's replacement.
    pub fn apply<'py>(&self, scope: &mut Scope<'py>, names: &[Py<PyString>], s: &str,
                      entities: &[Ent]) -> PyResult<(String, Vec<usize>)> {
        let offsets = Offsets::new(s);
        let mut out = String::with_capacity(s.len());
        let mut lengths = Vec::with_capacity(entities.len());
        let mut cursor = 0;
        for e in entities {
            let (a, b) = (offsets.byte(e.start), offsets.byte(e.end));
            scope.counted[e.ty.index()] += 1;
            let key = e.key.as_deref().unwrap_or(&s[a..b]);
            out.push_str(&s[cursor..a]);
            match self.token(scope, names, e.ty, key)? {
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

impl Replacement {
    /// The entities of ``s`` the Redactor keeps, the allow-list's values passed over
    /// (``casefold``: str.casefold).
    fn keep(&self, found: Vec<Ent>, s: &str, casefold: &mut dyn FnMut(&str) -> String) -> Vec<Ent> {
        let offsets = Offsets::new(s);
        let shield = protected(s, &offsets);
        if self.allow.is_empty() || found.is_empty() {
            return keep(found, &shield);
        }
        let allow = &self.allow;
        keep_unless(found, &shield, &mut |e: &Ent| {
            let raw = &s[offsets.byte(e.start)..offsets.byte(e.end)];
            let folded = |k: &str, casefold: &mut dyn FnMut(&str) -> String| {
                if k.is_ascii() { k.to_ascii_lowercase() } else { casefold(k) }
            };
            allow.contains(&folded(raw, casefold))
                || allow.contains(&folded(e.key.as_deref().unwrap_or(raw), casefold))
        })
    }
}

/// Redacts ``original``; ``find`` gives the detectors' entities of a text (they may overlap),
/// ``casefold`` str.casefold (for the allow-list).
pub fn redact<'py>(replacement: &Replacement, scope: &mut Scope<'py>, names: &[Py<PyString>],
                   original: &str, with_entities: bool,
                   find: &mut dyn FnMut(&str) -> PyResult<Vec<Ent>>,
                   casefold: &mut dyn FnMut(&str) -> String) -> PyResult<Redacted> {
    if original.len() >= INSIDE_TOKEN as usize {
        return Err(pyo3::exceptions::PyValueError::new_err("text too long to redact (4 GB or more)"));
    }
    let first = replacement.keep(find(original)?, original, casefold);
    if first.is_empty() {
        return Ok(Redacted::Unchanged);
    }
    let (mut current, lengths) = replacement.apply(scope, names, original, &first)?;
    // index in the original text of each code point of `current` (INSIDE_TOKEN inside a
    // token), built only when a later pass finds something and the entities are wanted
    let mut origin: Option<Vec<u32>> = None;
    let mut all = if with_entities { first.clone() } else { Vec::new() };
    for _ in 0..MAX_PASSES {
        let more = replacement.keep(find(&current)?, &current, casefold);
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
        let (next, more_lengths) = replacement.apply(scope, names, &current, &more)?;
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

/// The modes of every type (``names``: built-in, then configured) from the Redactor's
/// settings.
pub fn modes(by_type: &HashMap<String, String>, default: &str, names: &[String]) -> Option<Vec<Mode>> {
    let default = Mode::parse(default)?;
    let mut modes = vec![default; names.len()];
    for (name, mode) in by_type {
        let mode = Mode::parse(mode)?;
        for (i, _) in names.iter().enumerate().filter(|(_, n)| *n == name) {
            modes[i] = mode;
        }
    }
    Some(modes)
}

//! Which of the entities found a Redactor keeps: earliest, then longest, none overlapping
//! one kept before or a placeholder the text already holds; and the code point offsets of a
//! str's bytes that spans are counted in.

use std::sync::OnceLock;

use regex::Regex;

use crate::Ent;

/// What the redactor writes, never detected again: a placeholder, a keyed token or the
/// mark of a withheld text (exported to Python as ``PLACEHOLDER``, which RE2 runs there).
pub const PLACEHOLDER_PATTERN: &str = r"<[A-Z][A-Z0-9_]*_(?:[0-9]+|[0-9a-f]{16})>|<REDACTED>";

fn placeholder() -> &'static Regex {
    static PLACEHOLDER: OnceLock<Regex> = OnceLock::new();
    PLACEHOLDER.get_or_init(|| Regex::new(PLACEHOLDER_PATTERN).expect("placeholder pattern"))
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
pub fn protected(s: &str, offsets: &Offsets) -> Vec<(usize, usize)> {
    if !s.contains('<') {
        return Vec::new();
    }
    placeholder()
        .find_iter(s)
        .map(|m| (offsets.char_of(m.start()), offsets.char_of(m.end())))
        .collect()
}

/// The entities a Redactor keeps: earliest, then longest, on the same span another type
/// before SECRET (``secret``: whether the type at each index is named SECRET; ties in the
/// detectors' order); none overlapping one kept before it, none overlapping a placeholder,
/// none empty. In text order.
pub fn keep(found: Vec<Ent>, protected: &[(usize, usize)], secret: &[bool]) -> Vec<Ent> {
    keep_unless(found, protected, secret, &mut |_| false)
}

/// ``keep``, passing over the entities ``allowed`` says stay (an allow-list's values), which
/// then hide nothing after them.
pub fn keep_unless(
    mut found: Vec<Ent>,
    protected: &[(usize, usize)],
    secret: &[bool],
    allowed: &mut dyn FnMut(&Ent) -> bool,
) -> Vec<Ent> {
    found.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end), secret[e.ty.index()]));
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

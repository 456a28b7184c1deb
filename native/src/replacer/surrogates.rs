//! Texts with lone surrogates, which are no Rust strings, read through a block of
//! private-use code points the text does not use.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// The code points of a str, lone surrogates included.
pub(super) fn code_points(text: &Bound<'_, PyString>) -> PyResult<Vec<u32>> {
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
pub(super) struct Surrogates {
    base: u32,
}

impl Surrogates {
    pub(super) fn free(points: &[u32]) -> Option<Surrogates> {
        let mut used = [false; 64];
        for &p in points {
            if p >= PRIVATE_USE {
                used[((p - PRIVATE_USE) / BLOCK) as usize] = true;
            }
        }
        let k = used.iter().position(|&u| !u)?;
        Some(Surrogates { base: PRIVATE_USE + k as u32 * BLOCK })
    }

    pub(super) fn holds_point(&self, p: u32) -> bool {
        (self.base..self.base + BLOCK).contains(&p)
    }

    pub(super) fn holds(&self, c: char) -> bool {
        self.holds_point(c as u32)
    }

    pub(super) fn map(&self, points: &[u32]) -> String {
        points
            .iter()
            .map(|&p| {
                let p =
                    if SURROGATES.contains(&p) { self.base + (p - SURROGATES.start) } else { p };
                char::from_u32(p).unwrap_or('\u{FFFD}')
            })
            .collect()
    }

    /// The text as the engine reads it: each lone surrogate a U+FFFD (as Detector.detect
    /// reads a str), one code point for one.
    pub(super) fn for_engine(&self, s: &str) -> String {
        s.chars().map(|c| if self.holds(c) { '\u{FFFD}' } else { c }).collect()
    }

    /// The Python str of ``s`` with its surrogates restored.
    pub(super) fn unmap<'py>(&self, py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyString>> {
        let mut bytes = Vec::with_capacity(s.len() * 4);
        for c in s.chars() {
            let p = c as u32;
            let p = if self.holds_point(p) { SURROGATES.start + (p - self.base) } else { p };
            bytes.extend_from_slice(&p.to_le_bytes());
        }
        PyBytes::new(py, &bytes)
            .call_method1("decode", ("utf-32-le", "surrogatepass"))?
            .downcast_into::<PyString>()
            .map_err(PyErr::from)
    }
}

//! Configured patterns (redaction.custom_patterns) in the engine: each an extra entity type
//! found by a regex on the original text, so that a configured pattern keeps a text in the
//! engine. The Python front translates RE2's syntax into the regex crate's (its ASCII
//! classes and word boundaries spelled out); the RE2 detector (sidecar/redaction/_build.py)
//! stays the reference the tests compare this with.

use regex::{Regex, RegexBuilder};

use crate::replace::Offsets;
use crate::{Ent, Ty};

/// One configured pattern: its regex and whether group 1's span is the value.
pub struct Custom {
    regex: Regex,
    group: bool,
}

impl Custom {
    /// The pattern compiled, or the regex crate's error.
    pub fn new(pattern: &str) -> Result<Custom, String> {
        let regex =
            RegexBuilder::new(pattern).size_limit(1 << 24).build().map_err(|e| e.to_string())?;
        let group = regex.captures_len() > 1;
        Ok(Custom { regex, group })
    }
}

/// The entities of every configured pattern in ``s``, typed ``Ty::Custom(n)`` for the n-th
/// pattern, in code points; empty matches (and a group 1 that took no part) are not values.
pub fn find(patterns: &[Custom], s: &str, out: &mut Vec<Ent>) {
    let mut offsets: Option<Offsets> = None;
    for (n, custom) in patterns.iter().enumerate() {
        let ty = Ty::Custom(n as u16);
        let mut push = |a: usize, b: usize, out: &mut Vec<Ent>| {
            if b > a {
                let map = offsets.get_or_insert_with(|| Offsets::new(s));
                out.push(Ent::new(ty, map.char_of(a), map.char_of(b), None));
            }
        };
        if custom.group {
            for caps in custom.regex.captures_iter(s) {
                if let Some(m) = caps.get(1) {
                    push(m.start(), m.end(), out);
                }
            }
        } else {
            for m in custom.regex.find_iter(s) {
                push(m.start(), m.end(), out);
            }
        }
    }
}

//! Whole-string shapes of a run's values (dates, decimals, dotted quads, SSNs) and the
//! separators' rules (stripping them, digit groups read as thousands).

use std::sync::OnceLock;

use regex::Regex;

use crate::chars as ch;
use crate::patterns::{anchored_dfa, DenseDfa};

/// A whole-string shape: the regex, and for ASCII strings the same pattern as a whole DFA
/// with Unicode off (its \d is then [0-9], as the regex's is on ASCII), which answers
/// without the regex's per-call bookkeeping.
pub(super) struct Shape {
    re: Regex,
    ascii: DenseDfa,
}

impl Shape {
    fn new(pattern: &str) -> Shape {
        Shape { re: Regex::new(pattern).unwrap(), ascii: anchored_dfa(pattern, true) }
    }
}

pub(super) struct Shapes {
    pub(super) date: Shape,
    pub(super) decimal: Shape,
    pub(super) ipv4: Shape,
    ssn: Regex,
}

pub(super) fn shapes() -> &'static Shapes {
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    SHAPES.get_or_init(|| {
        // A date with the same separator twice (the Python rule's backreference, spelled
        // out per separator).
        let mut dates = Vec::new();
        for sep in ["-", r"\.", "/"] {
            dates.push(format!(
                r"(?:19|20)\d\d{sep}(?:0?[1-9]|1[0-2]){sep}(?:0?[1-9]|[12]\d|3[01])"
            ));
            dates.push(format!(
                r"(?:0?[1-9]|[12]\d|3[01]){sep}(?:0?[1-9]|1[0-2]){sep}(?:19|20)?\d\d"
            ));
            dates.push(format!(
                r"(?:0?[1-9]|1[0-2]){sep}(?:0?[1-9]|[12]\d|3[01]){sep}(?:19|20)\d\d"
            ));
        }
        Shapes {
            date: Shape::new(&format!(r"^\(?(?:{})\)?$", dates.join("|"))),
            decimal: Shape::new(r"^-?(?:[1-9]\d{0,2}|0)\.\d{4,}$"),
            ipv4: Shape::new(r"^\d{1,3}(?:\.\d{1,3}){3}$"),
            ssn: Regex::new(r"^(?:(\d{3})-(\d{2})-(\d{4})|(\d{3}) (\d{2}) (\d{4}))$").unwrap(),
        }
    })
}

pub(super) fn full(shape: &Shape, s: &[char]) -> bool {
    use regex_automata::dfa::Automaton;
    let mut buf = [0u8; 64];
    if s.len() <= buf.len() && s.iter().all(char::is_ascii) {
        for (b, &c) in buf.iter_mut().zip(s) {
            *b = c as u8;
        }
        let input = regex_automata::Input::new(&buf[..s.len()])
            .anchored(regex_automata::Anchored::Yes)
            .earliest(true);
        if let Ok(found) = shape.ascii.try_search_fwd(&input) {
            return found.is_some();
        }
        // ASCII bytes are UTF-8
        return shape.re.is_match(std::str::from_utf8(&buf[..s.len()]).unwrap_or(""));
    }
    shape.re.is_match(&ch::to_string(s))
}

/// The SSN shape's area, group and serial.
pub(super) fn ssn_parts(s: &[char]) -> Option<(String, String, String)> {
    if s.len() != 11 {
        return None;
    }
    if s.iter().all(char::is_ascii) {
        // the pattern on ASCII: three digits, two, four, split by two dashes or two spaces
        let (area, group, serial) = ssn_shape(s)?;
        return Some((ch::to_string(area), ch::to_string(group), ch::to_string(serial)));
    }
    let text = ch::to_string(s);
    let caps = shapes().ssn.captures(&text)?;
    let g = |a: usize, b: usize| caps.get(a).or_else(|| caps.get(b)).unwrap().as_str().to_string();
    Some((g(1, 4), g(2, 5), g(3, 6)))
}

/// Whether ``s`` has the SSN shape, for an ASCII ``s`` (the pattern's \d is then [0-9]).
pub(super) fn ssn_shaped(s: &[char]) -> bool {
    if s.len() != 11 {
        return false;
    }
    if s.iter().all(char::is_ascii) {
        return ssn_shape(s).is_some();
    }
    shapes().ssn.is_match(&ch::to_string(s))
}

/// The area, group and serial of an ASCII SSN shape of 11 characters.
fn ssn_shape(s: &[char]) -> Option<(&[char], &[char], &[char])> {
    let sep = s[3];
    let digits = |r: std::ops::Range<usize>| s[r].iter().all(char::is_ascii_digit);
    if (sep == '-' || sep == ' ') && s[6] == sep && digits(0..3) && digits(4..6) && digits(7..11) {
        Some((&s[0..3], &s[4..6], &s[7..11]))
    } else {
        None
    }
}

/// value.translate(_STRIP): the value without separators and plus signs.
pub(super) fn stripped(s: &[char]) -> Vec<char> {
    s.iter()
        .copied()
        .filter(|&c| !matches!(c, ' ' | '\u{a0}' | '.' | '/' | '(' | ')' | '-' | '+'))
        .collect()
}

pub(super) fn stripped_len(s: &[char]) -> usize {
    s.iter().filter(|&&c| !matches!(c, ' ' | '\u{a0}' | '.' | '/' | '(' | ')' | '-' | '+')).count()
}

pub(super) fn strip_chars<'a>(s: &'a [char], set: &str) -> &'a [char] {
    let inside = |c: char| c.is_ascii() && set.as_bytes().contains(&(c as u8));
    let a = s.iter().position(|&c| !inside(c)).unwrap_or(s.len());
    let b = s.iter().rposition(|&c| !inside(c)).map_or(a, |p| p + 1);
    &s[a..b.max(a)]
}

fn group_split(value: &[char]) -> (Vec<&[char]>, Vec<&[char]>) {
    let is_sep = |c: char| matches!(c, ' ' | '\u{a0}' | '.' | '/' | '(' | ')' | '+' | '-');
    let mut groups = Vec::new();
    let mut seps = Vec::new();
    let mut i = 0;
    let mut group_start = 0;
    while i < value.len() {
        if is_sep(value[i]) {
            let j = (i..value.len()).find(|&j| !is_sep(value[j])).unwrap_or(value.len());
            groups.push(&value[group_start..i]);
            seps.push(&value[i..j]);
            group_start = j;
            i = j;
        } else {
            i += 1;
        }
    }
    groups.push(&value[group_start..]);
    (groups, seps)
}

/// Digit groups that read as one number with thousands separators (1 234 567, 12.345.678).
pub(super) fn thousands(value: &[char]) -> bool {
    let (groups, seps) = group_split(value);
    let mut distinct: Vec<&[char]> = Vec::new();
    for s in seps {
        if !distinct.contains(&s) {
            distinct.push(s);
        }
    }
    groups.len() >= 3
        && distinct.len() == 1
        && (1..=3).contains(&groups[0].len())
        && groups[0][0] != '0'
        && groups[1..].iter().all(|g| g.len() == 3)
}

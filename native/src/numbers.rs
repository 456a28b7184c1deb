//! Runs of digits and separators: phone numbers, payment cards, US social security numbers
//! (docs/redaction.md has the rules). A run of the right shape is redacted unless its
//! context clearly makes it something else (a date, a version, an amount, a quantity with
//! a unit, an identifier); checksums decide between types. Every step reads a bounded window
//! around the run: 48 characters before it, 16 after, and windows of at most seven tokens.

use std::sync::OnceLock;

use regex::Regex;

use crate::chars::{self as ch, Text};
use crate::patterns::{anchored_dfa, DenseDfa};
use crate::validate::luhn_valid;
use crate::words;
use crate::{Ent, Ty};

const MAX_GROUPS: usize = 7;

/// A whole-string shape: the regex, and for ASCII strings the same pattern as a whole DFA
/// with Unicode off (its \d is then [0-9], as the regex's is on ASCII), which answers
/// without the regex's per-call bookkeeping.
struct Shape {
    re: Regex,
    ascii: DenseDfa,
}

impl Shape {
    fn new(pattern: &str) -> Shape {
        Shape { re: Regex::new(pattern).unwrap(), ascii: anchored_dfa(pattern, true) }
    }
}

struct Shapes {
    date: Shape,
    decimal: Shape,
    ipv4: Shape,
    ssn: Regex,
}

fn shapes() -> &'static Shapes {
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    SHAPES.get_or_init(|| {
        // A date with the same separator twice (the Python rule's backreference, spelled
        // out per separator).
        let mut dates = Vec::new();
        for sep in ["-", r"\.", "/"] {
            dates.push(format!(
                r"(?:19|20)\d\d{sep}(?:0?[1-9]|1[0-2]){sep}(?:0?[1-9]|[12]\d|3[01])"));
            dates.push(format!(
                r"(?:0?[1-9]|[12]\d|3[01]){sep}(?:0?[1-9]|1[0-2]){sep}(?:19|20)?\d\d"));
            dates.push(format!(
                r"(?:0?[1-9]|1[0-2]){sep}(?:0?[1-9]|[12]\d|3[01]){sep}(?:19|20)\d\d"));
        }
        Shapes {
            date: Shape::new(&format!(r"^\(?(?:{})\)?$", dates.join("|"))),
            decimal: Shape::new(r"^-?(?:[1-9]\d{0,2}|0)\.\d{4,}$"),
            ipv4: Shape::new(r"^\d{1,3}(?:\.\d{1,3}){3}$"),
            ssn: Regex::new(r"^(?:(\d{3})-(\d{2})-(\d{4})|(\d{3}) (\d{2}) (\d{4}))$").unwrap(),
        }
    })
}

fn full(shape: &Shape, s: &[char]) -> bool {
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
fn ssn_parts(s: &[char]) -> Option<(String, String, String)> {
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
fn ssn_shaped(s: &[char]) -> bool {
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

fn is_currency(c: char) -> bool {
    matches!(c, '$' | '€' | '£' | '¥' | '₹' | '₽' | '₩')
}

/// value.translate(_STRIP): the value without separators and plus signs.
fn stripped(s: &[char]) -> Vec<char> {
    s.iter().copied().filter(|&c| !matches!(c, ' ' | '\u{a0}' | '.' | '/' | '(' | ')' | '-' | '+')).collect()
}

fn stripped_len(s: &[char]) -> usize {
    s.iter().filter(|&&c| !matches!(c, ' ' | '\u{a0}' | '.' | '/' | '(' | ')' | '-' | '+')).count()
}

/// A short lower-cased word on the stack (a context word or a unit), compared to the word
/// lists as a str; a word too long for it is empty, as it is in no list.
struct Word {
    buf: [u8; 64],
    len: usize,
}

impl Word {
    const EMPTY: Word = Word { buf: [0; 64], len: 0 };

    /// The word lower-cased as str.lower does (ASCII characters directly).
    fn lower(word: &[char]) -> Word {
        let mut w = Word::EMPTY;
        for &c in word {
            if c.is_ascii() {
                if w.len == w.buf.len() {
                    return Word::EMPTY;
                }
                w.buf[w.len] = c.to_ascii_lowercase() as u8;
                w.len += 1;
            } else {
                for l in c.to_lowercase() {
                    if w.len + l.len_utf8() > w.buf.len() {
                        return Word::EMPTY;
                    }
                    w.len += l.encode_utf8(&mut w.buf[w.len..]).len();
                }
            }
        }
        w
    }
}

impl std::ops::Deref for Word {
    type Target = str;

    fn deref(&self) -> &str {
        // only whole characters are written
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

/// The nearest of the last four words before ``start`` (within 48 characters and after the
/// last digit; from the last sentence end or line break) that is a context word, or "".
fn nearest_context_word(t: &Text, start: usize) -> Word {
    let window = t.sl(start.saturating_sub(48), start);
    if window.iter().all(|&c| c.is_ascii() && !c.is_ascii_alphabetic() && !words::symbol(c)) {
        return Word::EMPTY; // no word at all: the common case of a run after digits
    }
    let mut w = window;
    if let Some(last) = w.iter().rposition(|c| c.is_ascii_digit()) {
        w = &w[last + 1..];
    }
    let has_stop = w.iter().any(|&c| c == '\n' || c == ';')
        || w.windows(2).any(|p| matches!(p[0], '.' | '!' | '?') && p[1] == ' ');
    if has_stop {
        let n = w.len();
        let stop = (0..n).rev().find_map(|p| {
            if matches!(w[p], '.' | '!' | '?') && p + 2 < n && w[p + 1] == ' ' && w[p + 2].is_ascii_uppercase() {
                Some(p + 2)
            } else if w[p] == ';' || (w[p] == '\n' && !ends_label(&w[..p])) {
                Some(p + 1)
            } else {
                None
            }
        });
        if let Some(end) = stop {
            w = &w[end..];
        }
    }
    // lower-cased on the stack when ASCII (the window is 48 characters at most)
    let mut buf = ['\0'; 48];
    let owned;
    let lowered: &[char] = if w.len() <= buf.len() && w.iter().all(char::is_ascii) {
        for (b, &c) in buf.iter_mut().zip(w) {
            *b = c.to_ascii_lowercase();
        }
        &buf[..w.len()]
    } else {
        owned = ch::lower(w);
        &owned
    };
    // The words of the lowered window from the last, four at most (re.findall's words,
    // reversed): a run of word letters, or one symbol.
    let mut end = lowered.len();
    let mut seen = 0;
    while end > 0 && seen < 4 {
        let c = lowered[end - 1];
        let word: &[char] = if ch::is_word_letter(c) {
            let begin = lowered[..end].iter().rposition(|&x| !ch::is_word_letter(x)).map_or(0, |p| p + 1);
            let word = &lowered[begin..end];
            end = begin;
            word
        } else if words::symbol(c) {
            end -= 1;
            &lowered[end..end + 1]
        } else {
            end -= 1;
            continue;
        };
        seen += 1;
        // compared on the stack: no context word is longer than a few letters
        let mut found = Word::EMPTY;
        let mut fits = true;
        for &x in word {
            if found.len + x.len_utf8() > found.buf.len() {
                fits = false;
                break;
            }
            found.len += x.encode_utf8(&mut found.buf[found.len..]).len();
        }
        if fits && words::context(&found) {
            return found;
        }
    }
    Word::EMPTY
}

/// Whether a phone word follows ``end``, after blanks or a dash ("33 93 31-Office").
fn phone_word_after(t: &Text, end: usize) -> bool {
    let at = if t.at(end) == Some('-') { end + 1 } else { end };
    words::phone(&word_after(t, at))
}

/// Whether a line ends with a label ("Phone:", "Card number :"): the value on the next line
/// is the label's.
fn ends_label(line: &[char]) -> bool {
    let blank = |c: &char| matches!(c, ' ' | '\t' | '\r');
    let n = line.iter().rposition(|c| !blank(c)).map_or(0, |p| p + 1);
    if n == 0 || line[n - 1] != ':' {
        return false;
    }
    line[..n - 1].iter().rev().find(|c| !blank(c)).is_some_and(|c| c.is_alphabetic())
}

fn word_after(t: &Text, end: usize) -> Word {
    let mut w = t.sl(end, end + 16);
    while let Some((&c, rest)) = w.split_first() {
        if c == ' ' || c == '\u{a0}' {
            w = rest;
        } else {
            break;
        }
    }
    let Some(&first) = w.first() else { return Word::EMPTY };
    let word: &[char] = if ch::is_word_letter(first) {
        let j = w.iter().position(|&c| !ch::is_word_letter(c)).unwrap_or(w.len());
        &w[..j]
    } else if words::symbol(first) {
        &w[..1]
    } else {
        return Word::EMPTY;
    };
    Word::lower(word)
}

#[derive(Clone, Copy, PartialEq, Eq, Default)]
struct Run {
    start: usize,
    end: usize,
}

/// A short list kept on the stack, moved to the heap past ``N`` items.
struct Short<T: Copy + Default, const N: usize> {
    inline: [T; N],
    len: usize,
    heap: Option<Vec<T>>,
}

impl<T: Copy + Default, const N: usize> Short<T, N> {
    fn new() -> Self {
        Short { inline: [T::default(); N], len: 0, heap: None }
    }

    fn push(&mut self, x: T) {
        match &mut self.heap {
            Some(heap) => heap.push(x),
            None if self.len < N => {
                self.inline[self.len] = x;
                self.len += 1;
            }
            None => {
                let mut heap = self.inline.to_vec();
                heap.push(x);
                self.heap = Some(heap);
            }
        }
    }

    fn pop(&mut self) -> Option<T> {
        match &mut self.heap {
            Some(heap) => heap.pop(),
            None if self.len > 0 => {
                self.len -= 1;
                Some(self.inline[self.len])
            }
            None => None,
        }
    }

    fn as_slice(&self) -> &[T] {
        match &self.heap {
            Some(heap) => heap,
            None => &self.inline[..self.len],
        }
    }

    fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// The last item (the list is not empty).
    fn last(&self) -> T {
        self.as_slice()[self.len() - 1]
    }
}

/// Classifies a run of digits and separators found by the number pattern.
pub struct Numbers {
    pub ssn: bool,
    pub card: bool,
    pub phone: bool,
    pub country_code: u32,
}

fn strength(ty: Ty) -> u8 {
    match ty {
        Ty::Card => 0,
        Ty::Ssn => 1,
        _ => 2,
    }
}

impl Numbers {
    /// Entities in text[start:end] (a candidate of the number pattern, code points).
    pub fn classify(&self, t: &Text, mut start: usize, end: usize) -> Vec<Ent> {
        let mut body_end = end;
        let mut ext: &[char] = &[];
        let tail = t.sl(start, end);
        let head_len = tail.iter().rposition(|c| !c.is_ascii_digit()).map_or(0, |p| p + 1);
        let head = &tail[..head_len];
        let head_ws = {
            let n = head.iter().rposition(|&c| !ch::is_space(c)).map_or(0, |p| p + 1);
            &head[..n]
        };
        if head.last().is_some_and(|&c| ch::is_alpha(c)) || matches!(head_ws.last(), Some('#') | Some('.')) {
            let marker_len = head.iter().rposition(|&c| c != ' ' && c != '.').map_or(0, |p| p + 1);
            let marker = &head[..marker_len];
            if marker.last().is_some_and(|&c| ch::is_alpha(c) || c == '#') {
                ext = &tail[head_len..];
                let kept = marker.iter().rposition(|&c| {
                    !(c.is_ascii_alphabetic() || matches!(c, '#' | '.' | ' ' | '\u{a0}'))
                }).map_or(0, |p| p + 1);
                body_end = start + kept;
            }
        }
        if t.at(start) == Some('(') && !t.sl(start, body_end).contains(&')') {
            start += 1;
        }
        let glued = glued_before(t, start) || (start > 0 && is_currency(t.c[start - 1]));
        if glued {
            match ch::find(&t.c, " ", start.min(t.len()), body_end.max(start).min(t.len())) {
                None => return Vec::new(),
                Some(space) => start = space + 1,
            }
        }
        if excluded_by_surroundings(t, start, if ext.is_empty() { body_end } else { end }) {
            return Vec::new();
        }
        let nearest = nearest_context_word(t, start);
        if words::id(&nearest) {
            return Vec::new();
        }
        // Tokens separated by blanks (on the stack: a run has a few).
        let mut tokens: Short<Run, 32> = Short::new();
        let offset = start;
        let body = t.sl(start, body_end);
        let mut piece_start = 0;
        for i in 0..=body.len() {
            if i == body.len() || body[i] == ' ' || body[i] == '\u{a0}' {
                if i > piece_start {
                    tokens.push(Run { start: offset + piece_start, end: offset + i });
                }
                piece_start = i + 1;
            }
        }
        let tokens = tokens.as_slice();
        let sh = shapes();
        // The segments: the tokens between barriers, in order, as one list of tokens and
        // where each segment starts in it (a segment may be empty).
        let mut runs: Short<Run, 32> = Short::new();
        let mut starts: Short<usize, 16> = Short::new();
        starts.push(0);
        let ntok = tokens.len();
        for (i, &token) in tokens.iter().enumerate() {
            let value = t.sl(token.start, token.end);
            let mut barrier = i == ntok - 1 && ext.is_empty() && t.at(token.end) == Some(':')
                && t.at(token.end + 1).is_some_and(ch::is_digit);
            if !barrier && !ch::all_digit(value) {
                let bare = strip_chars(value, "()");
                barrier = full(&sh.date, value) || strip_chars(value, "-/.()").is_empty()
                    || (bare.contains(&'.') && (full(&sh.decimal, bare) || full(&sh.ipv4, bare)));
            }
            if barrier {
                starts.push(runs.len());
                continue;
            }
            let ssn = ssn_shaped(value);
            let current = starts.last();
            let last_nonempty = current < runs.len();
            if ssn && last_nonempty {
                starts.push(runs.len());
            } else if value[0] == '(' && last_nonempty {
                let seg = &runs.as_slice()[current..];
                let first = seg[0];
                let trunk = seg.len() == 1 && (t.c[first.start] == '+' || {
                    let v = t.sl(first.start, first.end);
                    ch::eq(v, "0") || ch::eq(v, "1") || ch::eq(v, "8")
                });
                if !(trunk || ch::starts_with(&t.c[first.start..], "00")) {
                    starts.push(runs.len());
                }
            }
            runs.push(token);
            if ssn {
                starts.push(runs.len());
            }
        }
        let nseg = starts.len();
        {
            let tail_segment = &runs.as_slice()[starts.last()..];
            if ext.is_empty() && !tail_segment.is_empty() && words::unit(&word_after(t, body_end))
                && ch::all_digit(strip_chars(t.sl(tail_segment.last().unwrap().start, tail_segment.last().unwrap().end), "()"))
            {
                let context: &str = if nseg == 1 { &nearest } else { "" };
                let first = tail_segment[0].start;
                let last_token = *tail_segment.last().unwrap();
                let whole = self.value(t, first, last_token.end, context, &[], None);
                let shorter = if tail_segment.len() == 1 {
                    None
                } else {
                    self.value(t, first, tail_segment[tail_segment.len() - 2].end, context, &[], None)
                };
                let span = t.sl(first, last_token.end);
                let pop = match &whole {
                    None => true,
                    Some(w) => w.ty != Ty::Card && (shorter.is_some() || tail_segment.len() == 1
                        || thousands(span) || span.iter().filter(|&&c| ch::is_digit(c)).count() < 9),
                };
                if pop {
                    runs.pop();
                }
            }
        }
        let runs = runs.as_slice();
        let starts = starts.as_slice();
        let mut found = Vec::new();
        let last = tokens.last().copied();
        for (index, &from) in starts.iter().enumerate() {
            let segment = &runs[from..starts.get(index + 1).copied().unwrap_or(runs.len())];
            if segment.is_empty() {
                continue;
            }
            let context: &str = if index == 0 { &nearest } else { "" };
            let has_ext = !ext.is_empty() && Some(*segment.last().unwrap()) == last;
            let entity = if segment.len() > MAX_GROUPS {
                None
            } else {
                self.value(t, segment[0].start, segment.last().unwrap().end, context,
                           if has_ext { ext } else { &[] }, if has_ext { Some(end) } else { None })
            };
            if let Some(e) = &entity {
                if e.ty == Ty::Phone && may_hide_a_card(t, segment) {
                    let windows = self.windows(t, segment, context);
                    if windows.iter().any(|w| w.ty != Ty::Phone) {
                        found.extend(windows);
                        continue;
                    }
                }
            }
            if let Some(e) = entity {
                found.push(e);
            } else if segment.len() > 1 {
                found.extend(self.windows(t, segment, context));
            }
        }
        found
    }

    fn windows(&self, t: &Text, segment: &[Run], context: &str) -> Vec<Ent> {
        let count = segment.len();
        let mut digits = vec![0usize];
        for token in segment {
            let n = stripped_len(t.sl(token.start, token.end));
            digits.push(digits.last().unwrap() + n);
        }
        let mut windows: Vec<Ent> = Vec::new();
        for i in 0..count {
            for j in i + 1..=count.min(i + MAX_GROUPS) {
                let d = digits[j] - digits[i];
                if (7..=19).contains(&d) && (i, j) != (0, count) {
                    if let Some(e) = self.value(t, segment[i].start, segment[j - 1].end,
                                                if i == 0 { context } else { "" }, &[], None) {
                        windows.push(e);
                    }
                }
            }
        }
        windows.sort_by_key(|e| (strength(e.ty), e.start as i64 - e.end as i64, e.start));
        let mut chosen: Vec<Ent> = Vec::new();
        for e in windows {
            if chosen.iter().all(|o| e.end <= o.start || o.end <= e.start) {
                chosen.push(e);
            }
        }
        // sorted(chosen): Entity tuples compare by type name, start, end, key.
        chosen.sort_by(|a, b| {
            (a.ty.name(), a.start, a.end, &a.key).cmp(&(b.ty.name(), b.start, b.end, &b.key))
        });
        chosen
    }

    fn value(&self, t: &Text, mut start: usize, mut end: usize, nearest: &str, ext: &[char],
             ext_end: Option<usize>) -> Option<Ent> {
        while end > start && matches!(t.c[end - 1], ' ' | '\u{a0}' | '(' | '.' | '-' | '/') {
            end -= 1;
        }
        while start < end && matches!(t.c[start], ')' | ' ' | '\u{a0}' | '.' | '-' | '/') {
            start += 1;
        }
        let value = t.sl(start, end);
        // value.translate(_STRIP), on the stack (a candidate is a few dozen characters)
        let mut buf = ['\0'; 96];
        let owned;
        let digits: &[char] = if value.len() <= buf.len() {
            let mut n = 0;
            for &c in value {
                if !matches!(c, ' ' | '\u{a0}' | '.' | '/' | '(' | ')' | '-' | '+') {
                    buf[n] = c;
                    n += 1;
                }
            }
            &buf[..n]
        } else {
            owned = stripped(value);
            &owned
        };
        if digits.is_empty() || !digits.iter().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let count = digits.len();
        // Seven digits or more; six when grouped next to a phone word ("call me at 33 93 31",
        // "33 93 31 office": the numbering plans of Greenland and the Faroe Islands have six).
        if count < 7 && !(count == 6 && self.phone && value.len() > 6
                          && (words::phone(nearest) || phone_word_after(t, end))) {
            return None;
        }
        if !(self.phone || self.card || self.ssn && count == 9) {
            return None;
        }
        // the digits as a string, made only for an entity's key
        let digit_str = || ch::to_string(digits);
        let span_end = ext_end.unwrap_or(end);
        if self.ssn && count == 9 {
            if let Some(key) = ssn_key(value, words::ssn(nearest)) {
                return Some(Ent::new(Ty::Ssn, start, end, Some(key)));
            }
            if words::ssn(nearest) && (ch::all_digit(value) || ssn_shaped(value)) {
                return Some(Ent::new(Ty::Ssn, start, end, Some(digit_str())));
            }
        }
        let phone_context = words::phone(nearest);
        let lstripped = {
            let k = value.iter().position(|&c| c != '(').unwrap_or(value.len());
            &value[k..]
        };
        let international = ch::starts_with(lstripped, "+") || ch::starts_with(lstripped, "00");
        let card = self.card && (12..=19).contains(&count) && ext.is_empty() && !international
            && card_shaped(value, count, words::card(nearest))
            && digits.iter().any(|&c| c != digits[0])
            && {
                let mut bytes = [0u8; 19]; // count <= 19 here
                for (b, &c) in bytes.iter_mut().zip(digits) {
                    *b = c as u8;
                }
                luhn_valid(&bytes[..count])
            };
        if card {
            return Some(Ent::new(Ty::Card, start, end, Some(digit_str())));
        }
        if self.phone && count <= 15 && !words::amount(nearest)
            && phone_shaped(value, digits, international, phone_context)
            && !year_and_time(t, start, value)
        {
            let key = self.phone_key(value, digits, ext);
            return Some(Ent::new(Ty::Phone, start, span_end, Some(key)));
        }
        None
    }

    fn phone_key(&self, value: &[char], digits: &[char], ext: &[char]) -> String {
        let k = value.iter().position(|&c| c != '(').unwrap_or(value.len());
        let value = &value[k..];
        // written into one String: "+", the country code or none, the digits, the extension
        let mut key = String::with_capacity(digits.len() + ext.len() + 8);
        key.push('+');
        if value.first() == Some(&'+') {
            match ch::find(value, "(0)", 0, value.len()) {
                Some(trunk) => {
                    let head = stripped(&value[..trunk]);
                    key.extend(head.iter());
                    key.extend(digits.iter().skip(head.len() + 1));
                }
                None => key.extend(digits.iter()),
            }
        } else if ch::starts_with(digits, "00") {
            key.extend(digits[2..].iter());
        } else if self.country_code == 1 && digits.len() == 11 && digits[0] == '1' {
            key.extend(digits.iter());
        } else {
            use std::fmt::Write;
            let _ = write!(key, "{}", self.country_code);
            let rest = if digits.first() == Some(&'0') { &digits[1..] } else { digits };
            key.extend(rest.iter());
        }
        if !ext.is_empty() {
            key.push('x');
            key.extend(ext.iter());
        }
        key
    }
}

fn strip_chars<'a>(s: &'a [char], set: &str) -> &'a [char] {
    let inside = |c: char| c.is_ascii() && set.as_bytes().contains(&(c as u8));
    let a = s.iter().position(|&c| !inside(c)).unwrap_or(s.len());
    let b = s.iter().rposition(|&c| !inside(c)).map_or(a, |p| p + 1);
    &s[a..b.max(a)]
}

fn excluded_by_surroundings(t: &Text, start: usize, end: usize) -> bool {
    if start > 0 && t.at(start - 1) == Some('#') {
        // "#48213" numbers a ticket or an order, unless a word before the '#' says what it
        // numbers: "card #060446183570", "phone #5552017731"
        let w = nearest_context_word(t, start);
        if !(words::phone(&w) || words::card(&w) || words::ssn(&w)) {
            return true;
        }
    }
    let after = t.sl(end, end + 2);
    let Some(&a0) = after.first() else { return false };
    if ch::is_alpha(a0) && a0 != 'x' && a0 != 'X' {
        return true;
    }
    if a0 == '%' || a0 == '_' || is_currency(a0) {
        return true;
    }
    let a1 = after.get(1).copied();
    if (a0 == '-' || a0 == '/') && a1.is_some_and(ch::is_alnum) {
        // glued to a code (12-34-56-AB), unless to a label: "780-775-0277-Office"
        return !words::phone(&word_after(t, end + 1));
    }
    a0 == ',' && a1.is_some_and(ch::is_digit) && !ch::all_digit(t.sl(end + 1, end + 4))
}

fn glued_before(t: &Text, start: usize) -> bool {
    if start == 0 {
        return false;
    }
    let Some(before) = t.at(start - 1) else { return false };
    if ch::is_alnum(before) || before == '_' {
        return true;
    }
    matches!(before, '-' | '/' | '.') && start >= 2 && ch::is_alnum(t.c[start - 2])
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
fn thousands(value: &[char]) -> bool {
    let (groups, seps) = group_split(value);
    let mut distinct: Vec<&[char]> = Vec::new();
    for s in seps {
        if !distinct.contains(&s) {
            distinct.push(s);
        }
    }
    groups.len() >= 3 && distinct.len() == 1 && (1..=3).contains(&groups[0].len())
        && groups[0][0] != '0' && groups[1..].iter().all(|g| g.len() == 3)
}

fn may_hide_a_card(t: &Text, segment: &[Run]) -> bool {
    if segment.len() < 2 {
        return false;
    }
    let (mut longest, mut fours) = (0, 0);
    for r in segment {
        let n = stripped_len(t.sl(r.start, r.end));
        longest = longest.max(n);
        fours += usize::from(n == 4);
    }
    longest >= 9 || fours >= 3
}

fn card_shaped(value: &[char], count: usize, context: bool) -> bool {
    if (value[0] == '0' && !context) || value.iter().any(|&c| matches!(c, '.' | '/' | '(' | ')' | '+' | '\u{a0}')) {
        return false;
    }
    if value.contains(&' ') && value.contains(&'-') {
        return false;
    }
    // the groups of the value with '-' read as ' ', split as str.split() splits
    let mut groups = Groups::new(value, |c| c == '-' || ch::is_space(c));
    let Some(first) = groups.next() else { return count >= 16 };
    let mut previous = first;
    let mut n = 1;
    let mut long_enough = true; // every group but the last has three characters or more
    for g in groups {
        long_enough &= previous.len() >= 3;
        previous = g;
        n += 1;
    }
    if count >= 16 || n == 1 {
        return true;
    }
    first.len() == 4 && long_enough
}

/// The runs of characters between separators (as str.split() gives them when the
/// separators are whitespace), without allocating.
struct Groups<'a, F: Fn(char) -> bool> {
    s: &'a [char],
    i: usize,
    sep: F,
}

impl<'a, F: Fn(char) -> bool> Groups<'a, F> {
    fn new(s: &'a [char], sep: F) -> Self {
        Groups { s, i: 0, sep }
    }
}

impl<'a, F: Fn(char) -> bool> Iterator for Groups<'a, F> {
    type Item = &'a [char];

    fn next(&mut self) -> Option<&'a [char]> {
        let s = self.s;
        while self.i < s.len() && (self.sep)(s[self.i]) {
            self.i += 1;
        }
        if self.i >= s.len() {
            return None;
        }
        let start = self.i;
        while self.i < s.len() && !(self.sep)(s[self.i]) {
            self.i += 1;
        }
        Some(&s[start..self.i])
    }
}

fn ssn_key(value: &[char], context: bool) -> Option<String> {
    let (area, group, serial) = if let Some(parts) = ssn_parts(value) {
        parts
    } else if context && value.len() == 9 && ch::all_digit(value) {
        let v = ch::to_string(value);
        let mut it = v.chars();
        let area: String = it.by_ref().take(3).collect();
        let group: String = it.by_ref().take(2).collect();
        (area, group, it.collect())
    } else {
        return None;
    };
    if area == "000" || area == "666" || area.starts_with('9') || group == "00" || serial == "0000" {
        return None;
    }
    Some(format!("{area}{group}{serial}"))
}

fn isbn(digits: &[char]) -> bool {
    if digits.len() == 13 && (ch::starts_with(digits, "978") || ch::starts_with(digits, "979")) {
        let total: u32 = digits.iter().enumerate()
            .map(|(i, c)| c.to_digit(10).unwrap_or(0) * if i % 2 == 1 { 3 } else { 1 }).sum();
        return total % 10 == 0;
    }
    false
}

fn phone_shaped(value: &[char], digits: &[char], international: bool, phone_context: bool) -> bool {
    if ch::all_digit(value) {
        return true;
    }
    let sh = shapes();
    let count = |c: char| value.iter().filter(|&&x| x == c).count();
    if (count('-') + count('.') + count('/') >= 2 && full(&sh.date, value))
        || (count('.') == 3 && full(&sh.ipv4, value))
        || (digits.len() == 13 && isbn(digits))
    {
        return false;
    }
    // the groups of the value with separators read as blanks, split as str.split() splits
    let groups = || Groups::new(value, |c| matches!(c, '\u{a0}' | '.' | '/' | '(' | ')' | '+' | '-') || ch::is_space(c));
    let mut n = 0;
    let mut singles = 0;
    let mut first: &[char] = &[];
    let mut second: &[char] = &[];
    let mut short = false; // a group of fewer than two characters
    let mut rest_of_three = true; // every group after the first has three characters
    for g in groups() {
        match n {
            0 => first = g,
            1 => second = g,
            _ => {}
        }
        if n > 0 {
            rest_of_three &= g.len() == 3;
        }
        singles += usize::from(g.len() == 1);
        short |= g.len() < 2;
        n += 1;
    }
    if singles > 2 {
        return false;
    }
    let grouped = n > 1 || !ch::all_digit(value);
    if !grouped && !international {
        return true;
    }
    if international || phone_context {
        return true;
    }
    if value.contains(&'.') && value.iter().all(|&c| ch::is_digit(c) || c == '.') && short {
        return false;
    }
    if n == 2 && value.contains(&'-') && first.len() == second.len() && second.len() > 2
        && first < second
    {
        return false;
    }
    if n >= 3 && first.len() <= 2 && first[0] != '0' && rest_of_three
        && value.iter().all(|c| digits.contains(c) || *c == '.' || *c == ',')
    {
        return false;
    }
    true
}

/// Whether ``value`` is a year and a time of day ("2016 08.50") after a month's name and
/// maybe a day ("Thu 18 Feb 2016 08.50", "Feb 18, 2016 08.50"): a date, not a number.
fn year_and_time(t: &Text, start: usize, value: &[char]) -> bool {
    let n = value.len();
    if !(n == 9 || n == 10) || value[4] != ' ' {
        return false;
    }
    let year: String = value[..4].iter().collect();
    let time: String = value[5..].iter().collect();
    let Some((h, m)) = time.split_once('.') else { return false };
    let ok = |s: &str, max: u32| !s.is_empty() && s.len() <= 2 && s.parse::<u32>().is_ok_and(|v| v <= max);
    if !(year.starts_with("19") || year.starts_with("20")) || !ok(h, 23) || m.len() != 2 || !ok(m, 59) {
        return false;
    }
    let before = ch::lower(t.sl(start.saturating_sub(24), start));
    let words: Vec<String> = ch::to_string(&before)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    const MONTHS: &[&str] = &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
        "sept", "oct", "nov", "dec", "january", "february", "march", "april", "june", "july",
        "august", "september", "october", "november", "december"];
    let month = |w: &String| MONTHS.contains(&w.as_str());
    match words.as_slice() {
        [.., w] if month(w) => true,
        [.., w, d] => month(w) && d.len() <= 2 && d.bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    }
}

//! Runs of digits and separators: phone numbers, payment cards, US social security numbers
//! (docs/redaction.md has the rules). A run of the right shape is redacted unless its
//! context clearly makes it something else (a date, a version, an amount, a quantity with
//! a unit, an identifier); checksums decide between types. Every step reads a bounded window
//! around the run: 48 characters before it, 16 after, and windows of at most seven tokens.
//!
//! This module cuts a run into tokens and segments (`Numbers::classify`) and tries windows
//! of a segment's tokens; `decide` decides one span (`Numbers::value`: SSN, card or phone,
//! and the phone's key), `context` reads the words and characters around a run, `shapes`
//! holds the whole-string shapes (dates, decimals, dotted quads, SSNs) and the separators'
//! rules.

mod context;
mod decide;
mod evidence;
mod metadata;
mod shapes;
mod spaced;
mod strong;

use crate::chars::{self as ch, Text};
use crate::words;
use crate::{Ent, Ty};

use context::{
    excluded_by_surroundings, glued_before, is_currency, nearest_context_word, word_after,
};
use shapes::{full, shapes, ssn_shaped, strip_chars, stripped_len, thousands};
use strong::{hyphen_word_before, may_be_strong, strong, strong_grouping};

const MAX_GROUPS: usize = 7;

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
    pub fn classify(&self, t: &Text, start: usize, end: usize) -> Vec<Ent> {
        self.classify_run(t, start, end, false)
    }

    /// ``whole``: a run glued to a word by a hyphen or an underscore and holding blanks
    /// ("cust_4111 1111 1111 1111") read whole, as after a thing's word.
    fn classify_run(&self, t: &Text, mut start: usize, end: usize, whole: bool) -> Vec<Ent> {
        let mut body_end = end;
        let mut ext: &[char] = &[];
        let tail = t.sl(start, end);
        let head_len = tail.iter().rposition(|c| !c.is_ascii_digit()).map_or(0, |p| p + 1);
        let head = &tail[..head_len];
        let head_ws = {
            let n = head.iter().rposition(|&c| !ch::is_space(c)).map_or(0, |p| p + 1);
            &head[..n]
        };
        if head.last().is_some_and(|&c| ch::is_alpha(c))
            || matches!(head_ws.last(), Some('#') | Some('.'))
        {
            let marker_len = head.iter().rposition(|&c| c != ' ' && c != '.').map_or(0, |p| p + 1);
            let marker = &head[..marker_len];
            if marker.last().is_some_and(|&c| ch::is_alpha(c) || c == '#') {
                ext = &tail[head_len..];
                let kept = marker
                    .iter()
                    .rposition(|&c| {
                        !(c.is_ascii_alphabetic() || matches!(c, '#' | '.' | ' ' | '\u{a0}'))
                    })
                    .map_or(0, |p| p + 1);
                body_end = start + kept;
            }
        }
        if t.at(start) == Some('(') && !t.sl(start, body_end).contains(&')') {
            start += 1;
        }
        let glued = glued_before(t, start) || (start > 0 && is_currency(t.c[start - 1]));
        // glued by a hyphen to a word ("cust-0151-555-0142", "INV-2024-0042"): read as after
        // a thing's word, so only a value that proves itself is one
        let mut hyphened = false;
        if glued {
            match ch::find(&t.c, " ", start.min(t.len()), body_end.max(start).min(t.len())) {
                None if hyphen_word_before(t, start) => hyphened = true,
                None => return Vec::new(),
                Some(_) if whole => hyphened = true,
                Some(space) => {
                    // a value that proves itself whole wins over the part after the blank
                    if hyphen_word_before(t, start) {
                        let found = self.classify_run(t, start, end, true);
                        if !found.is_empty() {
                            return found;
                        }
                    }
                    start = space + 1;
                }
            }
        }
        if excluded_by_surroundings(t, start, if ext.is_empty() { body_end } else { end }) {
            return Vec::new();
        }
        let word = nearest_context_word(t, start);
        // A word that names a thing's identifier ("order", "claim", "ticket") keeps a bare
        // run of digits, never a value its checksum or shape proves (`strong`).
        // glued to a word that names the value itself ("phone_5552017731"), it is that word's
        let named = || words::phone(&word) || words::card(&word) || words::ssn(&word);
        let thing = words::id(&word) || (hyphened && !named());
        if thing {
            // what no strong value can be is the thing's number: a bare run too short for a
            // card, or fewer than nine digits not led by a trunk 0 or a country code
            let body = t.sl(start, body_end);
            let digits = body.iter().filter(|c| c.is_ascii_digit()).count();
            let led = matches!(body.iter().find(|&&c| c != '('), Some('0' | '+'));
            if (digits < 12 && digits == body.len()) || (digits < 9 && !led) {
                return Vec::new();
            }
            if !led && !body.iter().any(|&c| c == ' ' || c == '\u{a0}') && !strong_grouping(body) {
                return Vec::new(); // one token grouped as no card, SSN or phone: "2396-419849"
            }
        }
        let nearest: &str = if thing { "" } else { &word };
        // one digit at a time ("4 1 1 1 ...", "1 2 3 - 4 5 - 6 7 8 9"): decided whole
        if let Some(found) =
            ext.is_empty().then(|| self.spaced_run(t, start, body_end, nearest, thing)).flatten()
        {
            return found;
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
            let mut barrier = i == ntok - 1
                && ext.is_empty()
                && t.at(token.end) == Some(':')
                && t.at(token.end + 1).is_some_and(ch::is_digit);
            if !barrier && !ch::all_digit(value) {
                let bare = strip_chars(value, "()");
                // a date's shape right after a country code is the national number:
                // "+687 20.12.34"
                let after_code = i > 0 && t.at(tokens[i - 1].start) == Some('+');
                barrier = (full(&sh.date, value) && !after_code)
                    || evidence::short_decimal(value)
                    || strip_chars(value, "-/.()").is_empty()
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
                let trunk = seg.len() == 1
                    && (t.c[first.start] == '+' || {
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
            if ext.is_empty()
                && !tail_segment.is_empty()
                && words::unit(&word_after(t, body_end))
                && ch::all_digit(strip_chars(
                    t.sl(tail_segment.last().unwrap().start, tail_segment.last().unwrap().end),
                    "()",
                ))
            {
                let context: &str = if nseg == 1 { nearest } else { "" };
                let first = tail_segment[0].start;
                let last_token = *tail_segment.last().unwrap();
                let whole = self.value(t, first, last_token.end, context, &[], None);
                let shorter = if tail_segment.len() == 1 {
                    None
                } else {
                    self.value(
                        t,
                        first,
                        tail_segment[tail_segment.len() - 2].end,
                        context,
                        &[],
                        None,
                    )
                };
                let span = t.sl(first, last_token.end);
                let pop = match &whole {
                    None => true,
                    Some(w) => {
                        w.ty != Ty::Card
                            && (shorter.is_some()
                                || tail_segment.len() == 1
                                || thousands(span)
                                || span.iter().filter(|&&c| ch::is_digit(c)).count() < 9)
                    }
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
            if segment.is_empty() || (thing && !may_be_strong(t, segment)) {
                continue; // after a thing's word, only a strong value may come of it
            }
            let context: &str = if index == 0 { nearest } else { "" };
            let has_ext = !ext.is_empty() && Some(*segment.last().unwrap()) == last;
            let entity = if segment.len() > MAX_GROUPS {
                None
            } else {
                self.value(
                    t,
                    segment[0].start,
                    segment.last().unwrap().end,
                    context,
                    if has_ext { ext } else { &[] },
                    if has_ext { Some(end) } else { None },
                )
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
            } else if segment.len() > 1
                && !evidence::kept(t.sl(segment[0].start, segment.last().unwrap().end))
            {
                found.extend(self.windows(t, segment, context));
            }
        }
        if thing {
            found.retain(|e| strong(t, e));
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
                    if let Some(e) = self.value(
                        t,
                        segment[i].start,
                        segment[j - 1].end,
                        if i == 0 { context } else { "" },
                        &[],
                        None,
                    ) {
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

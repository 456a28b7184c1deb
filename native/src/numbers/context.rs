//! What surrounds a run: the nearest context word before it, the word after it, and the
//! characters glued to it that make it part of something else.

use crate::chars::{self as ch, Text};
use crate::words;

pub(super) fn is_currency(c: char) -> bool {
    matches!(c, '$' | '€' | '£' | '¥' | '₹' | '₽' | '₩')
}

/// A short lower-cased word on the stack (a context word or a unit), compared to the word
/// lists as a str; a word too long for it is empty, as it is in no list.
pub(super) struct Word {
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
pub(super) fn nearest_context_word(t: &Text, start: usize) -> Word {
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
            if matches!(w[p], '.' | '!' | '?')
                && p + 2 < n
                && w[p + 1] == ' '
                && w[p + 2].is_ascii_uppercase()
            {
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
            let begin =
                lowered[..end].iter().rposition(|&x| !ch::is_word_letter(x)).map_or(0, |p| p + 1);
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
pub(super) fn phone_word_after(t: &Text, end: usize) -> bool {
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

pub(super) fn word_after(t: &Text, end: usize) -> Word {
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

pub(super) fn excluded_by_surroundings(t: &Text, start: usize, end: usize) -> bool {
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

pub(super) fn glued_before(t: &Text, start: usize) -> bool {
    if start == 0 {
        return false;
    }
    let Some(before) = t.at(start - 1) else { return false };
    if ch::is_alnum(before) || before == '_' {
        return true;
    }
    matches!(before, '-' | '/' | '.') && start >= 2 && ch::is_alnum(t.c[start - 2])
}

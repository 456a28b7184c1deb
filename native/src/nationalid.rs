//! National identifiers that hold letters: the Italian codice fiscale, the British National
//! Insurance number, the Spanish DNI and NIE, the Indian PAN and the Mexican CURP (those
//! written with digits only are number runs, decided in `numbers`).
//!
//! The candidate pattern is the group "national_id" of `patterns`; a candidate of the exact
//! shape is redacted whether or not its check character is right (recall first). The check
//! (codice fiscale, DNI, NIE) decides only where the shape alone is weak: an identifier word
//! right before it ("part no.", "order", "model") keeps a candidate whose check fails, and
//! so does a DNI or NIE with a lower-case letter ("58317492j", an imaginary number), and a
//! codice fiscale without any digit ("maximumPerMinute") unless it is in upper case. A
//! candidate whose check holds is redacted whatever precedes it.

use crate::chars::Text;
use crate::validate::{cf_check_ok, dni_check_ok};
use crate::{words, Ent, Ty};

/// Whether an ASCII-scanned text may hold a candidate: a run of exactly 16 word characters
/// starting with six letters (a codice fiscale, whose digits omocodia may turn into
/// letters); a digit followed, directly or after one space or dash, by a letter that ends a
/// word (every other format but the CURP ends so); a digit followed by two upper-case
/// letters (a CURP's sex and state). One pass over the bytes, no allocation.
pub fn may_hold(b: &[u8]) -> bool {
    let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
    let n = b.len();
    let mut run_start = 0;
    let mut i = 0;
    while i < n {
        let x = b[i];
        if !word(x) {
            if i - run_start == 16 && b[run_start..run_start + 6].iter().all(u8::is_ascii_alphabetic) {
                return true;
            }
            run_start = i + 1;
        } else if x.is_ascii_digit() && i + 1 < n {
            let mut j = i + 1;
            if matches!(b[j], b' ' | b'-') && j + 1 < n {
                j += 1;
            }
            if b[j].is_ascii_alphabetic() {
                if j + 1 == n || !word(b[j + 1]) {
                    return true;
                }
                if j == i + 1 && b[j].is_ascii_uppercase() && b[j + 1].is_ascii_uppercase() {
                    return true;
                }
            }
        }
        i += 1;
    }
    n - run_start == 16 && b[run_start..].iter().take(6).all(u8::is_ascii_alphabetic)
}

/// The entity of a candidate (ASCII, the pattern's match at code points `start..end`), or
/// None when its case or an identifier word before it says it is something else.
pub fn decide(t: &Text, start: usize, end: usize, value: &str) -> Option<Ent> {
    let separated = value.bytes().any(|b| matches!(b, b' ' | b'-' | b'.'));
    let compact: Vec<u8> = value.bytes()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(|b| b.to_ascii_uppercase())
        .collect();
    let letters_upper = value.bytes().filter(u8::is_ascii_alphabetic).all(|b| b.is_ascii_uppercase());
    let checked = match compact.len() {
        16 => {
            let ok = cf_check_ok(&compact);
            // Omocodia turns digits into letters from the right, all seven only after seven
            // people shared a code: a word without digits ("maximumPerMinute") is one only
            // written in upper case with its check right.
            if !value.bytes().any(|b| b.is_ascii_digit()) && !(letters_upper && ok) {
                return None;
            }
            Some(ok)
        }
        9 if compact[1].is_ascii_alphabetic() => {
            // National Insurance number: written grouped, its letters are upper case (a
            // grouped lower-case shape is prose: "on 12 34 56 a").
            if separated && !letters_upper {
                return None;
            }
            None
        }
        9 => {
            // The mantissa of a number in scientific notation (1.38435736E+12), or the end
            // of a longer number (2024-12345678A): not a DNI.
            let glued = start >= 2 && matches!(t.c[start - 1], '.' | ',' | '-' | '/')
                && t.c[start - 2].is_ascii_digit();
            if glued || (compact[8] == b'E' && matches!(t.at(end), Some('+' | '-'))) {
                return None;
            }
            let ok = dni_check_ok(&compact);
            // DNI or NIE: a lower-case letter is prose ("12345678 a") or an imaginary
            // number ("58317492j") unless it checks.
            if !letters_upper && !ok {
                return None;
            }
            Some(ok)
        }
        _ => None, // PAN and CURP: upper case by the pattern, no check computed
    };
    if checked != Some(true) && identifier_word_before(t, start) {
        return None;
    }
    let key = String::from_utf8(compact).ok()?;
    Some(Ent::new(Ty::NationalId, start, end, Some(key)))
}

/// Whether one of the two words right before `start` (within 24 characters, on the same
/// line) names an identifier of a thing: "part no. AB123456C", "order 12345678Z".
fn identifier_word_before(t: &Text, start: usize) -> bool {
    let window = t.sl(start.saturating_sub(24), start);
    let line = window.iter().rposition(|&c| c == '\n').map_or(window, |p| &window[p + 1..]);
    let mut seen = 0;
    let mut end = line.len();
    while seen < 2 {
        while end > 0 && !line[end - 1].is_alphabetic() {
            end -= 1;
        }
        if end == 0 {
            return false;
        }
        let mut begin = end;
        while begin > 0 && line[begin - 1].is_alphabetic() {
            begin -= 1;
        }
        if begin == 0 && start > 24 && line.len() == window.len() {
            return false; // the word may go on before the window: not read
        }
        let word: String = line[begin..end].iter().flat_map(|c| c.to_lowercase()).collect();
        if words::thing_id(&word) {
            return true;
        }
        end = begin;
        seen += 1;
    }
    false
}

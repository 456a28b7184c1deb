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

/// Whether a text may hold a candidate (its bytes; the candidates are ASCII): a run of
/// exactly 16 word characters starting with six letters (a codice fiscale, whose digits
/// omocodia may turn into letters); two digits, not a time's seconds ("10:30:45Z"), then,
/// directly or after one space or dash, a letter that ends a word (every other format but
/// the CURP), seven digits (or a dot and three) when that letter is a lower-case one after
/// a separator (only a DNI or NIE whose check holds is one: "12345678 z", "12.345.678-z",
/// never "1920 x 1080"); six digits and a CURP's sex letter (H, M or X) before an
/// upper-case letter. One pass over the runs of word characters, looking into those that
/// hold a digit; no allocation.
pub fn may_hold(b: &[u8]) -> bool {
    let n = b.len();
    let mut i = 0;
    while i < n {
        // a run of word characters: its end, and whether it holds a digit
        let start = i;
        let mut seen = 0;
        while i < n {
            let c = CLASS[b[i] as usize];
            if c & WORD == 0 {
                break;
            }
            seen |= c;
            i += 1;
        }
        if i - start == 16 && b[start..start + 6].iter().all(u8::is_ascii_alphabetic) {
            return true;
        }
        if seen & DIGIT != 0 && run_may_end_one(b, start, i) {
            return true;
        }
        i += 1; // the byte after the run is no word character
    }
    false
}

/// Whether the word run `b[start..end]`, which holds a digit, has a letter after its last
/// two digits as `may_hold` says (the letter after a space or dash starts the next run).
fn run_may_end_one(b: &[u8], start: usize, end: usize) -> bool {
    let n = b.len();
    let digits_before = |i: usize, k: usize| i + 1 >= k && b[i + 1 - k..=i].iter().all(u8::is_ascii_digit);
    for i in start + 1..end {
        // the last digit of two or more, before a letter in the run or a separator after it
        if !(b[i].is_ascii_digit() && b[i - 1].is_ascii_digit())
            || (i + 1 < end && b[i + 1].is_ascii_digit())
        {
            continue;
        }
        let mut j = i + 1;
        let separated = j == end && j + 1 < n && matches!(b[j], b' ' | b'-');
        if separated {
            j += 1;
        }
        if j >= n || CLASS[b[j] as usize] & ALPHA == 0 {
            continue;
        }
        let letter = b[j];
        let ends = j + 1 == n || CLASS[b[j + 1] as usize] & WORD == 0;
        if ends && !(i >= 2 && b[i - 2] == b':')
            && (!separated || letter.is_ascii_uppercase() || digits_before(i, 7)
                || (digits_before(i, 3) && i >= 3 && b[i - 3] == b'.'))
        {
            return true;
        }
        if !separated && matches!(letter, b'H' | b'M' | b'X') && j + 1 < n
            && b[j + 1].is_ascii_uppercase() && digits_before(i, 6)
        {
            return true;
        }
    }
    false
}

const WORD: u8 = 1;
const DIGIT: u8 = 2;
const ALPHA: u8 = 4;

/// ASCII word characters (letters, digits, '_'), digits and letters, by byte.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        if b.is_ascii_digit() {
            t[i] = WORD | DIGIT;
        } else if b.is_ascii_alphabetic() {
            t[i] = WORD | ALPHA;
        } else if b == b'_' {
            t[i] = WORD;
        }
        i += 1;
    }
    t
};

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
            // of a longer number (2024-12345678A): not a DNI. (A comma separates CSV fields.)
            let glued = start >= 2 && matches!(t.c[start - 1], '.' | '-' | '/')
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

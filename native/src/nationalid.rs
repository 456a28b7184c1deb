//! National identifiers that hold letters: the Italian codice fiscale, the British National
//! Insurance number, the Spanish DNI and NIE, the Indian PAN and the Mexican CURP, and the
//! formats of `validate::national` (Finnish, German pension, Singapore, Irish, Chinese,
//! Taiwanese, Portuguese); those written with digits only are number runs, decided in
//! `numbers`.
//!
//! The candidate pattern is the group "national_id" of `patterns`; a candidate of the exact
//! shape is redacted whether or not its check character is right (recall first). The check
//! (codice fiscale, DNI, NIE) decides only where the shape alone is weak: an identifier word
//! right before it ("part no.", "order", "model") keeps a candidate whose check fails, and
//! so does a DNI or NIE with a lower-case letter ("58317492j", an imaginary number). A
//! candidate whose check holds is redacted whatever precedes it. A codice fiscale without
//! any digit ("maximumPerMinute") is no code: every digit turned into a letter would take
//! eight people born on the same day in the same town with the same initials.

use crate::chars::Text;
use crate::validate::{cf_check_ok, dni_check_ok};
use crate::{words, Ent, Ty};

/// Whether a text may hold a candidate (its bytes; the candidates are ASCII). Every
/// candidate holds a digit and ends a run of word characters (the pattern's `\b`), so only
/// the runs that hold a digit are looked at, and only at their ends: a run of exactly 16
/// starting with six letters (a codice fiscale, whose digits omocodia may turn into
/// letters) or of exactly 18 with a CURP's six digits and sex letter (H, M or X); two
/// digits, not a time's seconds ("10:30:45Z"), then a letter that ends the run, or ending
/// the run before a space or dash and a letter that is a word of its own (every other
/// format), seven digits (or a dot and three) when that letter is a lower-case one (only a
/// DNI or NIE whose check holds is one: "12345678 z", "12.345.678-z", never "1920 x").
/// Eight bytes at a time up to a digit; each byte read a bounded number of times.
pub fn may_hold(b: &[u8]) -> bool {
    let n = b.len();
    let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
    let digit = |i: usize| b[i].is_ascii_digit();
    let mut i = 0;
    loop {
        while i + 8 <= n && !has_digit(u64::from_le_bytes(b[i..i + 8].try_into().unwrap())) {
            i += 8;
        }
        while i < n && !b[i].is_ascii_digit() {
            i += 1;
        }
        if i >= n {
            return false;
        }
        // The run of word characters holding the digit; no digit of it lies before i (the
        // bytes before were read up to the end of the run before), so its start is needed
        // only for a codice fiscale or a CURP: up to 16 back.
        let mut start = i;
        while start > 0 && i - start < 16 && word(b[start - 1]) {
            start -= 1;
        }
        let mut end = i + 1;
        while end < n && word(b[end]) {
            end += 1;
        }
        let whole = start == 0 || !word(b[start - 1]);
        let len = end - start;
        if whole && len == 16 && b[start..start + 6].iter().all(u8::is_ascii_alphabetic) {
            return true;
        }
        if whole
            && len == 18
            && matches!(b[start + 10], b'H' | b'M' | b'X')
            && b[start + 11].is_ascii_uppercase()
            && b[start + 4..start + 10].iter().all(u8::is_ascii_digit)
        {
            return true;
        }
        // two digits and a letter ending the run ("12345678Z", "AB123456C")
        if len >= 3
            && b[end - 1].is_ascii_alphabetic()
            && digit(end - 2)
            && digit(end - 3)
            && !(end >= 4 && b[end - 4] == b':')
        {
            return true;
        }
        // two digits ending the run, a space or dash, and a letter alone ("56 C", "678-Z")
        if len >= 2
            && digit(end - 1)
            && digit(end - 2)
            && end + 1 < n
            && matches!(b[end], b' ' | b'-')
            && b[end + 1].is_ascii_alphabetic()
            && (end + 2 == n || !word(b[end + 2]))
            && !(end >= 3 && b[end - 3] == b':')
        {
            let letter = b[end + 1];
            let digits = |k: usize| end >= k && b[end - k..end].iter().all(u8::is_ascii_digit);
            if letter.is_ascii_uppercase()
                || digits(7)
                || (digits(3) && end >= 4 && b[end - 4] == b'.')
            {
                return true;
            }
        }
        // a Portuguese citizen card's tail after its digits ("00000000 0 ZZ4")
        if len == 3
            && b[start].is_ascii_uppercase()
            && b[start + 1].is_ascii_uppercase()
            && digit(start + 2)
            && start >= 2
            && b[start - 1] == b' '
            && digit(start - 2)
        {
            return true;
        }
        // a run of 8 to 12 of six digits or more and one or two letters (an NRIC, a
        // HETU with a century letter, a compact RVNR, a PPS number, a Taiwanese number)
        if whole && (8..=12).contains(&len) {
            let letters = b[start..end].iter().filter(|x| x.is_ascii_alphabetic()).count();
            if (1..=2).contains(&letters) && len - letters >= 6 && !b[start..end].contains(&b'_') {
                return true;
            }
        }
        i = end;
    }
}

/// Whether any of the eight bytes of `v` is an ASCII digit: its bytes xor '0' below 10.
pub(crate) fn has_digit(v: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let t = v ^ (ONES * 0x30);
    (t.wrapping_sub(ONES * 10) & !t & (ONES * 0x80)) != 0
}

/// The entity of a candidate (ASCII, the pattern's match at code points `start..end`), or
/// None when its case or an identifier word before it says it is something else.
pub fn decide(t: &Text, start: usize, end: usize, value: &str) -> Option<Ent> {
    let separated = value.bytes().any(|b| matches!(b, b' ' | b'-' | b'.'));
    let compact: Vec<u8> = value
        .bytes()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(|b| b.to_ascii_uppercase())
        .collect();
    let letters_upper =
        value.bytes().filter(u8::is_ascii_alphabetic).all(|b| b.is_ascii_uppercase());
    let more = crate::validate::classify_national(&compact, value.as_bytes());
    let checked = match compact.len() {
        _ if more.is_some() => more.flatten(),
        16 => {
            // Omocodia turns digits into letters from the right, all seven only after eight
            // people shared a code: a word without digits ("maximumPerMinute") is no code.
            if !value.bytes().any(|b| b.is_ascii_digit()) {
                return None;
            }
            Some(cf_check_ok(&compact))
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
            let glued = start >= 2
                && matches!(t.c[start - 1], '.' | '-' | '/')
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

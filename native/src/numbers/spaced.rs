//! A number written one digit at a time ("4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
//! "1 2 3 - 4 5 - 6 7 8 9"): a card, an SSN or a phone number spelled out to dodge a
//! filter, decided on its digits as a whole; a count ("1 2 3 4 5 6 7") stays.

use super::decide::ssn_key;
use super::Numbers;
use crate::chars::Text;
use crate::validate::luhn_valid;
use crate::words;
use crate::{Ent, Ty};

/// The digits of a run written one digit at a time, and after how many digits each dash
/// stands; on the stack (a run the pattern found holds 20 digits at most).
pub(super) struct Spaced {
    digits: [u8; 24],
    n: usize,
    dashes: [usize; 8],
    nd: usize,
    plus: bool,
}

impl Spaced {
    /// ``body`` read as single digits between blanks (a dash may stand between two), with a
    /// '+' before the first maybe; None when any two digits touch or anything else is there.
    pub(super) fn read(body: &[char]) -> Option<Spaced> {
        // seven digits and six blanks at least, and no second digit right after the first:
        // most runs are told apart here, before anything is set up
        let lead = usize::from(body.first() == Some(&'+'));
        if body.len() < 13 || body.get(lead + 1).is_some_and(char::is_ascii_digit) {
            return None;
        }
        let mut s = Spaced { digits: [0; 24], n: 0, dashes: [0; 8], nd: 0, plus: false };
        let mut body = body;
        if let Some(('+', rest)) = body.split_first().map(|(c, r)| (*c, r)) {
            s.plus = true;
            body = rest;
        }
        let mut previous_digit = false;
        let mut dash_since_digit = false;
        for &c in body {
            if c.is_ascii_digit() {
                if previous_digit || s.n == s.digits.len() {
                    return None;
                }
                s.digits[s.n] = c as u8;
                s.n += 1;
                previous_digit = true;
                dash_since_digit = false;
            } else if c == ' ' || c == '\u{a0}' {
                previous_digit = false;
            } else if c == '-' && s.n > 0 && !dash_since_digit && s.nd < s.dashes.len() {
                s.dashes[s.nd] = s.n;
                s.nd += 1;
                previous_digit = false;
                dash_since_digit = true;
            } else {
                return None;
            }
        }
        (s.n >= 7).then_some(s)
    }

    fn dashes(&self) -> &[usize] {
        &self.dashes[..self.nd]
    }

    /// Whether the digits step by one fixed difference (0 1 2 3 ..., 9 8 7 ...): a count.
    fn counting(&self) -> bool {
        let d = &self.digits[..self.n];
        let step = i16::from(d[1]) - i16::from(d[0]);
        step != 0 && d.windows(2).all(|w| i16::from(w[1]) - i16::from(w[0]) == step)
    }
}

/// Where the run ``body`` ends with seven single digits or more between blanks and dashes
/// (and a '+' before them), walking back from its end; None when it does not.
fn spaced_tail(body: &[char]) -> Option<usize> {
    let (mut i, mut n, mut first) = (body.len(), 0, None);
    while i > 0 {
        let c = body[i - 1];
        if c.is_ascii_digit() {
            if i >= 2 && !matches!(body[i - 2], ' ' | '\u{a0}' | '-' | '+') {
                break; // a digit of a longer number ("30", "10.0")
            }
            n += 1;
            first = Some(i - 1);
        } else if !matches!(c, ' ' | '\u{a0}' | '-') {
            break;
        }
        i -= 1;
    }
    let first = first.filter(|&f| n >= 7 && f > 0)?;
    Some(if body[first - 1] == '+' { first - 1 } else { first })
}

impl Numbers {
    /// The entities of text[start:end] when it is a number written one digit at a time, or
    /// ends with one after something else of the run ("30 4 1 1 1 ...", "2 / 4 1 1 1 ...":
    /// what comes before decided apart, the digits without its context word); None when it
    /// is neither.
    pub(super) fn spaced_run(
        &self,
        t: &Text,
        start: usize,
        end: usize,
        nearest: &str,
        thing: bool,
    ) -> Option<Vec<Ent>> {
        let body = t.sl(start, end);
        if let Some(s) = Spaced::read(body) {
            return Some(self.spaced(t, start, end, &s, nearest, thing).into_iter().collect());
        }
        let tail = spaced_tail(body)?;
        let s = Spaced::read(&body[tail..])?;
        let e = self.spaced(t, start + tail, end, &s, "", thing)?;
        let head = body[..tail].iter().rposition(|c| c.is_ascii_digit()).map_or(0, |p| p + 1);
        let mut found = if body[..head].iter().filter(|c| c.is_ascii_digit()).count() >= 6 {
            self.classify(t, start, start + head)
        } else {
            Vec::new()
        };
        found.push(e);
        Some(found)
    }

    /// The entity of a run written one digit at a time over text[start:end], or None (a
    /// count, or digits no card, SSN or phone number is written as). After a thing's word
    /// (``thing``) a phone number needs a country code or a trunk 0 and the phone metadata's
    /// consent; a card's checksum and an SSN's dashes prove themselves.
    pub(super) fn spaced(
        &self,
        t: &Text,
        start: usize,
        end: usize,
        s: &Spaced,
        nearest: &str,
        thing: bool,
    ) -> Option<Ent> {
        let digits = &s.digits[..s.n];
        let text: String = digits.iter().map(|&b| b as char).collect();
        let dashes = s.dashes();
        if self.ssn && s.n == 9 && !s.plus && (dashes == [3, 5] || words::ssn(nearest)) {
            let written: Vec<char> =
                format!("{}-{}-{}", &text[..3], &text[3..5], &text[5..]).chars().collect();
            if let Some(key) = ssn_key(&written, false) {
                return Some(Ent::new(Ty::Ssn, start, end, Some(key)));
            }
        }
        if s.counting() {
            return None;
        }
        if self.card
            && (12..=19).contains(&s.n)
            && !s.plus
            && dashes.iter().all(|&d| d % 4 == 0)
            && (digits[0] != b'0' || words::card(nearest))
            && digits.iter().any(|&d| d != digits[0])
            && luhn_valid(digits)
        {
            return Some(Ent::new(Ty::Card, start, end, Some(text)));
        }
        let north_american = dashes == [3, 6] && s.n == 10;
        if self.phone
            && s.n <= 15
            && (s.plus || digits[0] == b'0' || words::phone(nearest) || north_american)
        {
            let value: Vec<char> = t.sl(start, end).to_vec();
            let chars: Vec<char> = text.chars().collect();
            let key = self.phone_key(&value, &chars, &[]);
            if thing {
                let trunk = (!s.plus && digits[0] == b'0').then(|| &text[1..]);
                if !((s.plus || trunk.is_some()) && super::metadata::accepted(&key, trunk)) {
                    return None;
                }
            }
            return Some(Ent::new(Ty::Phone, start, end, Some(key)));
        }
        None
    }
}

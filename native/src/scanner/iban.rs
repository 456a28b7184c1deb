//! The IBAN groups' candidates: IBANs as the pattern groups them and loose ones (any
//! separators), each held to its country's length and the mod-97 checksum.

use super::{span, Found};
use crate::chars::Text;
use crate::validate::iban_key;
use crate::{Ent, Ty};

/// Whether an IBAN may start in ``b``: two ASCII letters after a word boundary (the text's
/// start or a byte that is not an ASCII word character), two digits, then a letter, a digit
/// or a space, as the IBAN pattern begins. Every window of six bytes is tested without a
/// branch, 64 windows at a time (a loop the compiler vectorises).
pub(super) fn letters_then_digits(b: &[u8]) -> bool {
    if b.len() < 5 {
        return false;
    }
    let alpha = |x: u8| u8::from((x | 0x20).wrapping_sub(b'a') < 26);
    let digit = |x: u8| u8::from(x.wrapping_sub(b'0') < 10);
    let word = |x: u8| alpha(x) | digit(x) | u8::from(x == b'_');
    let next = |x: u8| alpha(x) | digit(x) | u8::from(x == b' ');
    if alpha(b[0]) & alpha(b[1]) & digit(b[2]) & digit(b[3]) & next(b[4]) != 0 {
        return true;
    }
    let n = b.len() - 5;
    (0..n).step_by(64).any(|s| {
        let e = (s + 64).min(n);
        let mut hit = 0u8;
        let at = |k: usize| &b[s + k..e + k];
        for (((((&x, &l0), &l1), &d0), &d1), &y) in
            at(0).iter().zip(at(1)).zip(at(2)).zip(at(3)).zip(at(4)).zip(at(5))
        {
            hit |= (1 ^ word(x)) & alpha(l0) & alpha(l1) & digit(d0) & digit(d1) & next(y);
        }
        hit != 0
    })
}

pub(super) fn iban(t: &Text, m: &Found) -> Option<Ent> {
    let (start, _) = span(t, m);
    // A grouped candidate may have swallowed a word before or after: try the groups from
    // each start that can begin an IBAN, the longest first (a few groups at most).
    let groups: Vec<&str> = m.text.split(' ').collect();
    let mut offset = start;
    for first in 0..groups.len() {
        let head = groups[first].as_bytes();
        if head.len() >= 4
            && head[..2].iter().all(u8::is_ascii_alphabetic)
            && head[2..4].iter().all(u8::is_ascii_digit)
        {
            for last in (first + 1..=groups.len()).rev() {
                let candidate = groups[first..last].join(" ");
                if candidate.len() < 15 {
                    break;
                }
                if let Some(key) = iban_key(&candidate) {
                    return Some(Ent::new(Ty::Iban, offset, offset + candidate.len(), Some(key)));
                }
            }
        }
        offset += head.len() + 1;
    }
    None
}

/// Whether two letters start a word and are followed by two digits, with a space, a dash or
/// a dot between them or not, and then a separator or an alphanumeric character (where an
/// IBAN may start, in any of the ways people write one).
pub(super) fn letters_sep_digits(b: &[u8]) -> bool {
    let alpha = |x: u8| (x | 0x20).wrapping_sub(b'a') < 26;
    let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
    let sep = |x: u8| matches!(x, b' ' | b'\t' | b'.' | b'-');
    let n = b.len();
    let mut i = 0;
    while i + 4 < n {
        if alpha(b[i]) && alpha(b[i + 1]) && (i == 0 || !word(b[i - 1])) {
            let d = if sep(b[i + 2]) { i + 3 } else { i + 2 };
            if d + 2 < n
                && b[d].is_ascii_digit()
                && b[d + 1].is_ascii_digit()
                && (b[d + 2].is_ascii_alphanumeric() || sep(b[d + 2]))
            {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// The IBANs in a loose candidate: from each place where two letters start a word, the
/// country's registered number of characters, separators (one space, dash or dot at a time)
/// skipped, ending where a word ends; at most one group without a digit (a bank code of
/// letters), and the mod-97 checksum.
pub(super) fn iban_loose(t: &Text, m: &Found) -> Vec<Ent> {
    let (start, end) = span(t, m);
    let c = &t.c[start..end];
    let mut out = Vec::new();
    let mut p = 0;
    while p + 4 <= c.len() {
        if c[p].is_ascii_alphabetic()
            && c[p + 1].is_ascii_alphabetic()
            && (p == 0 || !c[p - 1].is_ascii_alphanumeric())
        {
            if let Some((len, key)) = iban_at(&c[p..]) {
                out.push(Ent::new(Ty::Iban, start + p, start + p + len, Some(key)));
                p += len;
                continue;
            }
        }
        p += 1;
    }
    out
}

fn iban_at(c: &[char]) -> Option<(usize, String)> {
    let sep = |x: char| matches!(x, ' ' | '\t' | '.' | '-');
    let blank = |x: char| matches!(x, ' ' | '\t');
    let (a, b) = (c[0], c[1]);
    if !a.is_ascii() || !b.is_ascii() {
        return None;
    }
    let total = crate::validate::iban_length_of(a as u8, b as u8)?;
    let mut compact = String::with_capacity(total);
    let mut groups_without_digit = 0;
    let mut group_digit = false;
    let mut groups = 0;
    let mut i = 0;
    while i < c.len() && compact.len() < total {
        let x = c[i];
        if x.is_ascii_alphanumeric() {
            compact.push(x.to_ascii_uppercase());
            group_digit |= x.is_ascii_digit();
        } else if sep(x) && i > 0 && !sep(c[i - 1]) {
            groups += 1;
            if groups > 1 && !group_digit {
                groups_without_digit += 1;
            }
            group_digit = false;
        } else if blank(x) && i > 0 && blank(c[i - 1]) {
            // a wider gap between the same two groups ("DE89  3704  0044")
        } else {
            return None;
        }
        i += 1;
    }
    if groups > 0 && !group_digit {
        groups_without_digit += 1;
    }
    let cb = compact.as_bytes();
    if compact.len() < total
        || !cb[2].is_ascii_digit()
        || !cb[3].is_ascii_digit()
        || groups_without_digit > 1
        || c.get(i).is_some_and(|x| x.is_ascii_alphanumeric())
    {
        return None;
    }
    iban_key(&compact).map(|key| (i, key))
}

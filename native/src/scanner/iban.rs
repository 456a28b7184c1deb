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
    let starts = |i: usize| alpha(b[i]) && alpha(b[i + 1]) && (i == 0 || !word(b[i - 1]));
    let n = b.len();
    // Looked for from the digits, which prose holds few of: the first of two digits at `d`
    // with the letters right before it (`d - 2`) or before a separator (`d - 3`).
    let mut d = 0;
    while let Some(at) = next_digit(b, d) {
        d = at;
        if d + 2 < n
            && b[d + 1].is_ascii_digit()
            && (b[d + 2].is_ascii_alphanumeric() || sep(b[d + 2]))
            && ((d >= 2 && starts(d - 2)) || (d >= 3 && sep(b[d - 1]) && starts(d - 3)))
        {
            return true;
        }
        d += 1;
    }
    false
}

/// The first ASCII digit of `b` from `from` on (eight bytes without one skipped at a time).
fn next_digit(b: &[u8], from: usize) -> Option<usize> {
    let n = b.len();
    let mut i = from;
    while i + 8 <= n
        && !crate::nationalid::has_digit(u64::from_le_bytes(b[i..i + 8].try_into().ok()?))
    {
        i += 8;
    }
    (i..n).find(|&k| b[k].is_ascii_digit())
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

#[cfg(test)]
mod tests {
    use super::letters_sep_digits;

    /// The byte-by-byte scan `letters_sep_digits` replaced, kept as its reference.
    fn reference(b: &[u8]) -> bool {
        let alpha = |x: u8| (x | 0x20).wrapping_sub(b'a') < 26;
        let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
        let sep = |x: u8| matches!(x, b' ' | b'\t' | b'.' | b'-');
        let n = b.len();
        (0..n.saturating_sub(4)).any(|i| {
            if !(alpha(b[i]) && alpha(b[i + 1]) && (i == 0 || !word(b[i - 1]))) {
                return false;
            }
            let d = if sep(b[i + 2]) { i + 3 } else { i + 2 };
            d + 2 < n
                && b[d].is_ascii_digit()
                && b[d + 1].is_ascii_digit()
                && (b[d + 2].is_ascii_alphanumeric() || sep(b[d + 2]))
        })
    }

    #[test]
    fn letters_sep_digits_agrees_with_the_byte_scan() {
        // every string of up to 7 bytes over an alphabet holding each class the scan tells
        // apart, and longer ones from a fixed pseudo-random sequence
        let alphabet = b"aZ09 -._\t/";
        for len in 0..=7u32 {
            for mut k in 0..alphabet.len().pow(len) {
                let mut s = Vec::new();
                for _ in 0..len {
                    s.push(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                assert_eq!(letters_sep_digits(&s), reference(&s), "{s:?}");
            }
        }
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let len = (x % 40) as usize;
            let s: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    alphabet[(x % alphabet.len() as u64) as usize]
                })
                .collect();
            assert_eq!(letters_sep_digits(&s), reference(&s), "{s:?}");
        }
    }
}

//! Which entities a word naming a thing's identifier ("order", "claim") cannot keep.

use super::{metadata, Run};
use crate::chars::{self as ch, Text};
use crate::{Ent, Ty};

/// Whether an entity found after a thing's word is one whatever the word: a payment card of
/// a card's length, grouping and first digit (its Luhn checksum holds), an SSN of its
/// written shape (AAA-GG-SSSS), or a phone number the phone metadata accepts, written as
/// phone numbers are (a country code, a trunk 0, or the North American 3-3-4). Other runs are
/// the thing's number: "order 48213", "ticket 5551234567", "Order 2396-419849", a parcel's
/// "9400 2627 4070 3039 8292 62", an order's "683-9179042-6631214".
pub(super) fn strong(t: &Text, e: &Ent) -> bool {
    let value = t.sl(e.start, e.end);
    let body_end = value.iter().position(|c| c.is_ascii_alphabetic() || *c == '#');
    let body = &value[..body_end.unwrap_or(value.len())];
    let n = body.iter().rposition(|c| c.is_ascii_digit()).map_or(0, |p| p + 1);
    let body = &body[..n];
    // the lengths of the groups of digits, on the stack (a value has a few)
    let mut groups = [0usize; 8];
    let mut count = 0;
    let mut len = 0;
    for &c in body.iter().chain(std::iter::once(&' ')) {
        if c.is_ascii_digit() {
            len += 1;
        } else if len > 0 {
            if count == groups.len() {
                return false;
            }
            groups[count] = len;
            count += 1;
            len = 0;
        }
    }
    let groups = &groups[..count];
    let digits: usize = groups.iter().sum();
    let first = body.iter().find(|c| c.is_ascii_digit()).copied().unwrap_or('0');
    match e.ty {
        Ty::Ssn => true,
        Ty::Card => {
            let grouped = match groups {
                [_] => true,
                [4, 6, 4] | [4, 6, 5] => true,
                // fours, the last group maybe shorter (4-4-4-1 of a 13-digit Visa)
                [4, rest @ .., last] => {
                    rest.iter().all(|&g| g == 4) && rest.len() <= 3 && *last <= 4
                }
                _ => false,
            };
            // not a window of a longer run ("9400 2627 4070 3039 8292 62", a parcel's)
            let beside =
                |at: Option<usize>| at.and_then(|i| t.at(i)).is_some_and(|c| c.is_ascii_digit());
            let lone = !beside(e.start.checked_sub(2))
                && !beside(e.start.checked_sub(1))
                && !beside(Some(e.end))
                && !beside(Some(e.end + 1));
            grouped
                && lone
                && (('2'..='6').contains(&first) || (first == '1' && digits == 15))
                && (digits >= 13 || matches!(first, '5' | '6'))
        }
        Ty::Phone => {
            if count < 2 && !body.contains(&'+') {
                return false; // a bare run of digits
            }
            let lead = &body[body.iter().position(|&c| c != '(').unwrap_or(0)..];
            let international = ch::starts_with(lead, "+") || ch::starts_with(lead, "00");
            let national: String = body.iter().filter(|c| c.is_ascii_digit()).collect();
            let trunk = (!international && first == '0').then(|| &national[1..]);
            let north_american = matches!(groups, [3, 3, 4] | [1, 3, 3, 4]);
            (international || trunk.is_some() || north_american)
                && e.key.as_deref().is_some_and(|key| metadata::accepted(key, trunk))
        }
        _ => false,
    }
}

/// Whether one token's groups of digits are a card's, an SSN's or a North American phone
/// number's, the only strong values that lead with neither a trunk 0 nor a country code.
pub(super) fn strong_grouping(token: &[char]) -> bool {
    let mut groups = [0usize; 8];
    let (mut n, mut len) = (0, 0);
    for &c in token.iter().chain(std::iter::once(&' ')) {
        if c.is_ascii_digit() {
            len += 1;
        } else if len > 0 {
            if n == groups.len() {
                return false;
            }
            groups[n] = len;
            n += 1;
            len = 0;
        }
    }
    let total: usize = groups[..n].iter().sum();
    match &groups[..n] {
        [3, 2, 4] | [3, 3, 4] | [1, 3, 3, 4] | [4, 6, 4] | [4, 6, 5] => true,
        [_] => (12..=19).contains(&total),
        [4, rest @ .., _] => rest.iter().all(|&g| g == 4),
        _ => false,
    }
}

/// Whether a word of letters and a hyphen or an underscore come right before ``start``.
pub(super) fn hyphen_word_before(t: &Text, start: usize) -> bool {
    start >= 2 && matches!(t.c[start - 1], '-' | '_') && {
        let word = t.sl(start.saturating_sub(24), start - 1);
        let n = word.iter().rev().take_while(|c| c.is_alphabetic()).count();
        n >= 1 && (n == word.len() || !ch::is_alnum(word[word.len() - n - 1]))
    }
}

/// Whether a segment of a run after a thing's word may hold an entity `strong` keeps: one of
/// its tokens starts with a trunk 0, a '+' or a '(', or it holds a group of four digits (a
/// card's, an SSN's serial, a North American number's last) or one of twelve or more (a
/// card written bare). What holds none of these is the thing's number, whatever its windows.
pub(super) fn may_be_strong(t: &Text, segment: &[Run]) -> bool {
    segment.iter().any(|token| {
        let value = t.sl(token.start, token.end);
        if matches!(value.first(), Some('0' | '+' | '(')) {
            return true;
        }
        let mut len = 0;
        for c in value.iter().chain(std::iter::once(&' ')) {
            if c.is_ascii_digit() {
                len += 1;
            } else {
                if len == 4 || len >= 12 {
                    return true;
                }
                len = 0;
            }
        }
        false
    })
}

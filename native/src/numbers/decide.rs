//! One span of a run decided: an SSN, a payment card or a phone number (its key written as
//! the E.164 number and extension), or nothing, by its digits, its shape and its context word.

use super::context::phone_word_after;
use super::shapes::{full, shapes, ssn_parts, ssn_shaped, stripped};
use super::Numbers;
use crate::chars::{self as ch, Text};
use crate::validate::luhn_valid;
use crate::words;
use crate::{Ent, Ty};

impl Numbers {
    pub(super) fn value(
        &self,
        t: &Text,
        mut start: usize,
        mut end: usize,
        nearest: &str,
        ext: &[char],
        ext_end: Option<usize>,
    ) -> Option<Ent> {
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
        if count < 7
            && !(count == 6
                && self.phone
                && value.len() > 6
                && (words::phone(nearest) || phone_word_after(t, end)))
        {
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
        let card = self.card
            && (12..=19).contains(&count)
            && ext.is_empty()
            && !international
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
        if self.phone
            && count <= 15
            && !words::amount(nearest)
            && phone_shaped(value, digits, international, phone_context)
            && !year_and_time(t, start, value)
            && (phone_context || !super::evidence::kept(value))
        {
            let key = self.phone_key(value, digits, ext);
            return Some(Ent::new(Ty::Phone, start, span_end, Some(key)));
        }
        None
    }

    pub(super) fn phone_key(&self, value: &[char], digits: &[char], ext: &[char]) -> String {
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

fn card_shaped(value: &[char], count: usize, context: bool) -> bool {
    if value.contains(&'.') && value.iter().all(|&c| c == '.' || c.is_ascii_digit()) {
        // dotted only as a card is grouped: 4111.1111.1111.1111
        let mut groups = value.split(|&c| c == '.').map(<[char]>::len);
        let fours = groups.by_ref().take(4).filter(|&n| n == 4).count();
        let rest: Vec<usize> = groups.collect();
        return fours == 4 && rest.len() <= 1 && rest.iter().all(|&n| (1..=4).contains(&n));
    }
    if (value[0] == '0' && !context)
        || value.iter().any(|&c| matches!(c, '.' | '/' | '(' | ')' | '+' | '\u{a0}'))
    {
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
    if n >= 5
        && !context
        && Groups::new(value, |c| c == '-' || ch::is_space(c)).all(|g| g.len() <= 3)
    {
        return false; // five groups or more of three digits or fewer: a list of numbers
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

pub(super) fn ssn_key(value: &[char], context: bool) -> Option<String> {
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
    if area == "000" || area == "666" || area.starts_with('9') || group == "00" || serial == "0000"
    {
        return None;
    }
    Some(format!("{area}{group}{serial}"))
}

fn isbn(digits: &[char]) -> bool {
    if digits.len() == 13 && (ch::starts_with(digits, "978") || ch::starts_with(digits, "979")) {
        let total: u32 = digits
            .iter()
            .enumerate()
            .map(|(i, c)| c.to_digit(10).unwrap_or(0) * if i % 2 == 1 { 3 } else { 1 })
            .sum();
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
    let groups = || {
        Groups::new(value, |c| {
            matches!(c, '\u{a0}' | '.' | '/' | '(' | ')' | '+' | '-') || ch::is_space(c)
        })
    };
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
    if n == 2
        && value.contains(&'-')
        && first.len() == second.len()
        && second.len() > 2
        && first < second
    {
        return false;
    }
    if n >= 3
        && first.len() <= 2
        && first[0] != '0'
        && rest_of_three
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
    let ok = |s: &str, max: u32| {
        !s.is_empty() && s.len() <= 2 && s.parse::<u32>().is_ok_and(|v| v <= max)
    };
    if !(year.starts_with("19") || year.starts_with("20"))
        || !ok(h, 23)
        || m.len() != 2
        || !ok(m, 59)
    {
        return false;
    }
    let before = ch::lower(t.sl(start.saturating_sub(24), start));
    let words: Vec<String> = ch::to_string(&before)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    const MONTHS: &[&str] = &[
        "jan",
        "feb",
        "mar",
        "apr",
        "may",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let month = |w: &String| MONTHS.contains(&w.as_str());
    match words.as_slice() {
        [.., w] if month(w) => true,
        [.., w, d] => month(w) && d.len() <= 2 && d.bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    }
}

//! Numbers that carry evidence in a shape a phone number could have, kept whatever their
//! digits: a list of years ("1997 1999", "(1997) 2001 2004"), a date written with spaces
//! ("15 03 2024", "2024 03 15"), a round number grouped in thousands ("1 000 000 000"), and
//! a decimal with one or two places or a leading "0." among a run's tokens ("17.0 30000"),
//! and lists of numbers: a sequence with a fixed step ("12 15 18 21 24", "10 20 30 40 50"),
//! and six numbers or more of one to three digits ("98 87 92 76 88 95", scores or pages).

/// The groups of digits of ``value`` between blanks, commas and brackets, on the stack (a
/// value has a few); None when it holds anything else or too many groups.
fn groups(value: &[char]) -> Option<([(usize, usize); 24], usize)> {
    let mut out = [(0usize, 0usize); 24];
    let mut n = 0;
    let mut start = None;
    for (i, &c) in value.iter().chain(std::iter::once(&' ')).enumerate() {
        if c.is_ascii_digit() {
            start.get_or_insert(i);
        } else if matches!(c, ' ' | '\u{a0}' | ',' | '(' | ')') {
            if let Some(s) = start.take() {
                if n == out.len() {
                    return None;
                }
                out[n] = (s, i);
                n += 1;
            }
        } else {
            return None;
        }
    }
    Some((out, n))
}

fn number(value: &[char], (a, b): (usize, usize)) -> u32 {
    value[a..b]
        .iter()
        .fold(0u32, |n, c| n.saturating_mul(10).saturating_add(c.to_digit(10).unwrap_or(0)))
}

/// Whether ``value`` (a phone candidate) is one of the kept shapes above.
pub(super) fn kept(value: &[char]) -> bool {
    let Some((groups, n)) = groups(value) else { return false };
    let groups = &groups[..n];
    if n < 2 {
        return false;
    }
    let len = |g: &(usize, usize)| g.1 - g.0;
    let year = |g: &(usize, usize)| len(g) == 4 && (1800..=2099).contains(&number(value, *g));
    if groups.iter().all(year) {
        return true;
    }
    // a list of numbers, none led by a trunk 0: a fixed step over five or more, or six or
    // more of one to three digits (no phone number is written in so many short groups
    // without a country code or a trunk 0)
    let bare = value.iter().all(|&c| c.is_ascii_digit() || matches!(c, ' ' | '\u{a0}' | ','));
    let no_zero =
        value[groups[0].0] != '0' && groups.iter().all(|g| len(g) == 1 || value[g.0] != '0');
    if bare && no_zero && n >= 5 {
        let step = |i: usize| {
            i64::from(number(value, groups[i + 1])) - i64::from(number(value, groups[i]))
        };
        let first = step(0);
        if first != 0 && (1..n - 1).all(|i| step(i) == first) {
            return true;
        }
        if n >= 6 && groups.iter().all(|g| len(g) <= 3) {
            return true;
        }
    }
    if n == 3 && value.iter().all(|&c| c.is_ascii_digit() || c == ' ') {
        let (a, b, c) = (groups[0], groups[1], groups[2]);
        let day = |g| len(&g) <= 2 && (1..=31).contains(&number(value, g));
        let month = |g| len(&g) <= 2 && (1..=12).contains(&number(value, g));
        let day_month = (day(a) && month(b)) || (month(a) && day(b));
        if (day_month && year(&c)) || (year(&a) && month(b) && day(c)) {
            return true;
        }
    }
    // thousands: a first group of one to three digits (not a trunk 0), then groups of three,
    // the last of them 000
    let first = groups[0];
    n >= 3
        && len(&first) <= 3
        && value[first.0] != '0'
        && groups[1..].iter().all(|g| len(g) == 3)
        && value[groups[n - 1].0..groups[n - 1].1].iter().all(|&c| c == '0')
        && !value.contains(&',')
}

/// Whether a token of a run is a decimal number with one or two places ("17.0", "33.42")
/// or a leading "0." ("0.125"): a barrier between the run's numbers, not a dotted group of
/// a phone number ("06.12.34.56.78", "030.901820" have more dots or more digits after one).
pub(super) fn short_decimal(token: &[char]) -> bool {
    let token = token.strip_prefix(&['-']).unwrap_or(token);
    let Some(dot) = token.iter().position(|&c| c == '.') else { return false };
    let (int, frac) = (&token[..dot], &token[dot + 1..]);
    let digits = |s: &[char]| !s.is_empty() && s.iter().all(|c| c.is_ascii_digit());
    digits(int)
        && digits(frac)
        && ((int.len() <= 3 && frac.len() <= 2) || (int.len() == 1 && int[0] == '0'))
}

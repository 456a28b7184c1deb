//! The e-mail groups' candidates: plain addresses and obfuscated ones ("bob [at] example
//! [dot] com").

use super::compiled::Compiled;
use super::{span, Found};
use crate::chars::{self as ch, Text};
use crate::{words, Ent, Ty};

pub(super) fn email(t: &Text, m: &Found, casefold: &mut dyn FnMut(&str) -> String) -> Option<Ent> {
    let (mut start, end) = span(t, m);
    while start < end && matches!(t.c[start], '.' | '\'' | '-' | '+') {
        start += 1;
    }
    if start > 0 && t.c[start - 1] == ':' {
        if let Some(scheme) = ch::rfind(&t.c, "://", start.saturating_sub(300), start) {
            if !t.c[scheme..start].iter().any(|&x| ch::is_space(x)) {
                return None; // the password and host of a URL (scheme://user:pw@host)
            }
        }
    }
    let candidate = t.sl(start, end);
    let at = candidate.iter().rposition(|&x| x == '@')?;
    let (local, domain) = (&candidate[..at], &candidate[at + 1..]);
    if local.is_empty()
        || local[0] == '.'
        || *local.last().unwrap() == '.'
        || ch::contains(local, "..")
    {
        return None;
    }
    if ch::contains(domain, "..") || domain.first() == Some(&'-') {
        return None;
    }
    let mut raw = ch::to_string(candidate);
    let key = if raw.is_ascii() {
        raw.make_ascii_lowercase();
        raw
    } else {
        casefold(&raw)
    };
    Some(Ent::new(Ty::Email, start, end, Some(key)))
}

pub(super) fn obfuscated(c: &Compiled, t: &Text, m: &Found) -> Option<Ent> {
    let (start, _) = span(t, m);
    let value = m.text; // ASCII: the pattern matches nothing else
    let at = c.at().find(value)?;
    if value.contains('@') && !value.contains(" @ ") {
        return None;
    }
    let local = value[..at.start()].trim_start_matches(&['.', '+', '-'][..]);
    if local.is_empty()
        || matches!(
            local.to_ascii_lowercase().as_str(),
            "me" | "us" | "him" | "her" | "them" | "you" | "it"
        )
    {
        return None;
    }
    let mut labels: Vec<(&str, &str, usize)> = c
        .label()
        .captures_iter(&value[at.end()..])
        .map(|caps| {
            (
                caps.get(1).map_or("", |g| g.as_str()),
                caps.get(2).unwrap().as_str(),
                at.end() + caps.get(0).unwrap().end(),
            )
        })
        .collect();
    let plain_at = at.as_str().trim_matches(|x: char| ch::is_space(x)).eq_ignore_ascii_case("at");
    while labels.len() > 1 {
        let tld = labels.last().unwrap().1.to_ascii_lowercase();
        let dotted = labels[1..].iter().any(|(sep, _, _)| sep.to_ascii_lowercase().contains("dot"));
        // A bracketed "at" ("[at]", "(at)") or a spaced "@" is written to hide an address:
        // then any top-level domain of letters counts (".kiwi", ".museum"), not only the
        // common ones a plain "at ... dot" in prose needs, unless a sentence's full stop
        // ("home. Then") is all that comes before it.
        let sep = labels.last().unwrap().0;
        let tight = sep == "." || sep.to_ascii_lowercase().contains("dot");
        if tld.bytes().all(|b| b.is_ascii_alphabetic())
            && (2..=24).contains(&tld.len())
            && (words::tld(&tld) || (tld.len() == 2 && dotted) || (!plain_at && tight))
        {
            if plain_at && !dotted {
                return None; // "look at example.com": prose, not an address
            }
            let domain: Vec<&str> = labels.iter().map(|(_, label, _)| *label).collect();
            let key = format!("{local}@{}", domain.join(".")).to_ascii_lowercase();
            return Some(Ent::new(
                Ty::Email,
                start + at.start() - local.len(),
                start + labels.last().unwrap().2,
                Some(key),
            ));
        }
        labels.pop();
    }
    None
}

/// Whether an ASCII text holds a trigger of the obfuscated group: "[at]", "(at)", "{at}",
/// "<at>" in any case, or "at" or "@" between two of tab, line feed, form feed, carriage
/// return and space.
pub(super) fn at_trigger(b: &[u8]) -> bool {
    let n = b.len();
    if n < 3 {
        return false;
    }
    let ws = |x: u8| u8::from(matches!(x, b'\t' | b'\n' | 0x0c | b'\r' | b' '));
    let is = |x: u8, y: u8| u8::from(x == y);
    // "@" between two spaces, in the three bytes from `j`
    let at = |p: u8, x: u8, q: u8| ws(p) & is(x, b'@') & ws(q);
    // "at" in either case between two spaces or in brackets, in the four bytes from `j`
    let word = |p: u8, x: u8, y: u8, q: u8| {
        is(x | 0x20, b'a')
            & is(y | 0x20, b't')
            & ((ws(p) & ws(q))
                | (is(p, b'[') & is(q, b']'))
                | (is(p, b'(') & is(q, b')'))
                | (is(p, b'{') & is(q, b'}'))
                | (is(p, b'<') & is(q, b'>')))
    };
    if at(b[n - 3], b[n - 2], b[n - 1]) != 0 {
        return true;
    }
    // every window tested without a branch, 64 at a time (a loop the compiler vectorises)
    let m = n - 3;
    (0..m).step_by(64).any(|s| {
        let e = (s + 64).min(m);
        let w = |k: usize| &b[s + k..e + k];
        let mut hit = 0u8;
        for (((&p, &x), &y), &q) in w(0).iter().zip(w(1)).zip(w(2)).zip(w(3)) {
            hit |= at(p, x, y) | word(p, x, y, q);
        }
        hit != 0
    })
}

#[cfg(test)]
mod tests {
    use super::at_trigger;

    /// The scan `at_trigger` replaced, kept as its reference.
    fn reference(b: &[u8]) -> bool {
        let ws = |x: u8| matches!(x, b'\t' | b'\n' | 0x0c | b'\r' | b' ');
        memchr::memchr3_iter(b'a', b'A', b'@', b).any(|i| {
            if i == 0 || i + 1 >= b.len() {
                return false;
            }
            let prev = b[i - 1];
            if b[i] == b'@' {
                return ws(prev) && ws(b[i + 1]);
            }
            if b[i + 1] | 0x20 != b't' || i + 2 >= b.len() {
                return false;
            }
            let next = b[i + 2];
            (ws(prev) && ws(next))
                || matches!((prev, next), (b'[', b']') | (b'(', b')') | (b'{', b'}') | (b'<', b'>'))
        })
    }

    #[test]
    fn at_trigger_agrees_with_the_scan_it_replaced() {
        let alphabet = b" \taAtT@[]<>x";
        for len in 0..=6u32 {
            for mut k in 0..alphabet.len().pow(len) {
                let mut s = Vec::new();
                for _ in 0..len {
                    s.push(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                assert_eq!(at_trigger(&s), reference(&s), "{s:?}");
            }
        }
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..50_000 {
            let len = (x % 150) as usize;
            let s: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // mostly letters, as prose is, so that windows straddle the 64-byte blocks
                    if x % 7 == 0 {
                        alphabet[(x / 7 % alphabet.len() as u64) as usize]
                    } else {
                        b'a' + (x % 26) as u8
                    }
                })
                .collect();
            assert_eq!(at_trigger(&s), reference(&s), "{s:?}");
        }
    }
}

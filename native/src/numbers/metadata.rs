//! Whether the phone metadata accepts a number: its national part has the general shape of
//! its country's national numbers (`phonemeta`, generated from phonenumbers). Asked only of a
//! number that a thing's word precedes ("order", "claim"), so the regexes are built on first
//! use.

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};

use crate::phonemeta::COUNTRIES;

struct Meta {
    by_code: Vec<(u32, Regex)>,
    /// the countries whose national prefix is 0, as one alternation
    trunk_zero: Regex,
}

fn meta() -> &'static Meta {
    static META: OnceLock<Meta> = OnceLock::new();
    META.get_or_init(|| {
        // ASCII classes (the digits asked about are ASCII): small automata, even for the
        // alternation of a hundred countries
        let whole = |p: &str| {
            RegexBuilder::new(&format!("^(?:{p})$"))
                .unicode(false)
                .size_limit(64 << 20)
                .build()
                .expect("metadata pattern")
        };
        let zero: Vec<&str> =
            COUNTRIES.iter().filter(|(_, prefix, _)| *prefix == "0").map(|(_, _, p)| *p).collect();
        Meta {
            by_code: COUNTRIES.iter().map(|&(code, _, p)| (code, whole(p))).collect(),
            trunk_zero: whole(&zero.join("|")),
        }
    })
}

/// Whether ``key`` (a phone key: "+", the country code and the national number, maybe "x"
/// and an extension) is a number the metadata accepts; with ``trunk`` (a national number
/// written with a leading 0), also when any country that dials 0 before its national
/// numbers accepts the digits after it.
pub(super) fn accepted(key: &str, trunk: Option<&str>) -> bool {
    let m = meta();
    let e164 = key.split('x').next().unwrap_or("").trim_start_matches('+');
    let split = (1..=3).filter(|&n| n < e164.len()).any(|n| {
        let (code, national) = e164.split_at(n);
        code.parse::<u32>()
            .ok()
            .is_some_and(|code| m.by_code.iter().any(|(c, re)| *c == code && re.is_match(national)))
    });
    split || trunk.is_some_and(|national| m.trunk_zero.is_match(national))
}

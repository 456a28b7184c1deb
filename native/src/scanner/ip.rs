//! The IP groups' candidates: IPv4 and IPv6 addresses, not versions, sections or parts of
//! longer dotted numbers.

use super::{span, Found};
use crate::chars::{self as ch, Text};
use crate::validate::ip_key;
use crate::{Ent, Ty};

/// The last few results of a pure function of a candidate's text, when `on`.
pub(super) struct Recent<'a> {
    on: bool,
    items: Vec<(&'a str, Option<String>)>,
    next: usize,
}

impl<'a> Recent<'a> {
    const SIZE: usize = 8;

    pub(super) fn new(on: bool) -> Self {
        Recent { on, items: Vec::new(), next: 0 }
    }

    fn get(&mut self, candidate: &'a str, f: impl Fn(&str) -> Option<String>) -> Option<String> {
        if !self.on {
            return f(candidate);
        }
        if let Some((_, v)) = self.items.iter().find(|(k, _)| *k == candidate) {
            return v.clone();
        }
        let v = f(candidate);
        if self.items.len() < Self::SIZE {
            self.items.push((candidate, v.clone()));
        } else {
            self.items[self.next] = (candidate, v.clone());
            self.next = (self.next + 1) % Self::SIZE;
        }
        v
    }
}

pub(super) fn ip<'a>(t: &Text, m: &Found<'a>, keys: &mut Recent<'a>) -> Option<Ent> {
    let (start, end) = span(t, m);
    if t.at(end) == Some('.') && t.at(end + 1).is_some_and(ch::is_digit) {
        return None; // part of a longer dotted number
    }
    // an address and its port ("10.0.0.1:8080") is an address
    let port_digits = t.sl(end + 1, end + 7).iter().take_while(|c| c.is_ascii_digit()).count();
    let port = t.at(end) == Some(':')
        && (1..=5).contains(&port_digits)
        && t.at(end + 1 + port_digits)
            .map_or(true, |c| !c.is_alphanumeric() && c != ':' && c != '.');
    if ((start > 0 && matches!(t.c[start - 1], '.' | ':')) || (t.at(end) == Some(':') && !port))
        && m.text.contains('.')
    {
        return None;
    }
    let lowered = ch::lower(t.sl(start.saturating_sub(12), start));
    let n = lowered.iter().rposition(|&x| x != ' ' && x != ':').map_or(0, |p| p + 1);
    let before = &lowered[..n];
    if ["v", "version", "ver", "release", "build", "firmware"]
        .iter()
        .any(|w| ch::ends_with(before, w))
    {
        return None;
    }
    // a section of a text ("section 4.2.1.3", "§ 12.4.1.2"), not an address
    let word = |w: &str| {
        ch::ends_with(before, w) && {
            let k = before.len() - w.len();
            k == 0 || !before[k - 1].is_alphabetic()
        }
    };
    if m.text.contains('.')
        && !m.text.contains(':')
        && (before.last() == Some(&'\u{a7}')
            || [
                "section",
                "sections",
                "sec",
                "clause",
                "clauses",
                "article",
                "art",
                "chapter",
                "ch",
                "paragraph",
                "para",
                "par",
                "figure",
                "fig",
                "table",
                "annex",
                "appendix",
                "rule",
                "step",
                "item",
                "point",
                "no",
            ]
            .iter()
            .any(|w| word(w)))
    {
        return None;
    }
    let key = keys.get(m.text, ip_key)?;
    Some(Ent::new(Ty::Ip, start, end, Some(key)))
}

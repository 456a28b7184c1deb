//! The number group's candidates: the runs of digits and separators the number pattern
//! matches, found without a search of the whole text, the rest of a run the pattern's bound
//! cut, and the memo of runs decided in a long text (`numbers` decides each run).

use regex_automata::{Anchored, Input};

use crate::chars::{self as ch, Text};
use crate::numbers::Numbers;
use crate::patterns::DenseDfa;
use crate::{Ent, Ty};

/// The first match of the number pattern in ``bytes[at..]``: the one that starts first (a
/// DFA's anchored search at each place a match may start, in order).
pub(super) fn number_run(dfa: &DenseDfa, bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    use regex_automata::dfa::Automaton;
    let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
    let mut p = at;
    while p < bytes.len() {
        // eight bytes at a time up to one that may start a run
        while p + 8 <= bytes.len()
            && !may_start(u64::from_le_bytes(bytes[p..p + 8].try_into().unwrap()))
        {
            p += 8;
        }
        let Some(&x) = bytes.get(p) else { break };
        let digit = x.is_ascii_digit();
        let starts = x == b'+' || x == b'(' || (digit && (p == 0 || !word(bytes[p - 1])));
        // a value glued to a word by an underscore ("cust_4111111111111111"): the run starts
        // after it, as after a hyphen (numbers/ decides it as after a thing's word); searched
        // from there as the start of a text, where the pattern's \b holds
        let glued = !starts && digit && underscore_glued(bytes, p);
        if (starts || glued) && may_run(bytes, p) {
            let input = if glued { Input::new(&bytes[p..]) } else { Input::new(bytes).range(p..) };
            if let Ok(Some(m)) = dfa.try_search_fwd(&input.anchored(Anchored::Yes)) {
                return Some((p, if glued { p + m.offset() } else { m.offset() }));
            }
        }
        p += 1;
    }
    None
}

/// Whether ``bytes[p]`` comes right after a word of letters and an underscore ("id_").
fn underscore_glued(bytes: &[u8], p: usize) -> bool {
    p >= 2 && bytes[p - 1] == b'_' && bytes[p - 2].is_ascii_alphabetic()
}

/// Whether a number run may start at ``p`` (a '+', a '(' or a digit): after "+(" or "(+"
/// its first digit and the six characters after it are digits or separators, every byte of
/// them an ASCII one of those or a byte of U+00A0 (seven bytes or more, so that a try that
/// cannot match costs no search).
fn may_run(bytes: &[u8], p: usize) -> bool {
    let mut d = p;
    match bytes[p] {
        b'+' if bytes.get(p + 1) == Some(&b'(') => d += 2,
        b'(' if bytes.get(p + 1) == Some(&b'+') => d += 2,
        b'+' | b'(' => d += 1,
        _ => {}
    }
    bytes.get(d).is_some_and(u8::is_ascii_digit)
        && bytes.get(d..d + 7).is_some_and(|run| {
            run.iter().all(|&b| {
                b.is_ascii_digit()
                    || matches!(b, b' ' | b'.' | b'/' | b'(' | b')' | b'-' | 0xC2 | 0xA0)
            })
        })
}

/// Whether any of the eight bytes of ``v`` is an ASCII digit, '+' or '(' (the tests of
/// "a byte less than n" and "a zero byte" on words, which never miss one).
fn may_start(v: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    let below = |t: u64, n: u64| t.wrapping_sub(ONES * n) & !t & HIGH != 0;
    below(v ^ (ONES * u64::from(b'0')), 10)
        || below(v ^ (ONES * u64::from(b'+')), 1)
        || below(v ^ (ONES * u64::from(b'(')), 1)
}

/// A number run is decided from the text 48 characters before it to 16 after it (see
/// numbers/mod.rs), so two runs with the same text in that reach and the same spans within it
/// get the same entities, shifted. In a long text each distinct neighbourhood is decided once:
/// a run repeated a million times ("1 1 1 ...", a card number) costs a lookup each, not its
/// windows of tokens. Short texts rarely repeat a run, where the key would only cost.
pub(super) const MEMO_MIN_BYTES: usize = 2048;
const MEMO_MAX_ENTRIES: usize = 4096;
const NUMBER_REACH: (usize, usize) = (48, 16);

#[derive(Default)]
pub(super) struct Memo {
    decided: std::collections::HashMap<(Vec<char>, usize, usize), Vec<Ent>>,
}

impl Memo {
    pub(super) fn classify(
        &mut self,
        numbers: &Numbers,
        t: &Text,
        a: usize,
        b: usize,
        found: &mut Vec<Ent>,
    ) {
        let base = a.saturating_sub(NUMBER_REACH.0);
        let key = (t.sl(base, b + NUMBER_REACH.1).to_vec(), a - base, b - base);
        if let Some(known) = self.decided.get(&key) {
            found.extend(
                known.iter().map(|e| Ent::new(e.ty, e.start + base, e.end + base, e.key.clone())),
            );
            return;
        }
        let decided = numbers.classify(t, a, b);
        if self.decided.len() < MEMO_MAX_ENTRIES {
            let relative = decided
                .iter()
                .map(|e| Ent::new(e.ty, e.start - base, e.end - base, e.key.clone()))
                .collect();
            self.decided.insert(key, relative);
        }
        found.extend(decided);
    }
}

/// Where the run going on at ``from`` ends, taking at most 19 more digits: after its last
/// digit among them (``from`` itself when no digit follows).
pub(super) fn rest_of_run(bytes: &[u8], from: usize) -> usize {
    let (mut end, mut digits) = (from, 0);
    for (i, &x) in bytes.iter().enumerate().skip(from) {
        if x.is_ascii_digit() {
            digits += 1;
            end = i + 1;
            if digits == 19 {
                break;
            }
        } else if !RUN_SEPARATORS.contains(&x) {
            break;
        }
    }
    end
}

/// What separates the groups of one number run (the number pattern's class, but digits).
pub(super) const RUN_SEPARATORS: &[u8] = b" ./()-";

/// In a run the pattern's bound cut into candidates (code points ``a..b``), the groups of two
/// digits or more that no entity covers but that sit right next to one ("555 201 7731 ...
/// 555 201 7734", cut between "555" and "201"): PHONE entities of their own. The rules
/// decided each candidate on its own, so a number across a cut may be split between them;
/// recall first, its stray groups are not left in the text.
pub(super) fn leftover_groups(t: &Text, a: usize, b: usize, found: &[Ent]) -> Vec<Ent> {
    let separator =
        |x: char| x == '\u{a0}' || (x.is_ascii() && RUN_SEPARATORS.contains(&(x as u8)));
    let only_separators = |s: usize, e: usize| t.sl(s, e).iter().all(|&x| separator(x));
    // one sweep over the run's entities and groups, both in text order
    let mut spans: Vec<(usize, usize)> =
        found.iter().filter(|f| f.start < b && a < f.end).map(|f| (f.start, f.end)).collect();
    spans.sort_unstable();
    let c = t.sl(a, b);
    let mut more = Vec::new();
    let mut k = 0; // spans[..k] end at or before the current group
    let mut i = 0;
    while i < c.len() {
        if !c[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let j = i + c[i..].iter().take_while(|x| x.is_ascii_digit()).count();
        let (s, e) = (a + i, a + j);
        while k < spans.len() && spans[k].1 <= s {
            k += 1;
        }
        let covered = k < spans.len() && spans[k].0 < e;
        let after_one = k > 0 && only_separators(spans[k - 1].1, s);
        let before_one = k < spans.len() && spans[k].0 >= e && only_separators(e, spans[k].0);
        if j - i >= 2 && !covered && (after_one || before_one) {
            more.push(Ent::new(Ty::Phone, s, e, Some(ch::to_string(&c[i..j]))));
        }
        i = j;
    }
    more
}

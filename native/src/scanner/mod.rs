//! The groups run over a text and the rules that decide each candidate (tokens, key = value
//! secrets, e-mail addresses plain and obfuscated, IBANs, IP addresses; number runs are in
//! `numbers`, national identifiers with letters in `nationalid`).
//!
//! This module runs the groups (`Engine::detect`); each group's candidates are decided in a
//! module of their own: `tokens` (and passwords on command lines, secrets repeated), `kv`,
//! `email` (plain and obfuscated), `iban` (grouped and loose), `ip` (IPv4 and IPv6) and
//! `runs` (number runs, decided in `numbers`). `compiled` builds the groups' patterns once.

mod compiled;
mod email;
mod iban;
mod ip;
mod kv;
mod runs;
mod tokens;

use regex_automata::{Anchored, Input};

use crate::chars::Text;
use crate::nationalid;
use crate::numbers::Numbers;
use crate::{Ent, Ty};

use compiled::compiled;
use email::{at_trigger, email, obfuscated};
use iban::{iban, iban_loose, letters_sep_digits, letters_then_digits};
use ip::{ip, Recent};
use kv::kv;
use runs::{leftover_groups, number_run, rest_of_run, Memo, MEMO_MIN_BYTES, RUN_SEPARATORS};
use tokens::{command_secrets, may_hold_command, repeated_secrets, tokens};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Tokens,
    Kv,
    Email,
    Obfuscated,
    Iban,
    IbanLoose,
    NationalId,
    Ipv4,
    Ipv6,
    Number,
}

const GROUPS: [Group; 10] = [
    Group::Tokens,
    Group::Kv,
    Group::Email,
    Group::Obfuscated,
    Group::Iban,
    Group::IbanLoose,
    Group::NationalId,
    Group::Ipv4,
    Group::Ipv6,
    Group::Number,
];

impl Group {
    fn types(self) -> &'static [Ty] {
        match self {
            Group::Tokens | Group::Kv => &[Ty::Secret],
            Group::Email | Group::Obfuscated => &[Ty::Email],
            Group::Iban | Group::IbanLoose => &[Ty::Iban],
            Group::NationalId => &[Ty::NationalId],
            Group::Ipv4 | Group::Ipv6 => &[Ty::Ip],
            Group::Number => &[Ty::Ssn, Ty::Card, Ty::Phone],
        }
    }
}

/// A candidate: its UTF-8 span and text.
struct Found<'a> {
    start: usize,
    end: usize,
    text: &'a str,
}

/// The detectors of the enabled types.
pub struct Engine {
    groups: Vec<Group>,
    numbers: Numbers,
}

const TRAILING: &str = ".,:;)]}'\"`!?";

impl Engine {
    pub fn new(types: &[Ty], country_code: u32, email_obfuscations: bool) -> Self {
        compiled();
        let groups = GROUPS
            .iter()
            .copied()
            .filter(|g| g.types().iter().any(|t| types.contains(t)))
            .filter(|&g| email_obfuscations || g != Group::Obfuscated)
            .collect();
        Engine {
            groups,
            numbers: Numbers {
                ssn: types.contains(&Ty::Ssn),
                card: types.contains(&Ty::Card),
                phone: types.contains(&Ty::Phone),
                country_code,
            },
        }
    }

    /// Entities in ``s`` (``casefold`` keys a non-ASCII e-mail address).
    pub fn detect(&self, s: &str, casefold: &mut dyn FnMut(&str) -> String) -> Vec<Ent> {
        // Escaped line breaks and tabs left in text taken from JSON or logs
        // ("Fax:\\n0932-5500640") separate what they separate once unescaped; a space and
        // the character itself keep every offset, in bytes and in characters.
        let unescaped;
        let s = if s.contains('\\') {
            unescaped = s.replace("\\n", " \n").replace("\\r", " \r").replace("\\t", " \t");
            unescaped.as_str()
        } else {
            s
        };
        let c = compiled();
        let bytes = s.as_bytes();
        // the text's digits and colons, counted in one pass
        let (digits, colons) = bytes.iter().fold((0usize, 0usize), |(d, c), &b| {
            (d + usize::from(b.is_ascii_digit()), c + usize::from(b == b':'))
        });
        let ascii = s.is_ascii();
        let mut text: Option<Text> = None;
        let mut found = Vec::with_capacity(8);
        let mut memo = (s.len() > MEMO_MIN_BYTES).then(Memo::default);
        // a long text's IP addresses: the canonical forms of the last few, by candidate
        let mut ip_keys = Recent::new(s.len() > MEMO_MIN_BYTES);
        let mut secret_hint: Option<bool> = None;
        for &group in &self.groups {
            let may_hold = match group {
                Group::Number => digits >= 6, // six only after a phone word (numbers/decide.rs)
                // every country's IBAN has eight digits or more, and starts with two
                // letters and two digits after a word boundary
                Group::Iban => digits >= 8 && letters_then_digits(bytes),
                Group::IbanLoose => digits >= 8 && letters_sep_digits(bytes),
                // a word of 16 characters from six letters on, or a letter ending a word
                // after a digit (see nationalid.rs)
                Group::NationalId => nationalid::may_hold(bytes),
                // three places where a digit, a dot and a digit follow each other
                // (prose has few dots: looked at one by one)
                Group::Ipv4 => {
                    digits >= 4
                        && memchr::memchr_iter(b'.', bytes)
                            .filter(|&i| {
                                i > 0
                                    && i + 1 < bytes.len()
                                    && bytes[i - 1].is_ascii_digit()
                                    && bytes[i + 1].is_ascii_digit()
                            })
                            .nth(2)
                            .is_some()
                }
                Group::Email => bytes.contains(&b'@'),
                Group::Ipv6 => {
                    // eight hextets, or six and an IPv4 address ("2001:db8:0:0:0:0:10.0.0.1")
                    colons >= 7
                        || (colons >= 6 && bytes.contains(&b'.'))
                        || (colons >= 2
                            && memchr::memchr_iter(b':', bytes)
                                .any(|i| bytes.get(i + 1) == Some(&b':')))
                }
                Group::Tokens | Group::Kv if ascii => {
                    *secret_hint.get_or_insert_with(|| c.secret_trigger.is_match(bytes))
                }
                Group::Tokens => c.tokens_trigger().is_match(s),
                Group::Kv => c.kv_trigger().is_match(s),
                Group::Obfuscated if ascii => at_trigger(bytes),
                Group::Obfuscated => c.obfuscated_trigger().is_match(s),
            };
            if !may_hold {
                continue;
            }
            let t = text.get_or_insert_with(|| Text::new(s));
            if group == Group::Number {
                // The pattern bounds a run's length (linear time). A run it cut inside a group
                // of digits keeps the rest of that group ("... 8758 6256", not "... 8758 625"
                // and a lone "6"), and the next run starts after it.
                let first = found.len();
                // runs the bound cut into several candidates, as code point spans
                let mut cut: Vec<(usize, usize)> = Vec::new();
                let mut previous: Option<(usize, usize)> = None;
                let mut at = 0;
                let dfa = c.number_dfa(ascii);
                while let Some((m_start, m_end)) = number_run(dfa, bytes, at) {
                    let m = regex_automata::Match::must(0, m_start..m_end);
                    // The pattern is greedy over the run's characters: a match followed by
                    // more of its run (separators, then a digit) was ended by the bound, unless
                    // it ended with an extension ("x204", "ext. 12", "#5"). It takes the rest
                    // of its run, up to 19 more digits, so that a number the cut went
                    // through is whole in one candidate.
                    let extension =
                        bytes[m.range()].iter().any(|&x| x.is_ascii_alphabetic() || x == b'#');
                    let end = if extension { m.end() } else { rest_of_run(bytes, m.end()) };
                    let (a, b) = (t.ci(m.start()), t.ci(end));
                    match memo.as_mut() {
                        None => found.extend(self.numbers.classify(t, a, b)),
                        Some(memo) => memo.classify(&self.numbers, t, a, b, &mut found),
                    }
                    // A candidate that starts a separator or two after the previous one ends
                    // is the rest of one run the pattern's bound cut.
                    if let Some((p_start, p_end)) = previous {
                        let gap = &bytes[p_end..m.start()];
                        if gap.len() <= 2 && gap.iter().all(|&x| RUN_SEPARATORS.contains(&x)) {
                            match cut.last_mut() {
                                Some(span) if span.1 == t.ci(p_end) => span.1 = b,
                                _ => cut.push((t.ci(p_start), b)),
                            }
                        }
                    }
                    previous = Some((m.start(), end));
                    at = end;
                }
                if self.numbers.phone {
                    for &(a, b) in &cut {
                        let more = leftover_groups(t, a, b, &found[first..]);
                        found.extend(more);
                    }
                }
                continue;
            }
            let pair = c.pairs[GROUPS.iter().position(|&g| g == group).unwrap()]
                .as_ref()
                .expect("every group but numbers has a pattern");
            let dense = if ascii { pair.dense() } else { None };
            let matches: Vec<regex_automata::Match> = match dense {
                Some(dense) => dense.find_iter(bytes).collect(),
                None => pair.get(ascii).find_iter(s).collect(),
            };
            for m in matches {
                let f = Found { start: m.start(), end: m.end(), text: &s[m.range()] };
                match group {
                    Group::Number => unreachable!("runs are found above"),
                    Group::Kv if ascii => {
                        let key_end = m.start()
                            + bytes[m.start()..m.end()]
                                .iter()
                                .position(|&b| {
                                    !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
                                })
                                .unwrap_or(m.end() - m.start());
                        let input = Input::new(s).span(key_end..m.end()).anchored(Anchored::Yes);
                        let mut caps = c.kv_rest().create_captures();
                        c.kv_rest().search_captures(&input, &mut caps);
                        if caps.get_match().map(|g| g.end()) == Some(m.end()) {
                            found.extend(kv(c, t, &caps, (m.start(), key_end)));
                        } else {
                            let mut caps = c.kv_exact().create_captures();
                            c.kv_exact().search_captures(&input.span(m.range()), &mut caps);
                            let key =
                                caps.get_group(c.kvkey()).map_or((0, 0), |g| (g.start, g.end));
                            found.extend(kv(c, t, &caps, key));
                        }
                    }
                    Group::Kv => {
                        let input = Input::new(s).span(m.range()).anchored(Anchored::Yes);
                        let groups = c.kv_groups.get(ascii);
                        let mut caps = groups.create_captures();
                        groups.search_captures(&input, &mut caps);
                        if caps.get_match().map(|g| g.end()) != Some(m.end()) {
                            caps = c.kv_exact().create_captures();
                            c.kv_exact().search_captures(&input, &mut caps);
                        }
                        let key = caps.get_group(c.kvkey()).map_or((0, 0), |g| (g.start, g.end));
                        found.extend(kv(c, t, &caps, key));
                    }
                    Group::Tokens => found.extend(tokens(t, &f)),
                    Group::Email => found.extend(email(t, &f, casefold)),
                    Group::Obfuscated => found.extend(obfuscated(c, t, &f)),
                    Group::Iban => found.extend(iban(t, &f)),
                    Group::IbanLoose => found.extend(iban_loose(t, &f)),
                    Group::NationalId => {
                        let (a, b) = span(t, &f);
                        found.extend(nationalid::decide(t, a, b, f.text));
                    }
                    Group::Ipv4 | Group::Ipv6 => found.extend(ip(t, &f, &mut ip_keys)),
                }
            }
        }
        if self.groups.contains(&Group::Tokens) {
            if may_hold_command(bytes) {
                let t = text.get_or_insert_with(|| Text::new(s));
                found.extend(command_secrets(t, s));
            }
            if found.iter().any(|e| e.ty == Ty::Secret) {
                let t = text.get_or_insert_with(|| Text::new(s));
                let more = repeated_secrets(t, s, &found);
                found.extend(more);
            }
        }
        found
    }
}

fn span(t: &Text, m: &Found) -> (usize, usize) {
    (t.ci(m.start), t.ci(m.end))
}

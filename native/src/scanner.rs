//! The groups run over a text and the rules that decide each candidate (tokens, key = value
//! secrets, e-mail addresses plain and obfuscated, IBANs, IP addresses; number runs are in
//! `numbers`, national identifiers with letters in `nationalid`).

use std::sync::OnceLock;

use regex::Regex;
use regex_automata::meta::Regex as MetaRegex;
use regex_automata::util::syntax;
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input};

use crate::chars::{self as ch, Text};
use crate::nationalid;
use crate::numbers::Numbers;
use crate::patterns::{anchored_dfa, compile, kv_rest, re2_to_rust, sources, DenseDfa};
use crate::validate::{entropy, iban_key, ip_key, jwt_ok};
use crate::{words, Ent, Ty};

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

const GROUPS: [Group; 10] = [Group::Tokens, Group::Kv, Group::Email, Group::Obfuscated,
                             Group::Iban, Group::IbanLoose, Group::NationalId, Group::Ipv4, Group::Ipv6,
                            Group::Number];

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

/// A group's pattern twice: as written (Unicode classes, for any text) and with Unicode off
/// (for ASCII texts, where both match the same; the automaton is a fraction of the size).
struct Pair {
    unicode: MetaRegex,
    ascii: MetaRegex,
    /// For a small pattern, its ASCII form as whole DFAs (forward and reverse): the same
    /// matches, without the lazy DFA's bookkeeping on every call.
    dense: Option<regex_automata::dfa::regex::Regex>,
}

impl Pair {
    fn new(pattern: &str, prefilter: bool) -> Pair {
        let config = || MetaRegex::config()
            .auto_prefilter(prefilter)
            .nfa_size_limit(Some(256 << 20))
            .hybrid_cache_capacity(64 << 20);
        let unicode = MetaRegex::builder().configure(config()).build(pattern)
            .expect("built-in pattern compiles");
        let bytes = ascii_pattern(pattern);
        let ascii = MetaRegex::builder()
            .configure(config().utf8_empty(false))
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .build(&bytes)
            .expect("built-in pattern compiles for ASCII texts");
        Pair { unicode, ascii, dense: None }
    }

    /// With whole DFAs for ASCII texts.
    fn dense(mut self, pattern: &str) -> Pair {
        let dense = regex_automata::dfa::regex::Builder::new()
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .thompson(regex_automata::nfa::thompson::Config::new().utf8(false))
            .build(&ascii_pattern(pattern))
            .expect("built-in pattern compiles as a DFA");
        self.dense = Some(dense);
        self
    }

    fn get(&self, ascii: bool) -> &MetaRegex {
        if ascii { &self.ascii } else { &self.unicode }
    }
}

/// A pattern with its non-ASCII ranges spelled for bytes (for ASCII texts, see `Pair`).
fn ascii_pattern(pattern: &str) -> String {
    pattern.replace(r"\x{80}-\x{10FFFF}", r"\x80-\xFF").replace(r"\x{a0}", r"\xA0")
}

/// The first match of the number pattern in ``bytes[at..]``: the one that starts first (a
/// DFA's anchored search at each place a match may start, in order).
fn number_run(dfa: &DenseDfa, bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    use regex_automata::dfa::Automaton;
    let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
    let mut p = at;
    while p < bytes.len() {
        // eight bytes at a time up to one that may start a run
        while p + 8 <= bytes.len() && !may_start(u64::from_le_bytes(bytes[p..p + 8].try_into().unwrap())) {
            p += 8;
        }
        let Some(&x) = bytes.get(p) else { break };
        if (x == b'+' || x == b'(' || (x.is_ascii_digit() && (p == 0 || !word(bytes[p - 1]))))
            && may_run(bytes, p)
        {
            let input = Input::new(bytes).range(p..).anchored(Anchored::Yes);
            if let Ok(Some(m)) = dfa.try_search_fwd(&input) {
                return Some((p, m.offset()));
            }
        }
        p += 1;
    }
    None
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
        && bytes.get(d..d + 7).is_some_and(|run| run.iter().all(|&b| {
            b.is_ascii_digit() || matches!(b, b' ' | b'.' | b'/' | b'(' | b')' | b'-' | 0xC2 | 0xA0)
        }))
}

/// Whether any of the eight bytes of ``v`` is an ASCII digit, '+' or '(' (the tests of
/// "a byte less than n" and "a zero byte" on words, which never miss one).
fn may_start(v: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    let below = |t: u64, n: u64| t.wrapping_sub(ONES * n) & !t & HIGH != 0;
    below(v ^ (ONES * u64::from(b'0')), 10) || below(v ^ (ONES * u64::from(b'+')), 1)
        || below(v ^ (ONES * u64::from(b'(')), 1)
}

struct Compiled {
    /// Each group's pattern, in the order of `GROUPS` (None for the number group: see
    /// `number_dfa`).
    pairs: Vec<Option<Pair>>,
    /// The kv pattern for its capture groups, run anchored on a match's own span. Its value
    /// is unbounded ({4,} for {4,512}): inside a span that already ends where the bounded
    /// value ended, both give the same groups, and the automaton is a fraction of the size.
    kv_groups: Pair,
    /// For ASCII texts, where a key name is exactly the run of key characters a match
    /// starts with (no shorter key can be followed by a separator, no longer one is a key
    /// name): what follows the key, anchored after it, unbounded value likewise.
    kv_rest: MetaRegex,
    /// The number pattern as whole-DFAs searched anchored, for ASCII texts and for others:
    /// every match starts at a '+', a '(' or a digit after a non-word byte, so the runs are
    /// found by trying those places in order (leftmost first, as a search of the whole text
    /// finds them), each try bounded by the pattern's longest match.
    number_dfa: (DenseDfa, DenseDfa),
    /// The kv pattern as it is, should a span ever give the unbounded one another match.
    kv_exact: MetaRegex,
    /// Literals one of which every token candidate holds (a few, such as "AC" of an account
    /// SID, are shorter than what the pattern needs: a wider trigger only skips less).
    tokens_trigger: aho_corasick::AhoCorasick,
    /// Both secret groups' triggers in one automaton, for ASCII texts, where case-insensitive
    /// means ASCII case (the regexes' Unicode case folding only differs on other characters:
    /// K and ſ): the kv words in either case, the token literals as they are. One scan says
    /// whether either group may hold anything; each group's own pattern then decides. (The
    /// obfuscated group's trigger for ASCII texts is `at_trigger`.)
    secret_trigger: regex_automata::dfa::dense::DFA<Vec<u32>>,
    kv_trigger: Regex,
    obfuscated_trigger: Regex,
    at: Regex,
    label: Regex,
    key_part: Regex,
    // capture group indexes of the kv group
    kvkey: usize,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let sources = sources();
        let kv_source = re2_to_rust(&sources[1].1);
        assert!(kv_source.ends_with("{4,512})"));
        let kv_groups = Pair::new(&format!("{}{{4,}})", &kv_source[..kv_source.len() - 8]), true);
        let index = |name: &str| kv_groups.unicode.group_info()
            .to_index(regex_automata::PatternID::ZERO, name)
            .expect("named group");
        // Number runs are searched by `number_dfa` alone: that group has no pair. The
        // national identifier pattern runs without a prefilter: its first characters are
        // everywhere in the texts it runs on, where a prefilter only interrupts.
        let pairs = sources.iter()
            .map(|(name, p)| {
                let p = re2_to_rust(p);
                match *name {
                    "number" => None,
                    "iban" | "iban_loose" | "national_id" | "ipv4" => Some(Pair::new(&p, *name != "national_id").dense(&p)),
                    _ => Some(Pair::new(&p, true)),
                }
            })
            .collect();
        // Python's \s on the ASCII text these run on.
        let s = r"[\t\n\x0B\x0C\r\x1C-\x1F ]";
        let kv_words = ["key", "secret", "token", "pass", "pwd", "auth", "bearer", "credential",
                        "signature"];
        let token_literals = [
            "-----BEGIN", "://", "eyJ", "sk-", "whsec_", "AKIA", "ASIA", "ABIA", "ACCA",
            "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "APKA", "github_pat_", "glpat-", "xox",
            "xapp-", "AIza", "ya29.", "SG.", "npm_", "pypi-", "hf_", "gsk_", "r8_",
            "dop_v1_", "ATATT", "glsa_", "lin_api_", "AccountKey=", "hooks.slack.com",
            "discord", "rk_live_", "rk_test_", "sk_live_", "sk_test_", "pk_live_",
            "pk_test_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "AC", "SK", "shpat_",
            "shpss_", "shpca_", "shppa_", "sq0atp-", "sq0csp-", "key-", ":AA", "doo_v1_",
            "dor_v1_", "gldt-", "glrt-", "glptt-", "glft-", "glimt-", "glagent-", "glcbt-",
            "glsoat-", "glffct-", "gloas-", "glwt-", "GR1348941", "glc_", "EAAA",
            "FwoGZXIvYXdz", "IQoJb3JpZ2lu", "ABSK", "bedrock-api-key-", "AGE-SECRET-KEY-1",
            "ZXlK", "LS0tLS1CRUdJTi", "Q~", "sig=",
        ];
        let secret_trigger = format!(
            "(?i:{})|{}", kv_words.join("|"),
            token_literals.iter().map(|l| regex::escape(l)).collect::<Vec<_>>().join("|"));
        let number = re2_to_rust(&sources.iter().find(|(n, _)| *n == "number").expect("number group").1);
        Compiled {
            number_dfa: (anchored_dfa(&ascii_pattern(&number), true), anchored_dfa(&number, false)),
            tokens_trigger: aho_corasick::AhoCorasick::new(token_literals)
                .expect("trigger literals"),
            secret_trigger: regex_automata::dfa::dense::Builder::new()
                .syntax(syntax::Config::new().unicode(false).utf8(false))
                .thompson(regex_automata::nfa::thompson::Config::new().utf8(false))
                .build(&secret_trigger)
                .expect("secret trigger compiles"),
            kv_trigger: compile(r"(?i:key|secret|token|pass|pwd|auth|bearer|credential|signature)"),
            obfuscated_trigger: compile(r"(?i:\sat\s|\[at\]|\(at\)|\{at\}|<at>|\s@\s)"),
            at: Regex::new(&format!(
                r"(?i){s}*(?:\[at\]|\(at\)|\{{at\}}|<at>|{s}at{s}|{s}@{s}){s}*")).unwrap(),
            label: Regex::new(&format!(
                r"(?i)({s}*(?:\[dot\]|\(dot\)|\{{dot\}}|<dot>|{s}dot{s}|\.){s}*|)([A-Za-z0-9-]+)"))
                .unwrap(),
            key_part: Regex::new(concat!(
                r"^(?:(?:api|access|secret|private|client|auth|refresh|session|bearer|master|signing",
                r"|encryption|app|db|admin|root|user)?(?:key|secret|token|password|passwd|pwd|pass",
                r"|passphrase|credentials?|auth|authorization|bearer|signature)s?",
                r"|[a-z0-9]{1,12}(?:password|passwd|secret|token|pwd|passphrase)s?)$")).unwrap(),
            kvkey: index("kvkey"),
            kv_exact: MetaRegex::new(&kv_source).expect("kv pattern compiles"),
            pairs,
            kv_rest: MetaRegex::builder()
                .syntax(syntax::Config::new().unicode(false).utf8(false))
                .configure(MetaRegex::config().utf8_empty(false))
                .build(&re2_to_rust(&kv_rest(r#"[^\s"'`<>,;]{4,}"#)))
                .expect("kv pattern compiles"),
            kv_groups,
        }
    })
}

/// The detectors of the enabled types.
pub struct Engine {
    groups: Vec<Group>,
    numbers: Numbers,
}

/// A number run is decided from the text 48 characters before it to 16 after it (see
/// numbers.rs), so two runs with the same text in that reach and the same spans within it
/// get the same entities, shifted. In a long text each distinct neighbourhood is decided once:
/// a run repeated a million times ("1 1 1 ...", a card number) costs a lookup each, not its
/// windows of tokens. Short texts rarely repeat a run, where the key would only cost.
const MEMO_MIN_BYTES: usize = 2048;
const MEMO_MAX_ENTRIES: usize = 4096;
const NUMBER_REACH: (usize, usize) = (48, 16);

#[derive(Default)]
struct Memo {
    decided: std::collections::HashMap<(Vec<char>, usize, usize), Vec<Ent>>,
}

impl Memo {
    fn classify(&mut self, numbers: &Numbers, t: &Text, a: usize, b: usize, found: &mut Vec<Ent>) {
        let base = a.saturating_sub(NUMBER_REACH.0);
        let key = (t.sl(base, b + NUMBER_REACH.1).to_vec(), a - base, b - base);
        if let Some(known) = self.decided.get(&key) {
            found.extend(known.iter().map(|e| Ent::new(e.ty, e.start + base, e.end + base, e.key.clone())));
            return;
        }
        let decided = numbers.classify(t, a, b);
        if self.decided.len() < MEMO_MAX_ENTRIES {
            let relative = decided.iter()
                .map(|e| Ent::new(e.ty, e.start - base, e.end - base, e.key.clone()))
                .collect();
            self.decided.insert(key, relative);
        }
        found.extend(decided);
    }
}

const TRAILING: &str = ".,:;)]}'\"`!?";

impl Engine {
    pub fn new(types: &[Ty], country_code: u32, email_obfuscations: bool) -> Self {
        compiled();
        let groups = GROUPS.iter().copied()
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
        let digits = bytes.iter().filter(|b| b.is_ascii_digit()).count();
        let ascii = s.is_ascii();
        let mut text: Option<Text> = None;
        let mut found = Vec::with_capacity(8);
        let mut memo = (s.len() > MEMO_MIN_BYTES).then(Memo::default);
        // a long text's IP addresses: the canonical forms of the last few, by candidate
        let mut ip_keys = Recent::new(s.len() > MEMO_MIN_BYTES);
        let mut secret_hint: Option<bool> = None;
        for &group in &self.groups {
            let may_hold = match group {
                Group::Number => digits >= 6, // six only after a phone word (numbers.rs)
                // every country's IBAN has eight digits or more, and starts with two
                // letters and two digits after a word boundary
                Group::Iban => digits >= 8 && letters_then_digits(bytes),
                Group::IbanLoose => digits >= 8 && letters_sep_digits(bytes),
                // a word of 16 characters from six letters on, or a letter ending a word
                // after a digit (see nationalid.rs)
                Group::NationalId => nationalid::may_hold(bytes),
                // three places where a digit, a dot and a digit follow each other
                // (prose has few dots: looked at one by one)
                Group::Ipv4 => digits >= 4 && memchr::memchr_iter(b'.', bytes)
                    .filter(|&i| {
                        i > 0 && i + 1 < bytes.len()
                            && bytes[i - 1].is_ascii_digit() && bytes[i + 1].is_ascii_digit()
                    })
                    .nth(2).is_some(),
                Group::Email => bytes.contains(&b'@'),
                Group::Ipv6 => s.contains("::") || bytes.iter().filter(|&&b| b == b':').count() >= 7,
                Group::Tokens | Group::Kv if ascii => *secret_hint.get_or_insert_with(|| {
                    use regex_automata::dfa::Automaton;
                    let input = Input::new(bytes).earliest(true);
                    matches!(c.secret_trigger.try_search_fwd(&input), Ok(Some(_)))
                }),
                Group::Tokens => c.tokens_trigger.is_match(s),
                Group::Kv => c.kv_trigger.is_match(s),
                Group::Obfuscated if ascii => at_trigger(bytes),
                Group::Obfuscated => c.obfuscated_trigger.is_match(s),
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
                let dfa = if ascii { &c.number_dfa.0 } else { &c.number_dfa.1 };
                while let Some((m_start, m_end)) = number_run(dfa, bytes, at) {
                    let m = regex_automata::Match::must(0, m_start..m_end);
                    // The pattern is greedy over the run's characters: a match followed by
                    // more of its run (separators, then a digit) was ended by the bound, unless
                    // it ended with an extension ("x204", "ext. 12", "#5"). It takes the rest
                    // of its run, up to 19 more digits, so that a number the cut went
                    // through is whole in one candidate.
                    let extension = bytes[m.range()].iter().any(|&x| x.is_ascii_alphabetic() || x == b'#');
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
            let pair = c.pairs[GROUPS.iter().position(|&g| g == group).unwrap()].as_ref()
                .expect("every group but numbers has a pattern");
            let regex = pair.get(ascii);
            let matches: Vec<regex_automata::Match> = match &pair.dense {
                Some(dense) if ascii => dense.find_iter(bytes).collect(),
                _ => regex.find_iter(s).collect(),
            };
            for m in matches {
                let f = Found { start: m.start(), end: m.end(), text: &s[m.range()] };
                match group {
                    Group::Number => unreachable!("runs are found above"),
                    Group::Kv if ascii => {
                        let key_end = m.start() + bytes[m.start()..m.end()].iter()
                            .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')))
                            .unwrap_or(m.end() - m.start());
                        let input = Input::new(s).span(key_end..m.end()).anchored(Anchored::Yes);
                        let mut caps = c.kv_rest.create_captures();
                        c.kv_rest.search_captures(&input, &mut caps);
                        if caps.get_match().map(|g| g.end()) == Some(m.end()) {
                            found.extend(kv(c, t, &caps, (m.start(), key_end)));
                        } else {
                            let mut caps = c.kv_exact.create_captures();
                            c.kv_exact.search_captures(&input.span(m.range()), &mut caps);
                            let key = caps.get_group(c.kvkey).map_or((0, 0), |g| (g.start, g.end));
                            found.extend(kv(c, t, &caps, key));
                        }
                    }
                    Group::Kv => {
                        let input = Input::new(s).span(m.range()).anchored(Anchored::Yes);
                        let groups = c.kv_groups.get(ascii);
                        let mut caps = groups.create_captures();
                        groups.search_captures(&input, &mut caps);
                        if caps.get_match().map(|g| g.end()) != Some(m.end()) {
                            caps = c.kv_exact.create_captures();
                            c.kv_exact.search_captures(&input, &mut caps);
                        }
                        let key = caps.get_group(c.kvkey).map_or((0, 0), |g| (g.start, g.end));
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

fn group_span(t: &Text, caps: &Captures, name: &str) -> Option<(usize, usize)> {
    caps.get_group_by_name(name).map(|g| (t.ci(g.start), t.ci(g.end)))
}

/// Which alternative of the tokens group matched is plain from the match, without the cost
/// of capture groups on a pattern this large: only a URL's credentials end with '@' after
/// "://" (no other alternative holds '@'), and only a JWT starts with "eyJ" (a PEM block
/// starts with dashes, no provider format with "eyJ").
fn tokens(t: &Text, m: &Found) -> Option<Ent> {
    let value = m.text;
    let (start, end) = span(t, m);
    if value.ends_with('@') && !value.starts_with('-') {
        if let Some(scheme) = value.find("://") {
            // scheme://host:password@ : the host holds no ':'
            let colon = scheme + 3 + value[scheme + 3..].find(':')?;
            let pw_start = start + value[..colon + 1].chars().count();
            return Some(Ent::new(Ty::Secret, pw_start, end - 1, None));
        }
    }
    if value.starts_with("eyJ") && !jwt_ok(value) && !crate::validate::b64url_object(value) {
        return None;
    }
    if value.starts_with("sig=") {
        return Some(Ent::new(Ty::Secret, start + 4, end, None)); // a signature's value
    }
    Some(Ent::new(Ty::Secret, start, end, None))
}

/// Whether ``part`` holds for one of the key's parts: re.findall(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])",
/// key), lower case (each ASCII, lower-cased on the stack; the first that holds ends the
/// search).
fn any_key_part(key: &[char], part: impl Fn(&str) -> bool) -> bool {
    let lower_or_digit = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let upper_or_digit = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit();
    let holds = |p: &[char]| {
        // the part's characters are ASCII letters and digits
        let mut b = [0u8; 64];
        if p.len() > b.len() {
            return part(&ch::to_string(p).to_ascii_lowercase());
        }
        for (x, &c) in b.iter_mut().zip(p) {
            *x = (c as u8).to_ascii_lowercase();
        }
        part(std::str::from_utf8(&b[..p.len()]).unwrap_or(""))
    };
    let mut i = 0;
    let n = key.len();
    while i < n {
        let c0 = key[i];
        let run = |from: usize, f: &dyn Fn(char) -> bool| (from..n).find(|&j| !f(key[j])).unwrap_or(n);
        if c0.is_ascii_uppercase() && i + 1 < n && lower_or_digit(key[i + 1]) {
            let j = run(i + 1, &lower_or_digit);
            if holds(&key[i..j]) {
                return true;
            }
            i = j;
        } else if lower_or_digit(c0) {
            let j = run(i, &lower_or_digit);
            if holds(&key[i..j]) {
                return true;
            }
            i = j;
        } else if upper_or_digit(c0) {
            let mut j = run(i, &upper_or_digit);
            if j < n && key[j].is_ascii_lowercase() {
                j -= 1;
            }
            if j > i {
                if holds(&key[i..j]) {
                    return true;
                }
                i = j;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    false
}

fn kv(c: &Compiled, t: &Text, caps: &Captures, key: (usize, usize)) -> Option<Ent> {
    let (start, end) = group_span(t, caps, "kvval")?;
    let full = t.sl(start, end);
    // a value closed by a quote or an element's end is whole ("s3cr3t!")
    let closed = t.at(end).is_some_and(|x| matches!(x, '"' | '\'' | '`' | '<'))
        || (t.at(end).is_some_and(ch::is_space)
            && t.sl(end, end + 64).iter().find(|&&x| !ch::is_space(x)) == Some(&'<')
            && t.sl(t.ci(key.1).min(start), start).contains(&'>'));
    let n = if closed { full.len() } else { full.iter().rposition(|&x| !TRAILING.contains(x)).map_or(0, |p| p + 1) };
    let value = &full[..n];
    let mut distinct: Vec<char> = Vec::new();
    for &x in value {
        if !distinct.contains(&x) {
            distinct.push(x);
            if distinct.len() >= 3 {
                break;
            }
        }
    }
    // no word of the list is longer than nine characters, and lower-casing never shortens
    let not_secret = value.len() <= 9 && words::not_secret(&ch::to_string(&ch::lower(value)));
    if value.len() < 4 || distinct.len() < 3 || not_secret {
        return None;
    }
    let starts = |p: &str| ch::starts_with(value, p);
    if starts("${") || starts("{{") || starts("%(") || starts("$(") || starts("<") {
        return None; // a reference to a secret held elsewhere
    }
    if starts("$") {
        let rest = &value[1..];
        let no_underscore: Vec<char> = rest.iter().copied().filter(|&x| x != '_').collect();
        if ch::all_alnum(&no_underscore) && ch::str_isupper(rest) {
            return None; // $DB_PASSWORD
        }
    }
    let (ks, ke) = (t.ci(key.0), t.ci(key.1));
    let key = t.sl(ks, ke);
    if !any_key_part(key, |p| c.key_part.is_match(p)) {
        return None; // "monkey", "keyboard", "passport": no key word of their own
    }
    let loose = caps.get_group_by_name("kvloose");
    // an XML element (<password>value</password>, over lines or not)
    let element = loose.is_none() && t.sl(ke, start).contains(&'>');
    if element && (ks == 0 || t.c[ks - 1] != '<' || placeholder_name(key)) {
        return None;
    }
    let quoted = element || caps.get_group_by_name("kvcomma").is_some()
        || caps.get_group_by_name("kvquote").is_some_and(|g| g.end > g.start);
    let password = password_key(key) && ch::all_alpha(value) && !words::prose_value(&ch::to_string(&ch::lower(value)));
    let plain = match loose {
        // "my password is crickets": a password word, then "is" or "was"
        Some(g) => password && {
            let between = ch::to_string(t.sl(t.ci(g.start), t.ci(g.end)));
            matches!(between.trim().trim_matches(&['"', '\'', '`'][..]).trim().to_ascii_lowercase().as_str(),
                     "is" | "was" | "is now" | "is still" | "was changed to" | "is set to")
        },
        // "password: crickets": a password word and a value of letters
        None => password || keyed(key, full, quoted),
    };
    if !plain && !high_entropy(value) {
        return None;
    }
    Some(Ent::new(Ty::Secret, start, start + value.len(), None))
}

/// Whether a key is the name of a placeholder the redactor wrote ("SECRET_1",
/// "EMAIL_0123456789abcdef"): "<SECRET_1> text" is no XML element.
fn placeholder_name(key: &[char]) -> bool {
    let Some(u) = key.iter().rposition(|&x| x == '_') else { return false };
    let tail = &key[u + 1..];
    key[0].is_ascii_uppercase()
        && (ch::all_digit(tail) && !tail.is_empty()
            || (tail.len() == 16 && tail.iter().all(|x| x.is_ascii_hexdigit())))
}

/// Whether a key is a password word itself (any case): "password", "passwd", "pwd",
/// "pass", "passphrase", "passcode".
fn password_key(key: &[char]) -> bool {
    let lower = ch::to_string(&ch::lower(key));
    matches!(lower.as_str(), "password" | "passwd" | "pwd" | "pass" | "passphrase" | "passcode" | "passwort"
        | "mot_de_passe" | "contrasena" | "senha")
}

/// Whether a key = value assignment says plainly that the value is a secret.
fn keyed(key: &[char], value: &[char], quoted: bool) -> bool {
    let camel = !ch::str_isupper(key) && key.iter().skip(1).any(|&x| ch::is_upper(x));
    let compound = camel || key.iter().any(|&x| matches!(x, '_' | '.' | '-'));
    if quoted || compound {
        return true;
    }
    let lower = ch::lower(key);
    if ["pass", "pwd", "passphrase", "credential"].iter().any(|w| ch::starts_with(&lower, w)) {
        return !ch::all_alpha(value) || value.len() >= 12;
    }
    !ch::all_alpha(value)
}

fn high_entropy(value: &[char]) -> bool {
    value.len() >= 16
        && value.iter().any(|&x| ch::is_alpha(x))
        && value.iter().any(|&x| ch::is_digit(x))
        && entropy(value) >= 3.0
}

fn email(t: &Text, m: &Found, casefold: &mut dyn FnMut(&str) -> String) -> Option<Ent> {
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
    if local.is_empty() || local[0] == '.' || *local.last().unwrap() == '.' || ch::contains(local, "..") {
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

fn obfuscated(c: &Compiled, t: &Text, m: &Found) -> Option<Ent> {
    let (start, _) = span(t, m);
    let value = m.text; // ASCII: the pattern matches nothing else
    let at = c.at.find(value)?;
    if value.contains('@') && !value.contains(" @ ") {
        return None;
    }
    let local = value[..at.start()].trim_start_matches(&['.', '+', '-'][..]);
    if local.is_empty() || matches!(local.to_ascii_lowercase().as_str(), "me" | "us" | "him" | "her" | "them" | "you" | "it") {
        return None;
    }
    let mut labels: Vec<(&str, &str, usize)> = c.label.captures_iter(&value[at.end()..])
        .map(|caps| (caps.get(1).map_or("", |g| g.as_str()), caps.get(2).unwrap().as_str(),
                     at.end() + caps.get(0).unwrap().end()))
        .collect();
    let plain_at = at.as_str().trim_matches(|x: char| ch::is_space(x)).eq_ignore_ascii_case("at");
    while labels.len() > 1 {
        let tld = labels.last().unwrap().1.to_ascii_lowercase();
        let dotted = labels[1..].iter().any(|(sep, _, _)| sep.to_ascii_lowercase().contains("dot"));
        if tld.bytes().all(|b| b.is_ascii_alphabetic()) && !tld.is_empty()
            && (words::tld(&tld) || (tld.len() == 2 && (dotted || !plain_at)))
        {
            if plain_at && !dotted {
                return None; // "look at example.com": prose, not an address
            }
            let domain: Vec<&str> = labels.iter().map(|(_, label, _)| *label).collect();
            let key = format!("{local}@{}", domain.join(".")).to_ascii_lowercase();
            return Some(Ent::new(Ty::Email, start + at.start() - local.len(),
                                 start + labels.last().unwrap().2, Some(key)));
        }
        labels.pop();
    }
    None
}

/// Whether an ASCII text holds a trigger of the obfuscated group: "[at]", "(at)", "{at}",
/// Where the run going on at ``from`` ends, taking at most 19 more digits: after its last
/// digit among them (``from`` itself when no digit follows).
fn rest_of_run(bytes: &[u8], from: usize) -> usize {
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
const RUN_SEPARATORS: &[u8] = b" ./()-";

/// In a run the pattern's bound cut into candidates (code points ``a..b``), the groups of two
/// digits or more that no entity covers but that sit right next to one ("555 201 7731 ...
/// 555 201 7734", cut between "555" and "201"): PHONE entities of their own. The rules
/// decided each candidate on its own, so a number across a cut may be split between them;
/// recall first, its stray groups are not left in the text.
fn leftover_groups(t: &Text, a: usize, b: usize, found: &[Ent]) -> Vec<Ent> {
    let separator = |x: char| x == '\u{a0}' || (x.is_ascii() && RUN_SEPARATORS.contains(&(x as u8)));
    let only_separators = |s: usize, e: usize| t.sl(s, e).iter().all(|&x| separator(x));
    // one sweep over the run's entities and groups, both in text order
    let mut spans: Vec<(usize, usize)> = found.iter()
        .filter(|f| f.start < b && a < f.end)
        .map(|f| (f.start, f.end))
        .collect();
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

/// Whether an IBAN may start in ``b``: two ASCII letters after a word boundary (the text's
/// start or a byte that is not an ASCII word character), two digits, then a letter, a digit
/// or a space, as the IBAN pattern begins. Every window of six bytes is tested without a
/// branch, 64 windows at a time (a loop the compiler vectorises).
fn letters_then_digits(b: &[u8]) -> bool {
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
        for (((((&x, &l0), &l1), &d0), &d1), &y) in at(0).iter().zip(at(1)).zip(at(2)).zip(at(3)).zip(at(4)).zip(at(5)) {
            hit |= (1 ^ word(x)) & alpha(l0) & alpha(l1) & digit(d0) & digit(d1) & next(y);
        }
        hit != 0
    })
}

/// "<at>" in any case, or "at" or "@" between two of tab, line feed, form feed, carriage
/// return and space.
fn at_trigger(b: &[u8]) -> bool {
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

/// The last few results of a pure function of a candidate's text, when `on`.
struct Recent<'a> {
    on: bool,
    items: Vec<(&'a str, Option<String>)>,
    next: usize,
}

impl<'a> Recent<'a> {
    const SIZE: usize = 8;

    fn new(on: bool) -> Self {
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

fn ip<'a>(t: &Text, m: &Found<'a>, keys: &mut Recent<'a>) -> Option<Ent> {
    let (start, end) = span(t, m);
    if t.at(end) == Some('.') && t.at(end + 1).is_some_and(ch::is_digit) {
        return None; // part of a longer dotted number
    }
    // an address and its port ("10.0.0.1:8080") is an address
    let port_digits = t.sl(end + 1, end + 7).iter().take_while(|c| c.is_ascii_digit()).count();
    let port = t.at(end) == Some(':') && (1..=5).contains(&port_digits)
        && t.at(end + 1 + port_digits).map_or(true, |c| !c.is_alphanumeric() && c != ':' && c != '.');
    if ((start > 0 && matches!(t.c[start - 1], '.' | ':')) || (t.at(end) == Some(':') && !port)) && m.text.contains('.') {
        return None;
    }
    let lowered = ch::lower(t.sl(start.saturating_sub(12), start));
    let n = lowered.iter().rposition(|&x| x != ' ' && x != ':').map_or(0, |p| p + 1);
    let before = &lowered[..n];
    if ["v", "version", "ver", "release", "build", "firmware"].iter().any(|w| ch::ends_with(before, w)) {
        return None;
    }
    // a section of a text ("section 4.2.1.3", "§ 12.4.1.2"), not an address
    let word = |w: &str| ch::ends_with(before, w) && {
        let k = before.len() - w.len();
        k == 0 || !before[k - 1].is_alphabetic()
    };
    if m.text.contains('.') && !m.text.contains(':')
        && (before.last() == Some(&'\u{a7}')
            || ["section", "sections", "sec", "clause", "clauses", "article", "art", "chapter",
                "ch", "paragraph", "para", "par", "figure", "fig", "table", "annex", "appendix",
                "rule", "step", "item", "point", "no"]
                .iter().any(|w| word(w)))
    {
        return None;
    }
    let key = keys.get(m.text, ip_key)?;
    Some(Ent::new(Ty::Ip, start, end, Some(key)))
}

fn iban(t: &Text, m: &Found) -> Option<Ent> {
    let (start, _) = span(t, m);
    // A grouped candidate may have swallowed a word before or after: try the groups from
    // each start that can begin an IBAN, the longest first (a few groups at most).
    let groups: Vec<&str> = m.text.split(' ').collect();
    let mut offset = start;
    for first in 0..groups.len() {
        let head = groups[first].as_bytes();
        if head.len() >= 4 && head[..2].iter().all(u8::is_ascii_alphabetic) && head[2..4].iter().all(u8::is_ascii_digit) {
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
fn letters_sep_digits(b: &[u8]) -> bool {
    let alpha = |x: u8| (x | 0x20).wrapping_sub(b'a') < 26;
    let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
    let sep = |x: u8| matches!(x, b' ' | b'.' | b'-');
    let n = b.len();
    let mut i = 0;
    while i + 4 < n {
        if alpha(b[i]) && alpha(b[i + 1]) && (i == 0 || !word(b[i - 1])) {
            let d = if sep(b[i + 2]) { i + 3 } else { i + 2 };
            if d + 2 < n && b[d].is_ascii_digit() && b[d + 1].is_ascii_digit()
                && (b[d + 2].is_ascii_alphanumeric() || sep(b[d + 2])) {
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
fn iban_loose(t: &Text, m: &Found) -> Vec<Ent> {
    let (start, end) = span(t, m);
    let c = &t.c[start..end];
    let mut out = Vec::new();
    let mut p = 0;
    while p + 4 <= c.len() {
        if c[p].is_ascii_alphabetic() && c[p + 1].is_ascii_alphabetic()
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
    let sep = |x: char| matches!(x, ' ' | '.' | '-');
    let country: String = c[..2].iter().map(char::to_ascii_uppercase).collect();
    let total = crate::validate::iban_length(&country)?;
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
        } else {
            return None;
        }
        i += 1;
    }
    if groups > 0 && !group_digit {
        groups_without_digit += 1;
    }
    let cb = compact.as_bytes();
    if compact.len() < total || !cb[2].is_ascii_digit() || !cb[3].is_ascii_digit()
        || groups_without_digit > 1 || c.get(i).is_some_and(|x| x.is_ascii_alphanumeric())
    {
        return None;
    }
    iban_key(&compact).map(|key| (i, key))
}

/// Whether a text may hold a password on a command line or in a .netrc file.
fn may_hold_command(b: &[u8]) -> bool {
    memchr::memmem::find(b, b" -u").is_some() || memchr::memmem::find(b, b" -p").is_some()
        || memchr::memmem::find(b, b"--pass").is_some() || memchr::memmem::find(b, b"--user").is_some()
        || memchr::memmem::find(b, b"login").is_some()
}

fn command_pattern() -> &'static MetaRegex {
    static PATTERN: OnceLock<MetaRegex> = OnceLock::new();
    PATTERN.get_or_init(|| MetaRegex::new(&re2_to_rust(concat!(
        r#"(?:^|\s)(?:-u|--user(?:name)?)[ =]["']?[^\s"':]{1,64}:(?P<up>[^\s"']{1,128})"#,
        r#"|(?:^|\s)(?P<flag>-p|--password|--pass|--passwd)(?:[ =]["']?)?(?P<pw>[^\s"'-][^\s"']{2,127})"#,
        r"|\blogin[ \t\r\n]+[^\s]{1,128}[ \t\r\n]+password[ \t\r\n]+(?P<netrc>[^\s]{1,256})",
    ))).expect("command pattern compiles"))
}

/// Passwords on command lines (`curl -u user:pass`, `docker login -p pass`, `mysql -ppass`,
/// `--password pass`) and in .netrc entries (`login bob password pass`). A short `-p` is a
/// password only on a line that logs in (login, mysql, psql, sshpass, redis-cli, mongo, a
/// `-u` user): elsewhere it is as often a port (`docker run -p 8080:80`).
fn command_secrets(t: &Text, s: &str) -> Vec<Ent> {
    let re = command_pattern();
    let mut caps = re.create_captures();
    let mut out = Vec::new();
    let mut at = 0;
    while at < s.len() {
        re.search_captures(&Input::new(s).range(at..), &mut caps);
        let Some(m) = caps.get_match() else { break };
        at = m.end().max(m.start() + 1);
        while at < s.len() && !s.is_char_boundary(at) {
            at += 1;
        }
        let group = ["up", "pw", "netrc"].iter()
            .find_map(|&name| caps.get_group_by_name(name).map(|g| (name, g)));
        let Some((name, g)) = group else { continue };
        let value = s[g.range()].trim_end_matches(|x: char| TRAILING.contains(x));
        if value.len() < 3 || value.starts_with('$') || value.starts_with('<')
            || words::not_secret(&value.to_ascii_lowercase())
        {
            continue;
        }
        if name == "pw" && caps.get_group_by_name("flag").is_some_and(|f| &s[f.range()] == "-p") {
            let line_start = s[..m.start()].rfind('\n').map_or(0, |p| p + 1);
            let line_end = s[m.end()..].find('\n').map_or(s.len(), |p| m.end() + p);
            let line = s[line_start..line_end].to_ascii_lowercase();
            let logs_in = ["login", "mysql", "mariadb", "sshpass", "psql", "redis-cli", "mongo", " -u ", "--user"]
                .iter().any(|w| line.contains(w));
            let port = value.bytes().all(|b| b.is_ascii_digit() || b == b':' || b == b'/' || b == b'.');
            if !logs_in || port {
                continue;
            }
        }
        out.push(Ent::new(Ty::Secret, t.ci(g.start), t.ci(g.start + value.len()), None));
    }
    out
}

/// Every other place where a secret already found appears again in the text (six
/// characters or more): a password quoted back in a reply is the same password.
fn repeated_secrets(t: &Text, s: &str, found: &[Ent]) -> Vec<Ent> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let known: std::collections::HashSet<(usize, usize)> = found.iter()
        .filter(|e| e.ty == Ty::Secret).map(|e| (e.start, e.end)).collect();
    for e in found.iter().filter(|e| e.ty == Ty::Secret) {
        let value = ch::to_string(t.sl(e.start, e.end));
        if value.chars().count() < 6 || seen.contains(&value) || seen.len() >= 64 {
            continue;
        }
        for at in memchr::memmem::find_iter(s.as_bytes(), value.as_bytes()) {
            let (a, b) = (t.ci(at), t.ci(at + value.len()));
            if !known.contains(&(a, b)) {
                out.push(Ent::new(Ty::Secret, a, b, None));
            }
        }
        seen.push(value);
    }
    out
}

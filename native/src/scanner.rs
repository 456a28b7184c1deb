//! The groups run over a text and the rules that decide each candidate (tokens, key = value
//! secrets, e-mail addresses plain and obfuscated, IBANs, IP addresses; number runs are in
//! `numbers`).

use std::sync::OnceLock;

use regex::{Captures, Match, Regex};

use crate::chars::{self as ch, Text};
use crate::numbers::Numbers;
use crate::patterns::{compile, sources};
use crate::validate::{entropy, iban_key, ip_key, jwt_ok};
use crate::{words, Ent, Ty};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Tokens,
    Kv,
    Email,
    Obfuscated,
    Iban,
    Ipv4,
    Ipv6,
    Number,
}

const GROUPS: [Group; 8] = [Group::Tokens, Group::Kv, Group::Email, Group::Obfuscated,
                            Group::Iban, Group::Ipv4, Group::Ipv6, Group::Number];

impl Group {
    fn types(self) -> &'static [Ty] {
        match self {
            Group::Tokens | Group::Kv => &[Ty::Secret],
            Group::Email | Group::Obfuscated => &[Ty::Email],
            Group::Iban => &[Ty::Iban],
            Group::Ipv4 | Group::Ipv6 => &[Ty::Ip],
            Group::Number => &[Ty::Ssn, Ty::Card, Ty::Phone],
        }
    }
}

struct Compiled {
    groups: Vec<Regex>,
    tokens_trigger: Regex,
    kv_trigger: Regex,
    obfuscated_trigger: Regex,
    at: Regex,
    label: Regex,
    key_part: Regex,
    // capture group indexes
    urlauth: usize,
    urlpw: usize,
    jwt: usize,
    kvkey: usize,
    kvquote: usize,
    kvloose: usize,
    kvval: usize,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let groups: Vec<Regex> = sources().iter().map(|(_, p)| compile(p)).collect();
        let index = |g: usize, name: &str| {
            groups[g].capture_names().position(|n| n == Some(name)).expect("named group")
        };
        // Python's \s on the ASCII text these run on.
        let s = r"[\t\n\x0B\x0C\r\x1C-\x1F ]";
        Compiled {
            tokens_trigger: compile(concat!(
                r"-----BEGIN|://|eyJ|sk-|whsec_|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA",
                r"|APKA|github_pat_|glpat-|xox|xapp-|AIza|ya29\.|SG\.|npm_|pypi-|hf_|gsk_|r8_",
                r"|dop_v1_|ATATT|glsa_|lin_api_|AccountKey=|hooks\.slack\.com|discord",
                r"|[rsp]k_(?:live|test)_|gh[pousr]_|(?:AC|SK)[a-f0-9]{32}|shp(?:at|ss|ca|pa)_",
                r"|sq0(?:atp|csp)-|key-[a-f0-9]{32}|\d:AA")),
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
            urlauth: index(0, "urlauth"),
            urlpw: index(0, "urlpw"),
            jwt: index(0, "jwt"),
            kvkey: index(1, "kvkey"),
            kvquote: index(1, "kvquote"),
            kvloose: index(1, "kvloose"),
            kvval: index(1, "kvval"),
            groups,
        }
    })
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
        let c = compiled();
        let bytes = s.as_bytes();
        let digits = bytes.iter().filter(|b| b.is_ascii_digit()).count();
        let mut text: Option<Text> = None;
        let mut found = Vec::new();
        for &group in &self.groups {
            let may_hold = match group {
                Group::Number => digits >= 7,
                Group::Iban => digits >= 8, // every country's IBAN has eight digits or more
                Group::Ipv4 => digits >= 4 && bytes.iter().filter(|&&b| b == b'.').count() >= 3,
                Group::Email => bytes.contains(&b'@'),
                Group::Ipv6 => s.contains("::") || bytes.iter().filter(|&&b| b == b':').count() >= 7,
                Group::Tokens => c.tokens_trigger.is_match(s),
                Group::Kv => c.kv_trigger.is_match(s),
                Group::Obfuscated => c.obfuscated_trigger.is_match(s),
            };
            if !may_hold {
                continue;
            }
            let regex = &c.groups[GROUPS.iter().position(|&g| g == group).unwrap()];
            let t = text.get_or_insert_with(|| Text::new(s));
            match group {
                Group::Tokens | Group::Kv => {
                    for caps in regex.captures_iter(s) {
                        let e = if group == Group::Tokens { tokens(c, t, &caps) } else { kv(c, t, &caps) };
                        found.extend(e);
                    }
                }
                _ => {
                    for m in regex.find_iter(s) {
                        match group {
                            Group::Email => found.extend(email(t, &m, casefold)),
                            Group::Obfuscated => found.extend(obfuscated(c, t, &m)),
                            Group::Iban => found.extend(iban(t, &m)),
                            Group::Ipv4 | Group::Ipv6 => found.extend(ip(t, &m)),
                            _ => found.extend(self.numbers.classify(t, t.ci(m.start()), t.ci(m.end()))),
                        }
                    }
                }
            }
        }
        found
    }
}

fn span(t: &Text, m: &Match) -> (usize, usize) {
    (t.ci(m.start()), t.ci(m.end()))
}

fn tokens(c: &Compiled, t: &Text, caps: &Captures) -> Option<Ent> {
    if caps.get(c.urlauth).is_some() {
        let (a, b) = span(t, &caps.get(c.urlpw).unwrap());
        return Some(Ent::new(Ty::Secret, a, b, None));
    }
    let m = caps.get(0).unwrap();
    if caps.get(c.jwt).is_some() && !jwt_ok(m.as_str()) {
        return None;
    }
    let (a, b) = span(t, &m);
    Some(Ent::new(Ty::Secret, a, b, None))
}

fn key_parts(key: &[char]) -> Vec<String> {
    // re.findall(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])", key), lower case
    let lower_or_digit = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let upper_or_digit = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit();
    let mut parts = Vec::new();
    let mut i = 0;
    let n = key.len();
    while i < n {
        let c0 = key[i];
        let run = |from: usize, f: &dyn Fn(char) -> bool| (from..n).find(|&j| !f(key[j])).unwrap_or(n);
        if c0.is_ascii_uppercase() && i + 1 < n && lower_or_digit(key[i + 1]) {
            let j = run(i + 1, &lower_or_digit);
            parts.push(ch::to_string(&key[i..j]).to_ascii_lowercase());
            i = j;
        } else if lower_or_digit(c0) {
            let j = run(i, &lower_or_digit);
            parts.push(ch::to_string(&key[i..j]).to_ascii_lowercase());
            i = j;
        } else if upper_or_digit(c0) {
            let mut j = run(i, &upper_or_digit);
            if j < n && key[j].is_ascii_lowercase() {
                j -= 1;
            }
            if j > i {
                parts.push(ch::to_string(&key[i..j]).to_ascii_lowercase());
                i = j;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    parts
}

fn kv(c: &Compiled, t: &Text, caps: &Captures) -> Option<Ent> {
    let (start, end) = span(t, &caps.get(c.kvval).unwrap());
    let full = t.sl(start, end);
    let n = full.iter().rposition(|&x| !TRAILING.contains(x)).map_or(0, |p| p + 1);
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
    if value.len() < 4 || distinct.len() < 3 || words::not_secret(&ch::to_string(&ch::lower(value))) {
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
    let (ks, ke) = span(t, &caps.get(c.kvkey).unwrap());
    let key = t.sl(ks, ke);
    if !key_parts(key).iter().any(|p| c.key_part.is_match(p)) {
        return None; // "monkey", "keyboard", "passport": no key word of their own
    }
    let loose = caps.get(c.kvloose).is_some();
    let quoted = caps.get(c.kvquote).is_some_and(|m| m.end() > m.start());
    if (loose || !keyed(key, full, quoted)) && !high_entropy(value) {
        return None;
    }
    Some(Ent::new(Ty::Secret, start, start + value.len(), None))
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

fn email(t: &Text, m: &Match, casefold: &mut dyn FnMut(&str) -> String) -> Option<Ent> {
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
    let raw = ch::to_string(candidate);
    let key = if raw.is_ascii() { raw.to_ascii_lowercase() } else { casefold(&raw) };
    Some(Ent::new(Ty::Email, start, end, Some(key)))
}

fn obfuscated(c: &Compiled, t: &Text, m: &Match) -> Option<Ent> {
    let (start, _) = span(t, m);
    let value = m.as_str(); // ASCII: the pattern matches nothing else
    let at = c.at.find(value)?;
    if value.contains('@') && !value.contains(" @ ") {
        return None;
    }
    let local = value[..at.start()].trim_start_matches(['.', '+', '-']);
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

fn ip(t: &Text, m: &Match) -> Option<Ent> {
    let (start, end) = span(t, m);
    if t.at(end) == Some('.') && t.at(end + 1).is_some_and(ch::is_digit) {
        return None; // part of a longer dotted number
    }
    if ((start > 0 && matches!(t.c[start - 1], '.' | ':')) || t.at(end) == Some(':')) && m.as_str().contains('.') {
        return None;
    }
    let lowered = ch::lower(t.sl(start.saturating_sub(12), start));
    let n = lowered.iter().rposition(|&x| x != ' ' && x != ':').map_or(0, |p| p + 1);
    let before = &lowered[..n];
    if ["v", "version", "ver", "release", "build", "firmware"].iter().any(|w| ch::ends_with(before, w)) {
        return None;
    }
    let key = ip_key(m.as_str())?;
    Some(Ent::new(Ty::Ip, start, end, Some(key)))
}

fn iban(t: &Text, m: &Match) -> Option<Ent> {
    let (start, _) = span(t, m);
    // A grouped candidate may have swallowed a word before or after: try the groups from
    // each start that can begin an IBAN, the longest first (a few groups at most).
    let groups: Vec<&str> = m.as_str().split(' ').collect();
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

//! The kv group's candidates: key = value secrets, decided from the key's words and the
//! value's shape.

use regex_automata::util::captures::Captures;

use super::compiled::Compiled;
use super::TRAILING;
use crate::chars::{self as ch, Text};
use crate::validate::entropy;
use crate::{words, Ent, Ty};

fn group_span(t: &Text, caps: &Captures, name: &str) -> Option<(usize, usize)> {
    caps.get_group_by_name(name).map(|g| (t.ci(g.start), t.ci(g.end)))
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
        let run =
            |from: usize, f: &dyn Fn(char) -> bool| (from..n).find(|&j| !f(key[j])).unwrap_or(n);
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

pub(super) fn kv(c: &Compiled, t: &Text, caps: &Captures, key: (usize, usize)) -> Option<Ent> {
    let (start, end) = group_span(t, caps, "kvval")?;
    let full = t.sl(start, end);
    // a value closed by a quote or an element's end is whole ("s3cr3t!")
    let closed = t.at(end).is_some_and(|x| matches!(x, '"' | '\'' | '`' | '<'))
        || (t.at(end).is_some_and(ch::is_space)
            && t.sl(end, end + 64).iter().find(|&&x| !ch::is_space(x)) == Some(&'<')
            && t.sl(t.ci(key.1).min(start), start).contains(&'>'));
    let n = if closed {
        full.len()
    } else {
        full.iter().rposition(|&x| !TRAILING.contains(x)).map_or(0, |p| p + 1)
    };
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
    if starts("//") {
        return None; // a URL's scheme read as a key's type: "pw https://host"
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
    if !any_key_part(key, |p| c.key_part().is_match(p)) {
        return None; // "monkey", "keyboard", "passport": no key word of their own
    }
    let loose = caps.get_group_by_name("kvloose");
    // an XML element (<password>value</password>, over lines or not)
    // (the key is its name: '>' right after it, not an arrow's: "api_token" => "...")
    let element = loose.is_none()
        && t.sl(ke, start).iter().find(|&&x| !matches!(x, '"' | '\'' | '`')) == Some(&'>');
    if element && (ks == 0 || t.c[ks - 1] != '<' || placeholder_name(key)) {
        return None;
    }
    let quoted = element
        || caps.get_group_by_name("kvcomma").is_some()
        || caps.get_group_by_name("kvquote").is_some_and(|g| g.end > g.start);
    let prose = || words::prose_value(&ch::to_string(&ch::lower(value)));
    let password = password_key(key) && ch::all_alpha(value) && !prose();
    let plain = match loose {
        // "my password is crickets", "the password is Kx7mQ2vL9p": a password word, then
        // "is" or "was", then a value of any characters that is no word of prose
        Some(g) => {
            password_key(key) && !prose() && {
                let between = ch::to_string(t.sl(t.ci(g.start), t.ci(g.end)));
                matches!(
                    between
                        .trim()
                        .trim_matches(&['"', '\'', '`'][..])
                        .trim()
                        .to_ascii_lowercase()
                        .as_str(),
                    "is" | "was" | "is now" | "is still" | "was changed to" | "is set to"
                )
            }
        }
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
    matches!(
        lower.as_str(),
        "password"
            | "passwd"
            | "pwd"
            | "pass"
            | "passphrase"
            | "passcode"
            | "passwort"
            | "kennwort"
            | "mot_de_passe"
            | "contrasena"
            | "senha"
            | "wachtwoord"
            | "haslo"
            | "salasana"
            | "pw"
    )
}

/// Whether a key = value assignment says plainly that the value is a secret.
fn keyed(key: &[char], value: &[char], quoted: bool) -> bool {
    let camel = !ch::str_isupper(key) && key.iter().skip(1).any(|&x| ch::is_upper(x));
    let compound = camel || key.iter().any(|&x| matches!(x, '_' | '.' | '-'));
    if quoted || compound {
        return true;
    }
    let lower = ch::lower(key);
    if ["pass", "pwd", "pw", "passphrase", "credential", "kennwort", "contrasena", "senha"]
        .iter()
        .any(|w| ch::starts_with(&lower, w))
    {
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

//! The tokens group's candidates (provider tokens, JWTs, PEM blocks, a URL's password), and
//! the secrets that ride on it: passwords on command lines and secrets found again.

use std::sync::OnceLock;

use regex_automata::meta::Regex as MetaRegex;
use regex_automata::Input;

use super::{span, Found, TRAILING};
use crate::chars::{self as ch, Text};
use crate::patterns::re2_to_rust;
use crate::validate::jwt_ok;
use crate::{words, Ent, Ty};

/// Which alternative of the tokens group matched is plain from the match, without the cost
/// of capture groups on a pattern this large: only a URL's credentials end with '@' after
/// "://" (no other alternative holds '@'), and only a JWT starts with "eyJ" (a PEM block
/// starts with dashes, no provider format with "eyJ").
pub(super) fn tokens(t: &Text, m: &Found) -> Option<Ent> {
    let value = m.text;
    let (start, end) = span(t, m);
    if value.ends_with('@') && value.starts_with("jdbc:oracle:") {
        // jdbc:oracle:thin:user/password@ : the password after the user's '/'
        let slash = value.rfind('/')?;
        let pw_start = start + value[..slash + 1].chars().count();
        return Some(Ent::new(Ty::Secret, pw_start, end - 1, None));
    }
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
    let base64 = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    if value.len() == 88 && value.ends_with("==") && value.bytes().take(86).all(base64) {
        // An Azure account key (64 random bytes in base64) stands alone, and is no text
        // in base64 ("U3VhIG5vdmEg...", a string written to dodge a filter); the prefixed
        // formats that may have its length (ABSK, ZXlK...) are base64 of text by design.
        let prefixed = ["ABSK", "ZXlK", "LS0tLS1CRUdJTi", "FwoGZXIvYXdz", "IQoJb3JpZ2lu", "glc_"]
            .iter()
            .any(|p| value.starts_with(p));
        let inside = start > 0 && matches!(t.c[start - 1], '+' | '/');
        if !prefixed && (inside || crate::validate::b64_text(value)) {
            return None;
        }
    }
    if value.starts_with("sig=") {
        return Some(Ent::new(Ty::Secret, start + 4, end, None)); // a signature's value
    }
    Some(Ent::new(Ty::Secret, start, end, None))
}

/// Whether a text may hold a password on a command line or in a .netrc file.
pub(super) fn may_hold_command(b: &[u8]) -> bool {
    // the searchers built once, not on every call
    static FINDERS: OnceLock<[memchr::memmem::Finder<'static>; 5]> = OnceLock::new();
    FINDERS
        .get_or_init(|| {
            [&b" -u"[..], b" -p", b"--pass", b"--user", b"login"]
                .map(|n| memchr::memmem::Finder::new(n).into_owned())
        })
        .iter()
        .any(|f| f.find(b).is_some())
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
pub(super) fn command_secrets(t: &Text, s: &str) -> Vec<Ent> {
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
        let group = ["up", "pw", "netrc"]
            .iter()
            .find_map(|&name| caps.get_group_by_name(name).map(|g| (name, g)));
        let Some((name, g)) = group else { continue };
        let value = s[g.range()].trim_end_matches(|x: char| TRAILING.contains(x));
        if value.len() < 3
            || value.starts_with('$')
            || value.starts_with('<')
            || words::not_secret(&value.to_ascii_lowercase())
        {
            continue;
        }
        if name == "pw" && caps.get_group_by_name("flag").is_some_and(|f| &s[f.range()] == "-p") {
            let line_start = s[..m.start()].rfind('\n').map_or(0, |p| p + 1);
            let line_end = s[m.end()..].find('\n').map_or(s.len(), |p| m.end() + p);
            let line = s[line_start..line_end].to_ascii_lowercase();
            let logs_in = [
                "login",
                "mysql",
                "mariadb",
                "sshpass",
                "psql",
                "redis-cli",
                "mongo",
                " -u ",
                "--user",
            ]
            .iter()
            .any(|w| line.contains(w));
            let port =
                value.bytes().all(|b| b.is_ascii_digit() || b == b':' || b == b'/' || b == b'.');
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
pub(super) fn repeated_secrets(t: &Text, s: &str, found: &[Ent]) -> Vec<Ent> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let known: std::collections::HashSet<(usize, usize)> =
        found.iter().filter(|e| e.ty == Ty::Secret).map(|e| (e.start, e.end)).collect();
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

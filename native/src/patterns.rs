//! Candidate patterns of the built-in types, one regex per group, run by the regex crate
//! (finite automata: time linear in the text, no backtracking). They are written in RE2's
//! syntax and meaning, where \b, \d, \s and \w are ASCII classes; `re2_to_rust` spells those
//! out for the regex crate, whose classes are Unicode by default.
//!
//! Every repetition is bounded or runs over a class that cannot hold the group's own
//! trigger, so each character is looked at a bounded number of times however the text
//! repeats a trigger (tests/redaction/test_linear.py).

use regex::{Regex, RegexBuilder};

pub const KEY_NAME: &str = concat!(
    r"[A-Za-z0-9_.-]*(?i:key|secret|token|passw(?:or)?d|passphrase|pwd|pass|credential",
    r"|auth|bearer|signature|pw|kennwort|contrasena|senha|wachtwoord|haslo|salasana)",
    r"[A-Za-z0-9_.-]*"
);
const VALUE: &str = r#"[^\s"'`<>,;]{4,512}"#;
const NON_ASCII: &str = r"\x{80}-\x{10FFFF}";

const PEM: &str = concat!(
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
    r"(?:[A-Za-z0-9+/=\s:,.\\]|-[A-Za-z0-9])*",
    r"(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?"
);
const URLAUTH: &str = concat!(
    r#"\b[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s/?#@:<>"']{0,256}:"#,
    r#"(?P<urlpw>[^\s/?#@<>"']{1,256})@"#,
    // Oracle's JDBC URL: jdbc:oracle:thin:user/password@host
    r#"|\bjdbc:oracle:[a-z0-9]{1,16}:[^\s/@:"']{1,128}/[^\s/@"']{1,256}@"#
);
const JWT: &str = r"\beyJ[A-Za-z0-9_-]{8,1000}\.[A-Za-z0-9_-]{8,1000}\.[A-Za-z0-9_-]{0,1000}";
const PREFIXED: &str = concat!(
    r"\b(?:sk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|live-|test-|svcacct-|admin-)?",
    r"[A-Za-z0-9_-]{20,255}",
    r"|[rsp]k_(?:live|test)_[A-Za-z0-9]{16,255}|whsec_[A-Za-z0-9]{24,255}",
    r"|(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}",
    r"|gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255}",
    r"|gl(?:pat|dt|rt|ptt|ft|imt|agent|cbt|soat|ffct|oas|wt)-[A-Za-z0-9_-]{20,255}",
    r"|GR1348941[A-Za-z0-9_-]{20,255}|xox[abposre]-[A-Za-z0-9-]{10,255}",
    r"|xapp-\d-[A-Za-z0-9-]{10,255}|AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,255}",
    r"|SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}|npm_[A-Za-z0-9]{36}",
    r"|pypi-AgE[A-Za-z0-9_-]{50,255}|hf_[A-Za-z0-9]{30,255}|gsk_[A-Za-z0-9]{40,255}",
    r"|r8_[A-Za-z0-9]{30,255}|do[opr]_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
    r"|sq0(?:atp|csp)-[0-9A-Za-z_-]{22,255}|(?:AC|SK)[a-f0-9]{32}|ATATT[A-Za-z0-9_=-]{20,255}",
    r"|glsa_[A-Za-z0-9_]{32,255}|glc_[A-Za-z0-9+/]{32,1000}={0,2}|lin_api_[A-Za-z0-9]{40}",
    r"|key-[a-f0-9]{32}|EAAA[A-Za-z0-9_-]{60,255}",
    r"|(?:FwoGZXIvYXdz|IQoJb3JpZ2lu)[A-Za-z0-9/+=]{40,1000}",
    r"|ABSK[A-Za-z0-9+/]{40,1000}={0,2}|bedrock-api-key-[A-Za-z0-9+/=%]{40,1000}",
    r"|AGE-SECRET-KEY-1[0-9A-Z]{58}",
    r"|ZXlK[A-Za-z0-9+/]{40,1000}={0,2}|LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,1000}={0,2}",
    r"|[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
    r"|sig=[A-Za-z0-9%+/_-]{20,255}",
    r"|AccountKey=[A-Za-z0-9+/=]{40,255}|\d{8,10}:AA[A-Za-z0-9_-]{33}",
    // Azure: a storage or Cosmos DB account key (64 bytes in base64) wherever it stands,
    // and the key of a Service Bus, Event Hubs or IoT Hub connection string
    r"|[A-Za-z0-9+/]{86}==|SharedAccessKey=[A-Za-z0-9+/=]{40,255})",
    r"|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/]{20,255}",
    r"|https://[A-Za-z0-9-]{1,63}\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/_-]{20,400}",
    r"|https://outlook\.office(?:365)?\.com/webhook/[A-Za-z0-9@/_-]{20,400}",
    r"|https://discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{20,255}"
);

/// What follows a key name in the kv pattern, with ``value`` the value's pattern.
pub fn kv_rest(value: &str) -> String {
    format!(
        concat!(
            r#"["'`]?\]?(?:(?:[ \t]+[A-Za-z][A-Za-z0-9_*\[\]]{{0,15}})?"#,
            r#"[ \t]*(?::::=|::=|:=|\?=|\+=|\.=|=>|<-|[:=])[ \t]*(?P<kvquote>["'`]?)"#,
            r#"|[ \t]*,[ \t]*(?P<kvcomma>["'`])|>[ \t\r\n]*"#,
            r#"|(?P<kvloose>(?:[ \t]+[A-Za-z]{{1,12}}){{0,3}}[ \t]+["'`]?))"#,
            r"(?i:(?:bearer|basic|token)[ \t]+)?(?P<kvval>{value})"
        ),
        value = value
    )
}

/// The groups, in the order their entities are reported.
pub fn sources() -> Vec<(&'static str, String)> {
    vec![
        // Secrets that announce themselves: a PEM private key block, the password in a URL,
        // a JWT, a provider's key format.
        ("tokens", format!("(?P<pem>{PEM})|(?P<urlauth>{URLAUTH})|(?P<jwt>{JWT})|(?P<prefixed>{PREFIXED})")),
        ("kv", format!(r"\b(?P<kvkey>{KEY_NAME}){}", kv_rest(VALUE))),
        ("email", format!(
            concat!(r"[\w.%+'{n}-]{{1,64}}@[\w{n}][\w{n}-]{{0,62}}",
                    r"(?:\.[\w{n}][\w{n}-]{{0,62}}){{0,8}}\.[A-Za-z{n}]{{2,24}}"),
            n = NON_ASCII)),
        ("obfuscated", concat!(
            r"[\w.+-]{1,64}\s{0,3}(?i:\[at\]|\(at\)|\{at\}|<at>|\sat\s|\s@\s)\s{0,3}",
            r"[A-Za-z0-9-]{1,63}(?:\s{0,3}(?i:\[dot\]|\(dot\)|\{dot\}|<dot>|\sdot\s|\.)\s{0,3}",
            r"[A-Za-z0-9-]{1,63}){1,4}").to_string()),
        ("iban", r"\b[A-Za-z]{2}\d{2}(?:[A-Za-z0-9]{11,30}|(?: [A-Za-z0-9]{4}){2,7}(?: [A-Za-z0-9]{1,4})?)\b".to_string()),
        // IBANs as people also write them: a space after the country code, an unbroken
        // tail after a spaced one, other groupings, dashes or dots; cut at the country's
        // registered length (scanner/iban.rs).
        ("iban_loose", r"\b[A-Za-z]{2}[ \t.-]{0,3}\d{2}(?:[ \t.-]{0,3}[A-Za-z0-9]){11,40}\b".to_string()),
        // A codice fiscale (omocodia letters L-V allowed for its digits, the month letter
        // A-E H L M P R-T), a National Insurance number, a DNI (the 23 check letters) and an
        // NIE, a PAN (its fourth letter the holder's kind), a CURP; see nationalid.rs.
        ("national_id", concat!(
            r"\b(?:[A-Za-z]{6}[0-9LMNP-Vlmnp-v]{2}[A-EHLMPR-Ta-ehlmpr-t][0-9LMNP-Vlmnp-v]{2}",
            r"[A-Za-z][0-9LMNP-Vlmnp-v]{3}[A-Za-z]",
            r"|[A-Za-z]{2}[ -]?\d{2}[ -]?\d{2}[ -]?\d{2}[ -]?[A-Za-z]",
            r"|(?:\d{8}|\d{2}\.\d{3}\.\d{3}|[XYZxyz][ -]?\d{7})[ -]?[A-HJ-NP-TV-Za-hj-np-tv-z]",
            r"|[A-Z]{3}[ABCFGHJLPT][A-Z]\d{4}[A-Z]",
            r"|[A-Z]{4}\d{6}[HMX][A-Z]{5}[0-9A-Z]\d",
            // a HETU, an RVNR, an NRIC or FIN, a PPS number, a Chinese resident identity
            // number ending in X, a Taiwanese identification number, a Portuguese citizen
            // card number (validate/national.rs)
            r"|\d{6}[-+A-FU-Ya-fu-y]\d{3}[0-9A-Ya-y]|\d{2} ?\d{6} ?[A-Z] ?\d{2} ?\d",
            r"|[STFGMstfgm]\d{7}[A-Za-z]|\d{7}[A-W][A-IW]?|\d{17}[Xx]|[A-Z][12]\d{8}",
            r"|\d{8} ?\d ?[A-Z]{2}\d)\b").to_string()),
        ("ipv4", r"\b\d{1,3}(?:\.\d{1,3}){3}\b".to_string()),
        // An address that embeds IPv4 ("::ffff:10.0.0.1") is tried first: its last hextet
        // would otherwise take the first digits of the IPv4 part.
        ("ipv6", concat!(r"(?i:[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){1,6}:)\d{1,3}(?:\.\d{1,3}){3}\b",
                         r"|(?i:[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7})(?:\d{1,3}(?:\.\d{1,3}){3})?").to_string()),
        ("number", concat!(
            r"(?:\+\(?|\(\+?|\b)\d[\d \x{a0}./()-]{5,40}\d",
            r"(?:\s{0,2}(?i:x|ext\.?|extn\.?|extension|#)\s{0,2}\d{1,6}\b)?").to_string()),
    ]
}

/// RE2's ASCII meanings of \b \d \s \w, spelled out for the regex crate.
pub fn re2_to_rust(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let next = chars.next().expect("a pattern does not end with a backslash");
                let (outside, inside) = match next {
                    'b' => ("(?-u:\\b)", ""),
                    'd' => ("[0-9]", "0-9"),
                    's' => ("[\\t\\n\\x0C\\r ]", "\\t\\n\\x0C\\r "),
                    'w' => ("[0-9A-Za-z_]", "0-9A-Za-z_"),
                    _ => ("", ""),
                };
                if outside.is_empty() {
                    out.push('\\');
                    out.push(next);
                } else if in_class {
                    assert!(!inside.is_empty(), "no \\b in a class");
                    out.push_str(inside);
                } else {
                    out.push_str(outside);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap());
                }
                if chars.peek() == Some(&']') {
                    out.push(chars.next().unwrap());
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

pub fn compile(pattern: &str) -> Regex {
    RegexBuilder::new(&re2_to_rust(pattern))
        .size_limit(256 << 20)
        .dfa_size_limit(64 << 20)
        .build()
        .expect("built-in pattern compiles")
}

pub type DenseDfa = regex_automata::dfa::dense::DFA<Vec<u32>>;

/// ``pattern`` as a whole DFA with anchored starts only (with Unicode off for ASCII texts,
/// where its \d is [0-9] as the regex's is on ASCII).
pub fn anchored_dfa(pattern: &str, ascii: bool) -> DenseDfa {
    use regex_automata::dfa::{dense, StartKind};
    use regex_automata::util::syntax;
    let mut builder = dense::Builder::new();
    builder.configure(dense::Config::new().start_kind(StartKind::Anchored));
    if ascii {
        builder
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .thompson(regex_automata::nfa::thompson::Config::new().utf8(false));
    }
    builder.build(pattern).expect("built-in pattern compiles as a DFA")
}

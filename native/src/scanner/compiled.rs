//! The groups' patterns and triggers, compiled once for every engine.

use std::sync::OnceLock;

use regex::Regex;
use regex_automata::meta::Regex as MetaRegex;
use regex_automata::util::syntax;

use crate::patterns::{anchored_dfa, compile, kv_rest, re2_to_rust, sources, DenseDfa};

/// A group's pattern twice: as written (Unicode classes, for any text) and with Unicode off
/// (for ASCII texts, where both match the same; the automaton is a fraction of the size).
pub(super) struct Pair {
    unicode: MetaRegex,
    ascii: MetaRegex,
    /// For a small pattern, its ASCII form as whole DFAs (forward and reverse): the same
    /// matches, without the lazy DFA's bookkeeping on every call.
    pub(super) dense: Option<regex_automata::dfa::regex::Regex>,
}

impl Pair {
    fn new(pattern: &str, prefilter: bool) -> Pair {
        let config = || {
            MetaRegex::config()
                .auto_prefilter(prefilter)
                .nfa_size_limit(Some(256 << 20))
                .hybrid_cache_capacity(64 << 20)
        };
        let unicode = MetaRegex::builder()
            .configure(config())
            .build(pattern)
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

    pub(super) fn get(&self, ascii: bool) -> &MetaRegex {
        if ascii {
            &self.ascii
        } else {
            &self.unicode
        }
    }
}

/// A pattern with its non-ASCII ranges spelled for bytes (for ASCII texts, see `Pair`).
fn ascii_pattern(pattern: &str) -> String {
    pattern.replace(r"\x{80}-\x{10FFFF}", r"\x80-\xFF").replace(r"\x{a0}", r"\xA0")
}

pub(super) struct Compiled {
    /// Each group's pattern, in the order of `GROUPS` (None for the number group: see
    /// `number_dfa`).
    pub(super) pairs: Vec<Option<Pair>>,
    /// The kv pattern for its capture groups, run anchored on a match's own span. Its value
    /// is unbounded ({4,} for {4,512}): inside a span that already ends where the bounded
    /// value ended, both give the same groups, and the automaton is a fraction of the size.
    pub(super) kv_groups: Pair,
    /// For ASCII texts, where a key name is exactly the run of key characters a match
    /// starts with (no shorter key can be followed by a separator, no longer one is a key
    /// name): what follows the key, anchored after it, unbounded value likewise.
    pub(super) kv_rest: MetaRegex,
    /// The number pattern as whole-DFAs searched anchored, for ASCII texts and for others:
    /// every match starts at a '+', a '(' or a digit after a non-word byte, so the runs are
    /// found by trying those places in order (leftmost first, as a search of the whole text
    /// finds them), each try bounded by the pattern's longest match.
    pub(super) number_dfa: (DenseDfa, DenseDfa),
    /// The kv pattern as it is, should a span ever give the unbounded one another match.
    pub(super) kv_exact: MetaRegex,
    /// Literals one of which every token candidate holds (a few, such as "AC" of an account
    /// SID, are shorter than what the pattern needs: a wider trigger only skips less).
    pub(super) tokens_trigger: aho_corasick::AhoCorasick,
    /// Both secret groups' triggers in one automaton, for ASCII texts, where case-insensitive
    /// means ASCII case (the regexes' Unicode case folding only differs on other characters:
    /// K and ſ): the kv words in either case, the token literals as they are. One scan says
    /// whether either group may hold anything; each group's own pattern then decides. (The
    /// obfuscated group's trigger for ASCII texts is `at_trigger`.)
    pub(super) secret_trigger: regex_automata::dfa::dense::DFA<Vec<u32>>,
    pub(super) kv_trigger: Regex,
    pub(super) obfuscated_trigger: Regex,
    pub(super) at: Regex,
    pub(super) label: Regex,
    pub(super) key_part: Regex,
    // capture group indexes of the kv group
    pub(super) kvkey: usize,
}

pub(super) fn compiled() -> &'static Compiled {
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
                        "signature", "pw", "kennwort", "contrasena", "senha", "wachtwoord",
                        "haslo", "salasana"];
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
            "ZXlK", "LS0tLS1CRUdJTi", "Q~", "sig=", "jdbc:oracle:", "==", "SharedAccessKey=",
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
            kv_trigger: compile(&format!("(?i:{})", kv_words.join("|"))),
            obfuscated_trigger: compile(r"(?i:\sat\s|\[at\]|\(at\)|\{at\}|<at>|\s@\s)"),
            at: Regex::new(&format!(
                r"(?i){s}*(?:\[at\]|\(at\)|\{{at\}}|<at>|{s}at{s}|{s}@{s}){s}*")).unwrap(),
            label: Regex::new(&format!(
                r"(?i)({s}*(?:\[dot\]|\(dot\)|\{{dot\}}|<dot>|{s}dot{s}|\.){s}*|)([A-Za-z0-9-]+)"))
                .unwrap(),
            key_part: Regex::new(concat!(
                r"^(?:(?:api|access|secret|private|client|auth|refresh|session|bearer|master|signing",
                r"|encryption|app|db|admin|root|user)?(?:key|secret|token|password|passwd|pwd|pass",
                r"|passphrase|credentials?|auth|authorization|bearer|signature|pw|passwort",
                r"|kennwort|contrasena|senha|wachtwoord|haslo|salasana)s?",
                r"|[a-z0-9]{1,12}(?:password|passwd|secret|token|pwd|pw|passphrase)s?)$")).unwrap(),
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

//! The groups' patterns and triggers, compiled once for every engine, each the first time a
//! text needs it.

use std::sync::OnceLock;

use regex::Regex;
use regex_automata::meta::Regex as MetaRegex;
use regex_automata::util::syntax;

use crate::patterns::{anchored_dfa, compile, kv_rest, re2_to_rust, sources, DenseDfa};

/// A group's pattern twice: as written (Unicode classes, for any text) and with Unicode off
/// (for ASCII texts, where both match the same; the automaton is a fraction of the size).
/// Each is built the first time a text needs it: most processes only ever meet ASCII text,
/// and a group whose trigger no text has is never built at all.
pub(super) struct Pair {
    pattern: String,
    prefilter: bool,
    /// Whether the ASCII form also runs as whole DFAs (``dense``).
    with_dense: bool,
    unicode: OnceLock<MetaRegex>,
    ascii: OnceLock<MetaRegex>,
    dense: OnceLock<regex_automata::dfa::regex::Regex>,
}

impl Pair {
    fn new(pattern: &str, prefilter: bool) -> Pair {
        Pair {
            pattern: pattern.to_owned(),
            prefilter,
            with_dense: false,
            unicode: OnceLock::new(),
            ascii: OnceLock::new(),
            dense: OnceLock::new(),
        }
    }

    /// For a small pattern: its ASCII form also as whole DFAs (forward and reverse), the
    /// same matches without the lazy DFA's bookkeeping on every call.
    fn with_dense(mut self) -> Pair {
        self.with_dense = true;
        self
    }

    fn config(&self) -> regex_automata::meta::Config {
        MetaRegex::config()
            .auto_prefilter(self.prefilter)
            .nfa_size_limit(Some(256 << 20))
            .hybrid_cache_capacity(64 << 20)
    }

    /// The pattern for ASCII texts (``ascii``) or for any text.
    pub(super) fn get(&self, ascii: bool) -> &MetaRegex {
        if ascii {
            self.ascii.get_or_init(|| ascii_regex(&ascii_pattern(&self.pattern), self.config()))
        } else {
            self.unicode.get_or_init(|| {
                MetaRegex::builder()
                    .configure(self.config())
                    .build(&self.pattern)
                    .expect("built-in pattern compiles")
            })
        }
    }

    /// The whole DFAs of the ASCII form, for a pattern that has them.
    pub(super) fn dense(&self) -> Option<&regex_automata::dfa::regex::Regex> {
        if !self.with_dense {
            return None;
        }
        Some(self.dense.get_or_init(|| {
            regex_automata::dfa::regex::Builder::new()
                .syntax(syntax::Config::new().unicode(false).utf8(false))
                .thompson(regex_automata::nfa::thompson::Config::new().utf8(false))
                .build(&ascii_pattern(&self.pattern))
                .expect("built-in pattern compiles as a DFA")
        }))
    }
}

/// A built-in pattern for ASCII texts, searched as bytes with Unicode off (its classes the
/// ASCII ones, as RE2's are), under ``config``.
fn ascii_regex(pattern: &str, config: regex_automata::meta::Config) -> MetaRegex {
    MetaRegex::builder()
        .configure(config.utf8_empty(false))
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .build(pattern)
        .expect("built-in pattern compiles for ASCII texts")
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
    kv_rest: OnceLock<MetaRegex>,
    /// The number pattern as whole-DFAs searched anchored, for ASCII texts and for others:
    /// every match starts at a '+', a '(' or a digit after a non-word byte, so the runs are
    /// found by trying those places in order (leftmost first, as a search of the whole text
    /// finds them), each try bounded by the pattern's longest match.
    number_pattern: String,
    number_ascii: OnceLock<DenseDfa>,
    number_unicode: OnceLock<DenseDfa>,
    /// The kv pattern as it is, should a span ever give the unbounded one another match.
    kv_source: String,
    kv_exact: OnceLock<MetaRegex>,
    /// Literals one of which every token candidate holds (a few, such as "AC" of an account
    /// SID, are shorter than what the pattern needs: a wider trigger only skips less). For
    /// texts that are not ASCII.
    tokens_trigger: OnceLock<aho_corasick::AhoCorasick>,
    /// Both secret groups' triggers in one automaton, for ASCII texts, where case-insensitive
    /// means ASCII case (the regexes' Unicode case folding only differs on other characters:
    /// K and ſ): the kv words in either case, the token literals as they are. One scan says
    /// whether either group may hold anything; each group's own pattern then decides. (The
    /// obfuscated group's trigger for ASCII texts is `at_trigger`.)
    /// A lazy DFA (with the meta regex's literal prefilter): built in well under a
    /// millisecond where the whole DFA took about 30 (the case-insensitive words and the
    /// literals multiply each other's states), and as fast on the bench texts.
    pub(super) secret_trigger: MetaRegex,
    kv_trigger: OnceLock<Regex>,
    obfuscated_trigger: OnceLock<Regex>,
    at: OnceLock<Regex>,
    label: OnceLock<Regex>,
    key_part: OnceLock<Regex>,
    /// The capture group index of the key, in `kv_groups` and `kv_exact` alike.
    kvkey: OnceLock<usize>,
}

// Python's \s on the ASCII text these run on.
const S: &str = r"[\t\n\x0B\x0C\r\x1C-\x1F ]";
#[rustfmt::skip]
const KV_WORDS: [&str; 16] = [
    "key", "secret", "token", "pass", "pwd", "auth", "bearer", "credential", "signature", "pw",
    "kennwort", "contrasena", "senha", "wachtwoord", "haslo", "salasana",
];
#[rustfmt::skip]
const TOKEN_LITERALS: [&str; 83] = [
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

impl Compiled {
    /// What follows a kv key in an ASCII text, anchored after it.
    pub(super) fn kv_rest(&self) -> &MetaRegex {
        self.kv_rest.get_or_init(|| {
            ascii_regex(&re2_to_rust(&kv_rest(r#"[^\s"'`<>,;]{4,}"#)), MetaRegex::config())
        })
    }

    /// The number pattern's whole DFA for ASCII texts (``ascii``) or for others.
    pub(super) fn number_dfa(&self, ascii: bool) -> &DenseDfa {
        if ascii {
            self.number_ascii
                .get_or_init(|| anchored_dfa(&ascii_pattern(&self.number_pattern), true))
        } else {
            self.number_unicode.get_or_init(|| anchored_dfa(&self.number_pattern, false))
        }
    }

    /// The kv pattern as it is.
    pub(super) fn kv_exact(&self) -> &MetaRegex {
        self.kv_exact.get_or_init(|| MetaRegex::new(&self.kv_source).expect("kv pattern compiles"))
    }

    /// The capture group index of the key.
    pub(super) fn kvkey(&self) -> usize {
        *self.kvkey.get_or_init(|| {
            self.kv_groups
                .get(true)
                .group_info()
                .to_index(regex_automata::PatternID::ZERO, "kvkey")
                .expect("named group")
        })
    }

    /// The tokens group's trigger for texts that are not ASCII.
    pub(super) fn tokens_trigger(&self) -> &aho_corasick::AhoCorasick {
        self.tokens_trigger.get_or_init(|| {
            aho_corasick::AhoCorasick::new(TOKEN_LITERALS).expect("trigger literals")
        })
    }

    /// The kv group's trigger for texts that are not ASCII.
    pub(super) fn kv_trigger(&self) -> &Regex {
        self.kv_trigger.get_or_init(|| compile(&format!("(?i:{})", KV_WORDS.join("|"))))
    }

    /// The obfuscated group's trigger for texts that are not ASCII.
    pub(super) fn obfuscated_trigger(&self) -> &Regex {
        self.obfuscated_trigger
            .get_or_init(|| compile(r"(?i:\sat\s|\[at\]|\(at\)|\{at\}|<at>|\s@\s)"))
    }

    /// The "at" of an obfuscated e-mail address.
    pub(super) fn at(&self) -> &Regex {
        self.at.get_or_init(|| {
            Regex::new(&format!(r"(?i){S}*(?:\[at\]|\(at\)|\{{at\}}|<at>|{S}at{S}|{S}@{S}){S}*"))
                .unwrap()
        })
    }

    /// A "dot" and the label after it, of an obfuscated e-mail address.
    pub(super) fn label(&self) -> &Regex {
        self.label.get_or_init(|| {
            Regex::new(&format!(
                r"(?i)({S}*(?:\[dot\]|\(dot\)|\{{dot\}}|<dot>|{S}dot{S}|\.){S}*|)([A-Za-z0-9-]+)"
            ))
            .unwrap()
        })
    }

    /// A key name's part that names a secret.
    pub(super) fn key_part(&self) -> &Regex {
        self.key_part.get_or_init(|| {
            Regex::new(concat!(
                r"^(?:(?:api|access|secret|private|client|auth|refresh|session|bearer|master|signing",
                r"|encryption|app|db|admin|root|user)?(?:key|secret|token|password|passwd|pwd|pass",
                r"|passphrase|credentials?|auth|authorization|bearer|signature|pw|passwort",
                r"|kennwort|contrasena|senha|wachtwoord|haslo|salasana)s?",
                r"|[a-z0-9]{1,12}(?:password|passwd|secret|token|pwd|pw|passphrase)s?)$"
            ))
            .unwrap()
        })
    }
}

/// The groups' patterns and triggers, shared by every engine. What only some texts need is
/// built the first time one does.
pub(super) fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let sources = sources();
        let kv_source = re2_to_rust(&sources[1].1);
        assert!(kv_source.ends_with("{4,512})"));
        let kv_groups = Pair::new(&format!("{}{{4,}})", &kv_source[..kv_source.len() - 8]), true);
        // Number runs are searched by `number_dfa` alone: that group has no pair. The
        // national identifier pattern runs without a prefilter: its first characters are
        // everywhere in the texts it runs on, where a prefilter only interrupts.
        let pairs = sources
            .iter()
            .map(|(name, p)| {
                let p = re2_to_rust(p);
                match *name {
                    "number" => None,
                    "iban" | "iban_loose" | "national_id" | "ipv4" => {
                        Some(Pair::new(&p, *name != "national_id").with_dense())
                    }
                    _ => Some(Pair::new(&p, true)),
                }
            })
            .collect();
        let secret_trigger = format!(
            "(?i:{})|{}",
            KV_WORDS.join("|"),
            TOKEN_LITERALS.iter().map(|l| regex::escape(l)).collect::<Vec<_>>().join("|")
        );
        let number = sources.iter().find(|(n, _)| *n == "number").expect("number group");
        Compiled {
            pairs,
            kv_groups,
            kv_rest: OnceLock::new(),
            number_pattern: re2_to_rust(&number.1),
            number_ascii: OnceLock::new(),
            number_unicode: OnceLock::new(),
            kv_source,
            kv_exact: OnceLock::new(),
            tokens_trigger: OnceLock::new(),
            secret_trigger: ascii_regex(&secret_trigger, MetaRegex::config()),
            kv_trigger: OnceLock::new(),
            obfuscated_trigger: OnceLock::new(),
            at: OnceLock::new(),
            label: OnceLock::new(),
            key_part: OnceLock::new(),
            kvkey: OnceLock::new(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every automaton that is built on first use builds: a built-in pattern that stopped
    /// compiling fails here, not on the first text that needs it.
    #[test]
    fn every_lazy_automaton_builds() {
        let c = compiled();
        for pair in c.pairs.iter().flatten().chain([&c.kv_groups]) {
            pair.get(true);
            pair.get(false);
            pair.dense();
        }
        assert!(c.pairs.iter().flatten().filter(|p| p.dense().is_some()).count() == 4);
        c.number_dfa(true);
        c.number_dfa(false);
        c.kv_rest();
        c.kv_exact();
        assert_eq!(
            c.kvkey(),
            c.kv_exact().group_info().to_index(regex_automata::PatternID::ZERO, "kvkey").unwrap()
        );
        assert!(c.tokens_trigger().is_match("an sk-live key"));
        assert!(c.kv_trigger().is_match("PASSWORD"));
        assert!(c.obfuscated_trigger().is_match("jane [at] example"));
        assert!(c.at().is_match(" [at] "));
        assert!(c.label().is_match(" dot com"));
        assert!(c.key_part().is_match("apikey"));
        assert!(c.secret_trigger.is_match("the Token is"));
        assert!(!c.secret_trigger.is_match("nothing to see here"));
    }
}

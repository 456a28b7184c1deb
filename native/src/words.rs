//! The context words of number classification, and the short word lists of the other
//! detectors (the same sets the Python rules used). No list holds the empty word, the most
//! common one looked up (no word before a number): it is answered before any comparison.

use std::sync::OnceLock;

pub fn phone(w: &str) -> bool {
    !w.is_empty() && PHONE.contains(&w)
}

#[rustfmt::skip]
const PHONE: &[&str] = &[
    "phone", "tel", "telephone", "telefon", "téléphone", "teléfono", "telefone",
    "mobile", "mob", "mobil", "cell", "cellphone", "handy", "fax", "call", "calling",
    "called", "ring", "text", "sms", "whatsapp", "signal", "dial", "reach", "contact",
    "hotline", "helpline", "tél", "tlf", "ph", "landline", "direct", "switchboard",
    "office", "home", "work", "caller", "callback", "appelez", "appeler", "appelle",
    "llame", "llámenos", "llamar", "llámame", "rufen", "anrufen", "ruf", "chiamare",
    "chiama", "chiamate", "ligue", "ligar", "bel", "bellen", "zadzwoń", "numer",
    "número", "numéro", "nummer", "rückruf", "message", "messages", "msg",
    "answering", "voicemail",
];

pub fn id(w: &str) -> bool {
    !w.is_empty() && ID.contains(&w)
}

#[rustfmt::skip]
const ID: &[&str] = &[
    "order", "orders", "invoice", "tracking", "track", "ticket", "case", "ref",
    "reference", "policy", "article", "art", "section", "sec", "clause", "chapter",
    "isbn", "issn", "sku", "serial", "model", "part", "item", "booking",
    "confirmation", "receipt", "transaction", "txn", "batch", "lot", "shipment",
    "parcel", "consignment", "claim", "patent", "doi", "version", "ver", "v",
    "build", "release", "firmware", "pmid", "ean", "upc", "gtin", "uuid",
    "hash", "commit", "page", "pages", "pp", "year", "years", "isin", "cusip",
    "vin", "imei", "mac", "zip", "postcode", "iso", "iec", "rfc", "din", "ieee",
    "ansi", "astm", "cve", "grant", "vol", "volume", "issue", "fig", "figure", "table",
    "eq", "equation", "arxiv",
];

/// Words that name an identifier of a thing, whose code may have a national identifier's
/// shape (`nationalid`): never "id", "code" or "number", which name personal ones too.
pub fn thing_id(w: &str) -> bool {
    !w.is_empty()
        && matches!(
            w,
            "order"
                | "orders"
                | "invoice"
                | "tracking"
                | "ticket"
                | "ref"
                | "reference"
                | "sku"
                | "serial"
                | "model"
                | "part"
                | "item"
                | "product"
                | "booking"
                | "confirmation"
                | "receipt"
                | "transaction"
                | "txn"
                | "batch"
                | "lot"
                | "shipment"
                | "parcel"
                | "consignment"
                | "patent"
                | "version"
                | "build"
                | "release"
                | "firmware"
                | "vin"
                | "isbn"
                | "flight"
                | "coupon"
                | "voucher"
                | "promo"
                | "sn"
                | "pn"
                | "art"
                | "article"
        )
}

pub fn amount(w: &str) -> bool {
    !w.is_empty() && AMOUNT.contains(&w)
}

#[rustfmt::skip]
const AMOUNT: &[&str] = &[
    "population", "total", "count", "revenue", "budget", "salary", "price",
    "cost", "costs", "amount", "balance", "sum", "paid", "pay", "payment", "fee",
    "fees", "usd", "eur", "gbp", "chf", "jpy", "inr", "aud", "cad", "sek", "nok",
    "dkk", "pln", "cny", "rmb", "rs", "kr", "zł", "§", "$", "€", "£", "¥",
    "₹", "₽", "₩",
];

pub fn ssn(w: &str) -> bool {
    !w.is_empty() && SSN.contains(&w)
}

#[rustfmt::skip]
const SSN: &[&str] = &[
    "ssn", "ss", "social", "security",
];

pub fn card(w: &str) -> bool {
    !w.is_empty() && CARD.contains(&w)
}

#[rustfmt::skip]
const CARD: &[&str] = &[
    "card", "cards", "visa", "mastercard", "amex", "maestro", "discover",
    "diners", "jcb", "unionpay", "credit", "debit", "cc", "pan",
];

/// A unit or a counted noun after a number (one lookup: it is asked of every number's
/// next word).
pub fn unit(w: &str) -> bool {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table::new(&[UNIT])).has(w)
}

#[rustfmt::skip]
const UNIT: &[&str] = &[
    "mg", "g", "kg", "mcg", "µg", "ug", "ml", "l", "cl", "dl", "km", "m",
    "cm", "mm", "nm", "mi", "ft", "lb", "lbs", "oz", "kcal", "cal", "iu", "units",
    "unit", "hz", "khz", "mhz", "ghz", "kb", "mb", "gb", "tb", "pb", "kib", "mib",
    "gib", "bytes", "byte", "bits", "bit", "ms", "s", "sec", "secs", "second",
    "seconds", "min", "mins", "minute", "minutes", "h", "hr", "hrs", "hour",
    "hours", "day", "days", "week", "weeks", "month", "months", "year", "years",
    "users", "user", "requests", "request", "rows", "row", "items", "item",
    "tokens", "token", "words", "word", "people", "persons", "customers", "visits",
    "views", "downloads", "records", "times", "steps", "calls", "messages", "pages",
    "page", "copies", "km/h", "mph", "rpm", "kw", "kwh", "mw", "w", "mah", "%",
    "percent", "pct", "usd", "eur", "gbp", "chf", "jpy", "inr", "dollars",
    "euros", "pounds", "yen", "rupees", "€", "$", "£", "¥", "₹", "sqft", "m2",
    "m²", "km²", "ha", "acres", "points", "pts", "votes", "shares", "tonnes",
    "tons", "t",
];

/// phone(w) || id(w) || amount(w) || ssn(w) || card(w), by one lookup in a hash table of
/// them all (every word before a number is looked up: five lists compared one by one cost
/// more than the rest of the number's rules).
pub fn context(w: &str) -> bool {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table::new(&[PHONE, ID, AMOUNT, SSN, CARD])).has(w)
}

/// Words in an open-addressing hash table several times their number (a word not in it
/// meets an empty slot at once, after one hash of its bytes).
struct Table {
    slots: Vec<&'static str>,
}

impl Table {
    const SLOTS: usize = 1024;

    fn new(lists: &[&[&'static str]]) -> Table {
        assert!(4 * lists.iter().map(|list| list.len()).sum::<usize>() < Self::SLOTS);
        let mut slots = vec![""; Self::SLOTS];
        for &word in lists.iter().flat_map(|list| list.iter()) {
            assert!(!word.is_empty(), "the empty slot is no word");
            let mut slot = Self::slot(word);
            while !slots[slot].is_empty() && slots[slot] != word {
                slot = (slot + 1) % Self::SLOTS;
            }
            slots[slot] = word;
        }
        Table { slots }
    }

    fn has(&self, w: &str) -> bool {
        if w.is_empty() {
            return false;
        }
        let mut slot = Self::slot(w);
        loop {
            match self.slots[slot] {
                "" => return false,
                word if word == w => return true,
                _ => slot = (slot + 1) % Self::SLOTS,
            }
        }
    }

    /// FNV-1a of the word's bytes, as a slot.
    fn slot(w: &str) -> usize {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in w.as_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        (h as usize) & (Self::SLOTS - 1)
    }
}

/// Symbols that count as a word on their own ('#' and '%' decide nothing: "card # 4111..."
/// takes its meaning from "card").
pub fn symbol(c: char) -> bool {
    matches!(c, '#' | '§' | '$' | '€' | '£' | '¥' | '₹' | '₽' | '₩' | '%')
}

pub fn not_secret(w: &str) -> bool {
    !w.is_empty()
        && matches!(
            w,
            "true"
                | "false"
                | "null"
                | "none"
                | "nil"
                | "undefined"
                | "yes"
                | "no"
                | "empty"
                | "required"
                | "optional"
                | "redacted"
                | "hidden"
                | "masked"
                | "changeme?"
                | "string"
                | "value"
                | "example"
        )
}

/// Words that follow "password:" or "the password is" in prose about passwords, not as one.
pub fn prose_value(w: &str) -> bool {
    matches!(
        w,
        "required"
            | "incorrect"
            | "correct"
            | "invalid"
            | "wrong"
            | "expired"
            | "changed"
            | "reset"
            | "being"
            | "protected"
            | "stored"
            | "hashed"
            | "encrypted"
            | "saved"
            | "visible"
            | "hidden"
            | "shown"
            | "sent"
            | "needed"
            | "mandatory"
            | "optional"
            | "empty"
            | "blank"
            | "missing"
            | "weak"
            | "strong"
            | "secure"
            | "insecure"
            | "case"
            | "sensitive"
            | "different"
            | "same"
            | "also"
            | "still"
            | "only"
            | "just"
            | "never"
            | "always"
            | "simple"
            | "easy"
            | "long"
            | "short"
            | "longer"
            | "shorter"
            | "valid"
            | "known"
            | "unknown"
            | "the"
            | "your"
            | "mine"
            | "yours"
            | "this"
            | "that"
            | "here"
            | "there"
            | "below"
            | "above"
            | "then"
            | "written"
            | "printed"
            | "stolen"
            | "leaked"
            | "used"
            | "given"
            | "generated"
            | "random"
            | "unique"
            | "local"
            | "managed"
            | "rotated"
            | "please"
            | "enter"
            | "type"
            | "field"
            | "policy"
            | "manager"
            | "prompt"
            | "ignored"
            | "accepted"
            | "rejected"
            | "supported"
            | "disabled"
            | "enabled"
            | "updated"
            | "too"
            | "not"
            | "what"
            | "when"
            | "where"
            | "which"
            | "whatever"
            | "something"
            | "nothing"
            | "unset"
            | "default"
            | "defaults"
            | "asterisks"
            | "stars"
    )
}

pub fn tld(w: &str) -> bool {
    !w.is_empty()
        && matches!(
            w,
            "com"
                | "org"
                | "net"
                | "edu"
                | "gov"
                | "mil"
                | "int"
                | "io"
                | "co"
                | "ai"
                | "app"
                | "dev"
                | "info"
                | "biz"
                | "me"
                | "us"
                | "uk"
                | "de"
                | "fr"
                | "es"
                | "it"
                | "nl"
                | "be"
                | "ch"
                | "at"
                | "se"
                | "no"
                | "dk"
                | "fi"
                | "pl"
                | "cz"
                | "pt"
                | "ie"
                | "ca"
                | "au"
                | "nz"
                | "jp"
                | "cn"
                | "in"
                | "br"
                | "mx"
                | "ru"
                | "za"
                | "kr"
                | "sg"
                | "hk"
                | "tw"
                | "ar"
                | "cl"
        )
}

//! Checksums, parsers and the canonical keys of values, as the Python rules defined them:
//! Luhn, IBAN mod 97, addresses by the stdlib ipaddress rules (in `ip`), a JWT's JSON
//! header, entropy.

mod ip;
mod national;

pub use ip::ip_key;
pub use national::classify as classify_national;

/// Luhn checksum of ASCII digits.
pub fn luhn_valid(digits: &[u8]) -> bool {
    let mut total = 0u32;
    for (i, &d) in digits.iter().rev().enumerate() {
        let v = (d - b'0') as u32;
        total += if i % 2 == 1 {
            let x = v * 2;
            if x > 9 {
                x - 9
            } else {
                x
            }
        } else {
            v
        };
    }
    total % 10 == 0
}

/// The length of each country's IBAN, from the IBAN registry that SWIFT publishes as the
/// ISO 13616 registration authority (and, for the countries that issue IBANs outside it,
/// the lengths their central banks publish).
#[rustfmt::skip]
const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24), ("AE", 23), ("AL", 28), ("AT", 20), ("AZ", 28), ("BA", 20), ("BE", 16),
    ("BG", 22), ("BH", 22), ("BI", 27), ("BR", 29), ("BY", 28), ("CH", 21), ("CR", 22),
    ("CY", 28), ("CZ", 24), ("DE", 22), ("DJ", 27), ("DK", 18), ("DO", 28), ("EE", 20),
    ("EG", 29), ("ES", 24), ("FI", 18), ("FK", 18), ("FO", 18), ("FR", 27), ("GB", 22),
    ("GE", 22), ("GI", 23), ("GL", 18), ("GR", 27), ("GT", 28), ("HN", 28), ("HR", 21),
    ("HU", 28), ("IE", 22), ("IL", 23), ("IQ", 23), ("IS", 26), ("IT", 27), ("JO", 30),
    ("KW", 30), ("KZ", 20), ("LB", 28), ("LC", 32), ("LI", 21), ("LT", 20), ("LU", 20),
    ("LV", 21), ("LY", 25), ("MC", 27), ("MD", 24), ("ME", 22), ("MK", 19), ("MN", 20),
    ("MR", 27), ("MT", 31), ("MU", 30), ("NI", 28), ("NL", 18), ("NO", 15), ("OM", 23),
    ("PK", 24), ("PL", 28), ("PS", 29), ("PT", 25), ("QA", 29), ("RO", 24), ("RS", 22),
    ("RU", 33), ("SA", 24), ("SC", 31), ("SD", 18), ("SE", 24), ("SI", 19), ("SK", 24),
    ("SM", 27), ("SO", 23), ("ST", 25), ("SV", 28), ("TL", 23), ("TN", 24), ("TR", 26),
    ("UA", 29), ("VA", 22), ("VG", 24), ("XK", 20), ("YE", 30),
    ("AO", 25), ("BF", 28), ("BJ", 28), ("CF", 27), ("CG", 27), ("CI", 28), ("CM", 27),
    ("CV", 25), ("DZ", 26), ("GA", 27), ("GQ", 27), ("GW", 25), ("IR", 26), ("KM", 27),
    ("MA", 28), ("MG", 27), ("ML", 28), ("MZ", 25), ("NE", 28), ("SN", 28), ("TD", 27),
    ("TG", 28),
    // France's overseas departments and territories write their IBANs with their own codes
    // in France's format, the Aland Islands with theirs in Finland's
    ("GF", 27), ("PF", 27), ("TF", 27), ("GP", 27), ("MQ", 27), ("YT", 27), ("NC", 27),
    ("RE", 27), ("BL", 27), ("MF", 27), ("PM", 27), ("WF", 27), ("AX", 18),
];

/// The length of the IBANs of a country (its two letters ``a`` and ``b``, in any case), if it
/// issues them: a table of the 676 pairs made once (a lookup, not a walk over the list).
pub fn iban_length_of(a: u8, b: u8) -> Option<usize> {
    static TABLE: std::sync::OnceLock<[u8; 676]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = [0u8; 676];
        for (c, n) in IBAN_LENGTHS {
            let c = c.as_bytes();
            table[usize::from(c[0] - b'A') * 26 + usize::from(c[1] - b'A')] = *n as u8;
        }
        table
    });
    let (a, b) = (a.to_ascii_uppercase(), b.to_ascii_uppercase());
    if !a.is_ascii_uppercase() || !b.is_ascii_uppercase() {
        return None;
    }
    let n = table[usize::from(a - b'A') * 26 + usize::from(b - b'A')];
    (n > 0).then_some(usize::from(n))
}

/// An IBAN in any case and grouping (spaces): a country that issues IBANs, 15 to 34
/// characters and the mod-97 checksum; the key is its compact upper-case form.
pub fn iban_key(candidate: &str) -> Option<String> {
    let compact: String =
        candidate.chars().filter(|&c| c != ' ').flat_map(char::to_uppercase).collect();
    let n = compact.chars().count();
    if !(15..=34).contains(&n)
        || !compact.is_ascii()
        || !compact.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return None;
    }
    let b = compact.as_bytes();
    if iban_length_of(b[0], b[1]).is_none() || !b[2].is_ascii_digit() || !b[3].is_ascii_digit() {
        return None;
    }
    let mut rest = 0u32;
    for &c in b[4..].iter().chain(b[..4].iter()) {
        if c.is_ascii_digit() {
            rest = (rest * 10 + (c - b'0') as u32) % 97;
        } else {
            let v = (c - b'A') as u32 + 10;
            rest = (rest * 100 + v) % 97;
        }
    }
    if rest == 1 {
        Some(compact)
    } else {
        None
    }
}

fn b64_value(c: u8) -> Option<u32> {
    match c {
        b'A'..=b'Z' => Some((c - b'A') as u32),
        b'a'..=b'z' => Some((c - b'a') as u32 + 26),
        b'0'..=b'9' => Some((c - b'0') as u32 + 52),
        b'-' | b'+' => Some(62),
        b'_' | b'/' => Some(63),
        _ => None,
    }
}

/// Whether ``value`` is base64 of text (UTF-8 of printable characters and blanks), as a
/// string written to dodge a filter is and a random key is not.
pub fn b64_text(value: &str) -> bool {
    b64url_decode(value).is_some_and(|bytes| {
        std::str::from_utf8(&bytes)
            .is_ok_and(|s| s.chars().all(|c| !c.is_control() || c.is_whitespace()))
    })
}

/// base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)): binascii's lenient
/// decoding (characters outside the alphabet skipped, leftover bits ignored, decoding stops
/// at complete padding; one data character past a multiple of four, or short padding, is
/// an error).
fn b64url_decode(header: &str) -> Option<Vec<u8>> {
    if !header.is_ascii() {
        return None;
    }
    let pad = (4 - header.len() % 4) % 4;
    let data = header.bytes().chain(std::iter::repeat(b'=').take(pad));
    let mut out = Vec::with_capacity(header.len() * 3 / 4);
    let (mut quad, mut left, mut pads) = (0u8, 0u32, 0usize);
    for c in data {
        if c == b'=' {
            if quad >= 2 {
                pads += 1;
                if quad as usize + pads >= 4 {
                    return Some(out);
                }
            }
            continue;
        }
        let Some(v) = b64_value(c) else { continue };
        pads = 0;
        match quad {
            0 => {
                quad = 1;
                left = v;
            }
            1 => {
                quad = 2;
                out.push(((left << 2) | (v >> 4)) as u8);
                left = v & 0x0f;
            }
            2 => {
                quad = 3;
                out.push(((left << 4) | (v >> 2)) as u8);
                left = v & 0x03;
            }
            _ => {
                quad = 0;
                out.push(((left << 6) | v) as u8);
                left = 0;
            }
        }
    }
    if quad != 0 {
        None
    } else {
        Some(out)
    }
}

/// A JSON Web Token: its header is base64url JSON (Python's json rules) of an object that
/// names an algorithm or a type.
/// Whether the first dot-separated part of ``candidate`` is base64url of a JSON object
/// (every JWT header is one, whatever it names).
pub fn b64url_object(candidate: &str) -> bool {
    let header = candidate.split('.').next().unwrap_or("");
    b64url_decode(header).is_some_and(|raw| {
        let text = String::from_utf8_lossy(&raw);
        let t = text.trim_start();
        t.starts_with("{\"") && t.trim_end().ends_with('}')
    })
}

pub fn jwt_ok(candidate: &str) -> bool {
    let header = candidate.split('.').next().unwrap_or("");
    let Some(mut raw) = b64url_decode(header) else { return false };
    // UTF-8 with surrogatepass: an encoded surrogate stands for a character no key holds.
    let mut i = 0;
    while i + 2 < raw.len() {
        if raw[i] == 0xED
            && (0xA0..=0xBF).contains(&raw[i + 1])
            && (0x80..=0xBF).contains(&raw[i + 2])
        {
            raw[i] = 0xEF;
            raw[i + 1] = 0xBF;
            raw[i + 2] = 0xBD;
            i += 3;
        } else {
            i += 1;
        }
    }
    let Ok(text) = std::str::from_utf8(&raw) else { return false };
    crate::json::object_names_alg_or_typ(text)
}

/// Shannon entropy of the characters of ``value``, in bits per character (summed in the
/// order of first occurrence, as Python's Counter does).
pub fn entropy(value: &[char]) -> f64 {
    let mut counts: Vec<(char, usize)> = Vec::new();
    for &c in value {
        match counts.iter_mut().find(|(k, _)| *k == c) {
            Some(entry) => entry.1 += 1,
            None => counts.push((c, 1)),
        }
    }
    let total = value.len() as f64;
    let mut sum = 0.0f64;
    for &(_, n) in &counts {
        let p = n as f64 / total;
        sum += p * p.log2();
    }
    -sum
}

/// The check character of an Italian codice fiscale (16 upper-case ASCII letters and
/// digits): the odd places (1st, 3rd...) and the even places by their tables, summed mod 26.
pub fn cf_check_ok(code: &[u8]) -> bool {
    // value of 0-9 and A-Z in an odd place
    const ODD: [u32; 26] = [
        1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24,
        23,
    ];
    if code.len() != 16 || !code.iter().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()) {
        return false;
    }
    let index = |b: u8| if b.is_ascii_digit() { (b - b'0') as usize } else { (b - b'A') as usize };
    let sum: u32 = code[..15]
        .iter()
        .enumerate()
        .map(|(i, &b)| if i % 2 == 0 { ODD[index(b)] } else { index(b) as u32 })
        .sum();
    code[15] == b'A' + (sum % 26) as u8
}

/// The check letter of a Spanish DNI (eight digits and a letter) or NIE (X, Y or Z, seven
/// digits and a letter), upper-case ASCII: the number mod 23 in TRWAGMYFPDXBNJZSQVHLCKE.
pub fn dni_check_ok(code: &[u8]) -> bool {
    const LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";
    if code.len() != 9 {
        return false;
    }
    let mut number = 0u32;
    for (i, &b) in code[..8].iter().enumerate() {
        let d = match b {
            b'0'..=b'9' => (b - b'0') as u32,
            b'X' | b'Y' | b'Z' if i == 0 => (b - b'X') as u32,
            _ => return false,
        };
        number = number * 10 + d;
    }
    code[8] == LETTERS[(number % 23) as usize]
}

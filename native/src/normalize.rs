//! The text the detectors read: compatibility forms folded (NFKC, as Python's unicodedata
//! gives it per character), format characters dropped (zero-width space and joiners, soft
//! hyphen, word joiner, bidi controls, variation selectors), dash and space variants made
//! ASCII, digits of any script made ASCII, HTML character references decoded. Each folded
//! character remembers the code point span of the original it came from, so an entity
//! found on the folded text maps back to the original span, whose text is what gets
//! replaced.
//!
//! U+00A0 is kept as it is: the number rules read it as the separator it is.

use crate::pytables;

/// A folded text and, for each of its code points, the span of the original it came from.
pub struct Folded {
    pub text: String,
    src: Vec<(u32, u32)>,
}

impl Folded {
    /// The original code point span of the folded span ``start..end``.
    pub fn original(&self, start: usize, end: usize) -> (usize, usize) {
        if end <= start {
            let at =
                self.src.get(start).map_or_else(|| self.src.last().map_or(0, |s| s.1), |s| s.0);
            return (at as usize, at as usize);
        }
        (self.src[start].0 as usize, self.src[end - 1].1 as usize)
    }
}

enum Fold {
    Same,
    Drop,
    To(char),
}

/// What one character folds to before NFKC is asked (None: ask it).
fn fold_char(c: char) -> Option<Fold> {
    let code = c as u32;
    Some(match code {
        0x00A0 => Fold::Same,
        0x00AD
        | 0x034F
        | 0x061C
        | 0x115F
        | 0x1160
        | 0x17B4
        | 0x17B5
        | 0x180B..=0x180F
        | 0x200B..=0x200F
        | 0x202A..=0x202E
        | 0x2060..=0x2064
        | 0x2066..=0x206F
        | 0x3164
        | 0xFE00..=0xFE0F
        | 0xFEFF
        | 0xFFA0
        | 0xFFF9..=0xFFFB
        | 0xE0000..=0xE007F
        | 0xE0100..=0xE01EF => Fold::Drop,
        0x2010..=0x2015
        | 0x2043
        | 0x2212
        | 0x2E3A
        | 0x2E3B
        | 0xFE58
        | 0xFE63
        | 0xFF0D
        | 0x02D7
        | 0x058A
        | 0x05BE
        | 0x1806
        | 0x2796
        | 0x2E17
        | 0x301C
        | 0x30A0 => Fold::To('-'),
        0x1680 | 0x2000..=0x200A | 0x202F | 0x205F | 0x3000 => Fold::To(' '),
        0xFE6B | 0xFF20 => Fold::To('@'),
        0x2024 | 0xFE52 | 0xFF0E | 0x3002 | 0xFF61 => Fold::To('.'),
        _ => match decimal_zero(c) {
            Some(zero) => Fold::To(char::from(b'0' + ((code - zero) % 10) as u8)),
            None => return None,
        },
    })
}

/// The first code point of the run of decimal digits ``c`` is in (str.isdecimal), if any:
/// every such run is whole sets of ten from a zero, so ``(c - zero) % 10`` is its value.
fn decimal_zero(c: char) -> Option<u32> {
    let code = c as u32;
    let table = &pytables::DECIMAL;
    let i = table.partition_point(|&(_, hi)| hi < code);
    table.get(i).filter(|&&(lo, _)| lo <= code).map(|&(lo, _)| lo)
}

/// Named character references decoded (the ones that can spell part of a value or its
/// separators).
#[rustfmt::skip]
const NAMED: &[(&str, char)] = &[
    ("amp", '&'), ("commat", '@'), ("period", '.'), ("lt", '<'), ("gt", '>'), ("quot", '"'),
    ("apos", '\''), ("nbsp", '\u{a0}'), ("hyphen", '-'), ("dash", '-'), ("minus", '-'),
    ("colon", ':'), ("plus", '+'), ("num", '#'), ("sol", '/'), ("lowbar", '_'),
    ("equals", '='), ("lpar", '('), ("rpar", ')'), ("comma", ','), ("semi", ';'),
    ("excl", '!'), ("quest", '?'), ("ndash", '-'), ("mdash", '-'), ("shy", '\u{ad}'),
    ("zwj", '\u{200d}'), ("zwnj", '\u{200c}'),
];

/// A character reference at the start of ``chars`` ("&#64;", "&#x40;", "&commat;"): the
/// character and the reference's length.
fn reference(chars: &[char]) -> Option<(char, usize)> {
    let end = chars.iter().take(12).position(|&c| c == ';')?;
    let body: String = chars[1..end].iter().collect();
    let c = if let Some(num) = body.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex)
                if !hex.is_empty()
                    && hex.len() <= 6
                    && hex.bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                u32::from_str_radix(hex, 16).ok()?
            }
            None if !num.is_empty()
                && num.len() <= 7
                && num.bytes().all(|b| b.is_ascii_digit()) =>
            {
                num.parse().ok()?
            }
            _ => return None,
        };
        char::from_u32(code).filter(|&c| c != '\0')?
    } else {
        NAMED.iter().find(|(name, _)| *name == body).map(|&(_, c)| c)?
    };
    Some((c, end + 1))
}

/// ``s`` folded, or None when folding changes nothing (most texts: ASCII without '&').
/// ``nfkc`` gives a character's NFKC form when it is not the character itself.
pub fn fold(s: &str, nfkc: &mut dyn FnMut(char) -> Option<String>) -> Option<Folded> {
    if s.is_ascii() && !s.contains('&') {
        return None;
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = Folder {
        text: String::with_capacity(s.len()),
        src: Vec::with_capacity(chars.len()),
        changed: false,
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '&' {
            if let Some((decoded, len)) = reference(&chars[i..]) {
                out.changed = true;
                out.push(decoded, (i, i + len), nfkc);
                i += len;
                continue;
            }
        }
        out.push(c, (i, i + 1), nfkc);
        i += 1;
    }
    out.changed.then_some(Folded { text: out.text, src: out.src })
}

struct Folder {
    text: String,
    src: Vec<(u32, u32)>,
    changed: bool,
}

impl Folder {
    fn put(&mut self, c: char, span: (usize, usize)) {
        self.text.push(c);
        self.src.push((span.0 as u32, span.1 as u32));
    }

    fn push(
        &mut self,
        c: char,
        span: (usize, usize),
        nfkc: &mut dyn FnMut(char) -> Option<String>,
    ) {
        if c.is_ascii() {
            return self.put(c, span);
        }
        match fold_char(c) {
            Some(Fold::Same) => self.put(c, span),
            Some(Fold::Drop) => self.changed = true,
            Some(Fold::To(x)) => {
                self.changed = true;
                self.put(x, span);
            }
            None => match nfkc(c) {
                None => self.put(c, span),
                Some(form) => {
                    self.changed = true;
                    for x in form.chars() {
                        match fold_char(x) {
                            Some(Fold::Drop) => {}
                            Some(Fold::To(y)) => self.put(y, span),
                            _ => self.put(x, span),
                        }
                    }
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: char) -> Option<String> {
        None
    }

    #[test]
    fn folds_and_maps_back() {
        let f = fold("a\u{200b}1\u{2013}2&#64;x", &mut none).unwrap();
        assert_eq!(f.text, "a1-2@x");
        assert_eq!(f.original(1, 5), (2, 10));
        assert!(fold("plain text", &mut none).is_none());
        assert!(fold("R&D and a&b;", &mut none).is_none());
        assert_eq!(fold("\u{661}\u{662}", &mut none).unwrap().text, "12");
    }
}

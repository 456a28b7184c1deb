//! Characters classified as CPython's str methods classify them (tables generated from
//! Python's own Unicode database by gen_pytables.py), and the text a detector reads: its
//! characters indexed as Python indexes a str (code points), whatever UTF-8 takes.

use crate::pytables;

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    let code = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < code {
                std::cmp::Ordering::Less
            } else if lo > code {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// str.isalpha of one character.
pub fn is_alpha(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        in_table(&pytables::ALPHA, c)
    }
}

/// str.isdecimal of one character (re's \d).
pub fn is_decimal(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_digit()
    } else {
        in_table(&pytables::DECIMAL, c)
    }
}

/// str.isdigit of one character.
pub fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_digit()
    } else {
        in_table(&pytables::DIGIT, c)
    }
}

/// str.isalnum of one character.
pub fn is_alnum(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric()
    } else {
        in_table(&pytables::ALPHA, c)
            || in_table(&pytables::DECIMAL, c)
            || in_table(&pytables::DIGIT, c)
            || in_table(&pytables::NUMERIC, c)
    }
}

/// str.isspace of one character.
pub fn is_space(c: char) -> bool {
    if c.is_ascii() {
        matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c' | '\x1c'..='\x1f')
    } else {
        in_table(&pytables::SPACE, c)
    }
}

pub fn is_upper(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_uppercase()
    } else {
        in_table(&pytables::UPPER, c)
    }
}

pub fn is_lower(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_lowercase()
    } else {
        in_table(&pytables::LOWER, c)
    }
}

fn is_title(c: char) -> bool {
    !c.is_ascii() && in_table(&pytables::TITLE, c)
}

/// A letter of a context word: re's [^\W\d_] (alphanumeric, not a decimal digit, not _).
pub fn is_word_letter(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        is_alnum(c) && !is_decimal(c)
    }
}

/// str.isdigit of a string: not empty, every character a digit.
pub fn all_digit(s: &[char]) -> bool {
    !s.is_empty() && s.iter().all(|&c| is_digit(c))
}

pub fn all_alpha(s: &[char]) -> bool {
    !s.is_empty() && s.iter().all(|&c| is_alpha(c))
}

pub fn all_alnum(s: &[char]) -> bool {
    !s.is_empty() && s.iter().all(|&c| is_alnum(c))
}

/// str.isupper of a string: a cased character and none lower or title case.
pub fn str_isupper(s: &[char]) -> bool {
    let mut cased = false;
    for &c in s {
        if is_lower(c) || is_title(c) {
            return false;
        }
        if is_upper(c) {
            cased = true;
        }
    }
    cased
}

/// str.lower (full mappings, as CPython applies them outside the final sigma rule).
pub fn lower(s: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

pub fn eq(s: &[char], lit: &str) -> bool {
    s.len() == lit.len() && s.iter().zip(lit.bytes()).all(|(&c, b)| c as u32 == b as u32)
}

pub fn starts_with(s: &[char], lit: &str) -> bool {
    s.len() >= lit.len() && eq(&s[..lit.len()], lit)
}

pub fn ends_with(s: &[char], lit: &str) -> bool {
    s.len() >= lit.len() && eq(&s[s.len() - lit.len()..], lit)
}

pub fn contains(s: &[char], lit: &str) -> bool {
    find(s, lit, 0, s.len()).is_some()
}

/// str.find of an ASCII literal in s[lo..hi].
pub fn find(s: &[char], lit: &str, lo: usize, hi: usize) -> Option<usize> {
    let n = lit.len();
    if hi < lo + n {
        return None;
    }
    (lo..=hi - n).find(|&i| eq(&s[i..i + n], lit))
}

/// str.rfind of an ASCII literal in s[lo..hi].
pub fn rfind(s: &[char], lit: &str, lo: usize, hi: usize) -> Option<usize> {
    let n = lit.len();
    if hi < lo + n {
        return None;
    }
    (lo..=hi - n).rev().find(|&i| eq(&s[i..i + n], lit))
}

pub fn to_string(s: &[char]) -> String {
    s.iter().collect()
}

/// A text as Python sees it: code points, and the map from the UTF-8 offsets the regexes
/// report to code point offsets (None for ASCII, where they are the same).
pub struct Text {
    pub c: Vec<char>,
    b2c: Option<Vec<u32>>,
}

impl Text {
    pub fn new(s: &str) -> Self {
        if s.is_ascii() {
            Text { c: s.bytes().map(|b| b as char).collect(), b2c: None }
        } else {
            let mut c = Vec::with_capacity(s.len());
            let mut b2c = vec![0u32; s.len() + 1];
            for (i, (b, ch)) in s.char_indices().enumerate() {
                for k in 0..ch.len_utf8() {
                    b2c[b + k] = i as u32;
                }
                c.push(ch);
            }
            b2c[s.len()] = c.len() as u32;
            Text { c, b2c: Some(b2c) }
        }
    }

    /// The code point offset of a UTF-8 offset (on a character boundary).
    #[inline]
    pub fn ci(&self, byte: usize) -> usize {
        match &self.b2c {
            None => byte,
            Some(map) => map[byte] as usize,
        }
    }

    pub fn len(&self) -> usize {
        self.c.len()
    }

    /// text[a:b] with Python's clamping (a, b >= 0).
    pub fn sl(&self, a: usize, b: usize) -> &[char] {
        let n = self.c.len();
        let b = b.min(n);
        let a = a.min(b);
        &self.c[a..b]
    }

    pub fn at(&self, i: usize) -> Option<char> {
        self.c.get(i).copied()
    }
}

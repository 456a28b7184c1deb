//! Just enough of Python's json.loads (the C scanner, strict) to tell whether a text is one
//! JSON object holding the key "alg" or "typ": same grammar, same extensions (NaN,
//! Infinity, -Infinity), same whitespace, lone surrogates allowed in escapes.

struct Parser<'a> {
    s: &'a [char],
    depth: usize,
}

fn ws(s: &[char], mut i: usize) -> usize {
    while i < s.len() && matches!(s[i], ' ' | '\t' | '\n' | '\r') {
        i += 1;
    }
    i
}

impl Parser<'_> {
    fn lit(&self, i: usize, lit: &str) -> bool {
        crate::chars::starts_with(&self.s[i.min(self.s.len())..], lit)
    }

    /// A value at i: the index after it, and for an object whether it names alg or typ.
    fn value(&mut self, i: usize) -> Option<(usize, bool)> {
        let c = *self.s.get(i)?;
        match c {
            '"' => self.string(i + 1).map(|(e, _)| (e, false)),
            '{' => self.object(i + 1),
            '[' => self.array(i + 1),
            'n' if self.lit(i, "null") => Some((i + 4, false)),
            't' if self.lit(i, "true") => Some((i + 4, false)),
            'f' if self.lit(i, "false") => Some((i + 5, false)),
            'N' if self.lit(i, "NaN") => Some((i + 3, false)),
            'I' if self.lit(i, "Infinity") => Some((i + 8, false)),
            '-' if self.lit(i, "-Infinity") => Some((i + 9, false)),
            _ => self.number(i).map(|e| (e, false)),
        }
    }

    fn number(&self, mut i: usize) -> Option<usize> {
        let s = self.s;
        let digit = |j: usize| j < s.len() && s[j].is_ascii_digit();
        if i < s.len() && s[i] == '-' {
            i += 1;
        }
        if i < s.len() && ('1'..='9').contains(&s[i]) {
            i += 1;
            while digit(i) {
                i += 1;
            }
        } else if i < s.len() && s[i] == '0' {
            i += 1;
        } else {
            return None;
        }
        if i < s.len() && s[i] == '.' && digit(i + 1) {
            i += 2;
            while digit(i) {
                i += 1;
            }
        }
        if i < s.len() && (s[i] == 'e' || s[i] == 'E') {
            let mut j = i + 1;
            if j < s.len() && (s[j] == '-' || s[j] == '+') {
                j += 1;
            }
            if digit(j) {
                while digit(j) {
                    j += 1;
                }
                i = j;
            }
        }
        Some(i)
    }

    /// A string's body from i (after the quote): the index after the closing quote and
    /// its value (surrogates as U+FFFD).
    fn string(&self, mut i: usize) -> Option<(usize, String)> {
        let s = self.s;
        let mut out = String::new();
        loop {
            let c = *s.get(i)?;
            i += 1;
            match c {
                '"' => return Some((i, out)),
                '\\' => {
                    let e = *s.get(i)?;
                    i += 1;
                    match e {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        '/' => out.push('/'),
                        'b' => out.push('\x08'),
                        'f' => out.push('\x0c'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let hex = |j: usize| -> Option<u32> {
                                if j + 4 > s.len() {
                                    return None;
                                }
                                let mut v = 0u32;
                                for &h in &s[j..j + 4] {
                                    v = v * 16 + h.to_digit(16).filter(|_| h.is_ascii())?;
                                }
                                Some(v)
                            };
                            let mut code = hex(i)?;
                            i += 4;
                            if (0xD800..=0xDBFF).contains(&code)
                                && i + 1 < s.len()
                                && s[i] == '\\'
                                && s[i + 1] == 'u'
                            {
                                let low = hex(i + 2)?;
                                if (0xDC00..=0xDFFF).contains(&low) {
                                    code = 0x10000 + (((code - 0xD800) << 10) | (low - 0xDC00));
                                    i += 6;
                                }
                            }
                            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        }
                        _ => return None,
                    }
                }
                c if (c as u32) < 0x20 => return None,
                c => out.push(c),
            }
        }
    }

    fn object(&mut self, i: usize) -> Option<(usize, bool)> {
        self.depth += 1;
        if self.depth > 900 {
            return None;
        }
        let s = self.s;
        let mut named = false;
        let mut i = ws(s, i);
        if s.get(i) == Some(&'}') {
            self.depth -= 1;
            return Some((i + 1, false));
        }
        loop {
            if s.get(i) != Some(&'"') {
                return None;
            }
            let (after, key) = self.string(i + 1)?;
            named |= key == "alg" || key == "typ";
            i = ws(s, after);
            if s.get(i) != Some(&':') {
                return None;
            }
            i = ws(s, i + 1);
            let (after, _) = self.value(i)?;
            i = ws(s, after);
            match s.get(i) {
                Some('}') => {
                    self.depth -= 1;
                    return Some((i + 1, named));
                }
                Some(',') => i = ws(s, i + 1),
                _ => return None,
            }
        }
    }

    fn array(&mut self, i: usize) -> Option<(usize, bool)> {
        self.depth += 1;
        if self.depth > 900 {
            return None;
        }
        let s = self.s;
        let mut i = ws(s, i);
        if s.get(i) == Some(&']') {
            self.depth -= 1;
            return Some((i + 1, false));
        }
        loop {
            let (after, _) = self.value(i)?;
            i = ws(s, after);
            match s.get(i) {
                Some(']') => {
                    self.depth -= 1;
                    return Some((i + 1, false));
                }
                Some(',') => i = ws(s, i + 1),
                _ => return None,
            }
        }
    }
}

/// Whether json.loads(text) is a dict with "alg" or "typ" among its keys.
pub fn object_names_alg_or_typ(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut parser = Parser { s: &chars, depth: 0 };
    let start = ws(&chars, 0);
    if chars.get(start) != Some(&'{') {
        return false;
    }
    match parser.value(start) {
        Some((end, named)) => ws(&chars, end) == chars.len() && named,
        None => false,
    }
}

//! The national identifiers with letters added after the first six (nationalid.rs): their
//! shapes as a compact upper-case string, and their check characters where one exists.
//!
//! | format | shape (compact) | check |
//! |---|---|---|
//! | Finnish personal identity code (HETU) | DDMMYY, century sign, NNN, check | mod 31 |
//! | German pension insurance number (RVNR) | 2 digits, DDMMYY, letter, 2 digits, check | weighted cross sums |
//! | Singapore NRIC / FIN | S, T, F, G or M, 7 digits, letter | weighted mod 11 (S T F G) |
//! | Irish PPS number | 7 digits, a letter, maybe a second | weighted mod 23 |
//! | Chinese resident identity number | 17 digits and X | ISO 7064 mod 11-2 |
//! | Taiwanese national identification number | letter, 1 or 2, 8 digits | weighted mod 10 |
//! | Portuguese citizen card number | 9 digits, 2 letters, digit | doubled alternate values mod 10 |

/// Which new format ``compact`` (upper-case letters and digits) is, with the original
/// ``value``, and whether its check holds (None: none is computed); None when it is none.
pub fn classify(compact: &[u8], value: &[u8]) -> Option<Option<bool>> {
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let upper = |b: u8| b.is_ascii_uppercase();
    match compact.len() {
        // HETU with a century sign of '-' or '+' (dropped from the compact form) or a letter
        10 | 11 if digits(&compact[..6]) && value.len() == 11 && digits(&value[7..10]) => {
            let sign = value[6].to_ascii_uppercase();
            if !matches!(sign, b'-' | b'+' | b'A'..=b'F' | b'U'..=b'Y') {
                return None;
            }
            Some(Some(hetu_ok(&value[..6], &value[7..10], compact[compact.len() - 1])))
        }
        10 if upper(compact[0]) && matches!(compact[1], b'1' | b'2') && digits(&compact[1..]) => {
            Some(Some(taiwan_ok(compact)))
        }
        12 if digits(&compact[..8]) && upper(compact[8]) && digits(&compact[9..]) => {
            Some(Some(rvnr_ok(compact)))
        }
        12 if digits(&compact[..9]) && upper(compact[9]) && upper(compact[10]) => {
            Some(Some(portuguese_ok(compact)))
        }
        9 if matches!(compact[0], b'S' | b'T' | b'F' | b'G' | b'M')
            && digits(&compact[1..8])
            && upper(compact[8]) =>
        {
            Some(nric_ok(compact))
        }
        8 | 9 if digits(&compact[..7]) && compact[7..].iter().all(|&b| upper(b)) => {
            Some(Some(pps_ok(compact)))
        }
        18 if digits(&compact[..17]) && compact[17] == b'X' => Some(Some(ric_ok(compact))),
        _ => None,
    }
}

fn number(s: &[u8]) -> u64 {
    s.iter().fold(0, |n, &b| n * 10 + u64::from(b - b'0'))
}

fn hetu_ok(date: &[u8], serial: &[u8], check: u8) -> bool {
    const CHECKS: &[u8; 31] = b"0123456789ABCDEFHJKLMNPRSTUVWXY";
    CHECKS[((number(date) * 1000 + number(serial)) % 31) as usize] == check
}

fn rvnr_ok(c: &[u8]) -> bool {
    let letter = u32::from(c[8] - b'A' + 1);
    let mut d: Vec<u32> = c[..8].iter().map(|&b| u32::from(b - b'0')).collect();
    d.extend([letter / 10, letter % 10]);
    d.extend(c[9..11].iter().map(|&b| u32::from(b - b'0')));
    const WEIGHTS: [u32; 12] = [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1];
    let sum: u32 = d.iter().zip(WEIGHTS).map(|(x, w)| (x * w) / 10 + (x * w) % 10).sum();
    u32::from(c[11] - b'0') == sum % 10
}

fn nric_ok(c: &[u8]) -> Option<bool> {
    const WEIGHTS: [u32; 7] = [2, 7, 6, 5, 4, 3, 2];
    let sum: u32 = c[1..8].iter().zip(WEIGHTS).map(|(&b, w)| u32::from(b - b'0') * w).sum();
    let (offset, table): (u32, &[u8; 11]) = match c[0] {
        b'S' => (0, b"JZIHGFEDCBA"),
        b'T' => (4, b"JZIHGFEDCBA"),
        b'F' => (0, b"XWUTRQPNMLK"),
        b'G' => (4, b"XWUTRQPNMLK"),
        _ => return None, // M: the series from 2022, whose table is not settled here
    };
    Some(table[((sum + offset) % 11) as usize] == c[8])
}

fn pps_ok(c: &[u8]) -> bool {
    const LETTERS: &[u8; 23] = b"WABCDEFGHIJKLMNOPQRSTUV";
    let mut sum: u32 =
        c[..7].iter().zip((2..=8).rev()).map(|(&b, w)| u32::from(b - b'0') * w).sum();
    if let Some(&second) = c.get(8) {
        match LETTERS.iter().position(|&l| l == second) {
            Some(p) => sum += 9 * p as u32,
            None => return false,
        }
    }
    LETTERS[(sum % 23) as usize] == c[7]
}

fn ric_ok(c: &[u8]) -> bool {
    let sum: u32 = c[..17]
        .iter()
        .enumerate()
        .map(|(i, &b)| u32::from(b - b'0') * ((1u32 << (17 - i)) % 11))
        .sum();
    b"10X98765432"[(sum % 11) as usize] == c[17]
}

fn taiwan_ok(c: &[u8]) -> bool {
    // A=10 ... with I, O, W, X, Y, Z placed apart, as the ministry numbered them
    const CODES: [u32; 26] = [
        10, 11, 12, 13, 14, 15, 16, 17, 34, 18, 19, 20, 21, 22, 35, 23, 24, 25, 26, 27, 28, 29, 32,
        30, 31, 33,
    ];
    let code = CODES[usize::from(c[0] - b'A')];
    let weights = [8, 7, 6, 5, 4, 3, 2, 1, 1];
    let sum: u32 = code / 10
        + (code % 10) * 9
        + c[1..].iter().zip(weights).map(|(&b, w)| u32::from(b - b'0') * w).sum::<u32>();
    sum % 10 == 0
}

fn portuguese_ok(c: &[u8]) -> bool {
    let value = |b: u8| u32::from(if b.is_ascii_digit() { b - b'0' } else { b - b'A' + 10 });
    let cutoff = |x: u32| if x > 9 { x - 9 } else { x };
    let sum: u32 = c[..11]
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &b)| if i % 2 == 0 { cutoff(value(b) * 2) } else { value(b) })
        .sum();
    u32::from(c[11] - b'0') == (10 - sum % 10) % 10
}

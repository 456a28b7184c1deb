//! IPv4 and IPv6 addresses parsed and written in their canonical form, as Python's
//! ipaddress module does.

fn parse_v4(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if s.is_empty() || parts.len() != 4 {
        return None;
    }
    let mut ip = 0u32;
    for p in parts {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) || p.len() > 3 {
            return None;
        }
        if p != "0" && p.starts_with('0') {
            return None;
        }
        let v: u32 = p.parse().ok()?;
        if v > 255 {
            return None;
        }
        ip = (ip << 8) | v;
    }
    Some(ip)
}

fn parse_hextet(s: &str) -> Option<u128> {
    if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u128::from_str_radix(s, 16).ok()
}

fn parse_v6(s: &str) -> Option<u128> {
    if s.is_empty() {
        return None;
    }
    let mut parts: Vec<String> = s.split(':').map(str::to_string).collect();
    if parts.len() < 3 {
        return None;
    }
    if parts.last().unwrap().contains('.') {
        let v4 = parse_v4(&parts.pop().unwrap())?;
        parts.push(format!("{:x}", (v4 >> 16) & 0xFFFF));
        parts.push(format!("{:x}", v4 & 0xFFFF));
    }
    if parts.len() > 9 {
        return None;
    }
    let mut skip: Option<usize> = None;
    for (i, part) in parts.iter().enumerate().take(parts.len() - 1).skip(1) {
        if part.is_empty() {
            if skip.is_some() {
                return None;
            }
            skip = Some(i);
        }
    }
    let (hi, lo, skipped);
    if let Some(si) = skip {
        let mut h = si;
        let mut l = parts.len() - si - 1;
        if parts[0].is_empty() {
            h -= 1;
            if h > 0 {
                return None;
            }
        }
        if parts.last().unwrap().is_empty() {
            l -= 1;
            if l > 0 {
                return None;
            }
        }
        let sk = 8i64 - (h + l) as i64;
        if sk < 1 {
            return None;
        }
        hi = h;
        lo = l;
        skipped = sk as u32;
    } else {
        if parts.len() != 8 || parts[0].is_empty() || parts.last().unwrap().is_empty() {
            return None;
        }
        hi = parts.len();
        lo = 0;
        skipped = 0;
    }
    let mut ip: u128 = 0;
    for p in parts.iter().take(hi) {
        ip = (ip << 16) | parse_hextet(p)?;
    }
    ip = if skipped >= 8 { 0 } else { ip << (16 * skipped) };
    for p in parts.iter().skip(parts.len() - lo) {
        ip = (ip << 16) | parse_hextet(p)?;
    }
    Some(ip)
}

fn v6_string(ip: u128) -> String {
    let hextets: Vec<String> =
        (0..8).rev().map(|i| format!("{:x}", (ip >> (16 * i)) & 0xFFFF)).collect();
    let (mut best_start, mut best_len, mut start, mut len) = (-1i64, 0usize, -1i64, 0usize);
    for (i, h) in hextets.iter().enumerate() {
        if h == "0" {
            len += 1;
            if start == -1 {
                start = i as i64;
            }
            if len > best_len {
                best_len = len;
                best_start = start;
            }
        } else {
            len = 0;
            start = -1;
        }
    }
    let mut out = hextets.clone();
    if best_len > 1 {
        let bs = best_start as usize;
        let be = bs + best_len;
        if be == out.len() {
            out.push(String::new());
        }
        out.splice(bs..be, [String::new()]);
        if bs == 0 {
            out.insert(0, String::new());
        }
    }
    out.join(":")
}

/// An IPv4 or IPv6 address (the stdlib ipaddress rules) in its canonical form; times and
/// ratios (10:30:45) are not shortened addresses.
pub fn ip_key(candidate: &str) -> Option<String> {
    if candidate.contains(':') {
        let colons = candidate.matches(':').count();
        // eight hextets, or six and a dotted IPv4 address
        if !candidate.contains("::") && colons < 7 && !(colons == 6 && candidate.contains('.')) {
            return None;
        }
        if !candidate.bytes().any(|b| b.is_ascii_digit())
            && !candidate.chars().any(crate::chars::is_digit)
        {
            return None;
        }
    }
    if let Some(v4) = parse_v4(candidate) {
        return Some(format!("{}.{}.{}.{}", v4 >> 24, (v4 >> 16) & 255, (v4 >> 8) & 255, v4 & 255));
    }
    if candidate.contains('/') {
        return None;
    }
    // A scope (fe80::1%eth0) is kept as it is, as ipaddress keeps it.
    let (address, scope) = match candidate.split_once('%') {
        None => (candidate, None),
        Some((_, s)) if s.is_empty() || s.contains('%') => return None,
        Some((a, s)) => (a, Some(s)),
    };
    let canonical = v6_string(parse_v6(address)?);
    Some(match scope {
        Some(s) => format!("{canonical}%{s}"),
        None => canonical,
    })
}

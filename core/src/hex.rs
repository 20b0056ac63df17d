//! Base16 (RFC 4648 §8): the one hex implementation, for signatures, fingerprints and
//! percent-escapes.

const LOWER: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of `bytes`.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(LOWER[usize::from(b >> 4)]));
        out.push(char::from(LOWER[usize::from(b & 0x0f)]));
    }
    out
}

/// Fills `out` from `s` (either case); false unless `s` is exactly `2 * out.len()` hex digits.
pub(crate) fn decode_into(s: &str, out: &mut [u8]) -> bool {
    let s = s.as_bytes();
    if s.len() != out.len() * 2 {
        return false;
    }
    for (byte, pair) in out.iter_mut().zip(s.chunks_exact(2)) {
        match (nibble(pair[0]), nibble(pair[1])) {
            (Some(hi), Some(lo)) => *byte = hi << 4 | lo,
            _ => return false,
        }
    }
    true
}

pub(crate) fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

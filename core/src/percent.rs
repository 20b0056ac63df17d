//! Percent-encoding (RFC 3986 §2.1) of path segments and query values: what the router
//! decodes and what the edge writes into the URLs it calls its objects with.

use std::fmt;

use crate::hex::nibble;

/// A `%`-escape is malformed, or what it decodes to is not UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadEscape;

impl fmt::Display for BadEscape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a malformed %-escape")
    }
}

impl std::error::Error for BadEscape {}

/// The first value of `name` in an `application/x-www-form-urlencoded` query, decoded
/// (`+` is a space). `Ok(None)` when absent; an error when its escape is malformed.
pub fn query_param(query: &str, name: &str) -> Option<Result<String, BadEscape>> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(k, _)| decode_form(k).as_deref() == Some(name))
        .map(|(_, v)| decode_form(v).ok_or(BadEscape))
}

/// Percent-encodes `s` for a query value or path segment: everything but RFC 3986's
/// unreserved characters is escaped, so [`query_param`] and [`decode_segment`] read it back.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

fn decode_form(s: &str) -> Option<String> {
    decode_segment(&s.replace('+', " "))
}

/// Decodes `%XX` escapes in one path segment (RFC 3986 §2.1); `None` if an escape is
/// malformed or the result is not UTF-8.
pub fn decode_segment(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            // Two hex digits exactly: from_str_radix alone would also take a sign ("%+f").
            let hex = b.get(i + 1..i + 3)?;
            out.push((nibble(hex[0])? << 4) | nibble(hex[1])?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_encoded_value_decodes_to_itself() {
        for v in ["evt_1", "a b+c&d=e/f", "évt%", ""] {
            let q = format!("id={}", encode_component(v));
            assert_eq!(query_param(&q, "id"), Some(Ok(v.to_owned())), "{v}");
            assert_eq!(decode_segment(&encode_component(v)).as_deref(), Some(v));
        }
    }
}

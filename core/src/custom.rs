//! Any HMAC-SHA256 provider, described as data: which header carries the signature, how it
//! is written, and what was signed. Shopify and Slack are presets of it.
//!
//! - [Shopify]: `X-Shopify-Hmac-Sha256` is the base64 HMAC-SHA256 of the raw body.
//! - [Slack]: `X-Slack-Signature: v0=<hex>` over `v0:{X-Slack-Request-Timestamp}:{body}`.
//!
//! [Shopify]: https://shopify.dev/docs/apps/build/webhooks/subscribe/https#step-2-validate-the-origin-of-your-webhook-to-ensure-its-coming-from-shopify
//! [Slack]: https://api.slack.com/authentication/verifying-requests-from-slack

use std::fmt;

use crate::b64::STANDARD as BASE64;

/// How a signature is written after its prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// Base16, either case (RFC 4648 §8).
    Hex,
    /// Standard base64 with padding (RFC 4648 §4).
    Base64,
}

/// One piece of what is signed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Part {
    /// These bytes, as written in the template.
    Text(String),
    /// The raw body.
    Body,
    /// The timestamp header's value, as sent.
    Timestamp,
    /// The value of a named request header, as sent.
    Header(String),
}

/// A generic HMAC-SHA256 scheme.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HmacSpec {
    /// The header that carries the signature (lower-case).
    pub header: String,
    /// What comes before each signature in it (`sha256=`, `v0=`, or nothing).
    pub prefix: String,
    /// How the MAC is written.
    pub encoding: Encoding,
    /// What is signed, in order.
    pub signed: Vec<Part>,
    /// The header with the signing time in unix seconds, if the provider sends one.
    pub timestamp_header: Option<String>,
    /// What separates several signatures in the header (during a rotation), if anything.
    pub separator: Option<String>,
}

/// Why an HMAC description was refused; the text names what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpecError {
    /// A `{placeholder}` the template does not know.
    UnknownPlaceholder(String),
    /// A `{` without its `}`, or a stray `}`.
    UnbalancedBrace,
    /// `{timestamp}` is signed but no `timestamp_header` is named.
    TimestampWithoutHeader,
    /// The template never includes `{body}`: the body would not be authenticated.
    BodyNotSigned,
    /// A header name that is empty or not a token.
    BadHeaderName(String),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::UnknownPlaceholder(p) => write!(
                f,
                "unknown placeholder {{{p}}}: expected {{body}}, {{timestamp}} or {{header:NAME}}"
            ),
            SpecError::UnbalancedBrace => f.write_str("a { without its }, or a stray }"),
            SpecError::TimestampWithoutHeader => {
                f.write_str("{timestamp} is signed but timestamp_header is not set")
            }
            SpecError::BodyNotSigned => f.write_str("the template must include {body}"),
            SpecError::BadHeaderName(h) if h.is_empty() => f.write_str("a header name is empty"),
            SpecError::BadHeaderName(h) => write!(f, "{h:?} is not a header name"),
        }
    }
}

impl std::error::Error for SpecError {}

/// Whether `name` is an HTTP field name (RFC 9110 §5.1: a token).
pub(crate) fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Parses a template such as `v0:{timestamp}:{body}` or `{header:x-id}.{body}`.
pub fn parse_template(template: &str) -> Result<Vec<Part>, SpecError> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        match c {
            '{' => {
                let end = rest.find('}').ok_or(SpecError::UnbalancedBrace)?;
                let name = &rest[1..end];
                if name.contains('{') {
                    return Err(SpecError::UnbalancedBrace);
                }
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                parts.push(match name {
                    "body" => Part::Body,
                    "timestamp" => Part::Timestamp,
                    _ => match name.strip_prefix("header:") {
                        Some(h) if is_header_name(h) => Part::Header(h.to_ascii_lowercase()),
                        Some(h) => return Err(SpecError::BadHeaderName(h.to_owned())),
                        None => return Err(SpecError::UnknownPlaceholder(name.to_owned())),
                    },
                });
                rest = &rest[end + 1..];
            }
            '}' => return Err(SpecError::UnbalancedBrace),
            c => {
                text.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    if !parts.contains(&Part::Body) {
        return Err(SpecError::BodyNotSigned);
    }
    Ok(parts)
}

impl HmacSpec {
    /// Checks what the parts of a description must agree on.
    pub fn validate(&self) -> Result<(), SpecError> {
        for h in std::iter::once(&self.header).chain(&self.timestamp_header) {
            if !is_header_name(h) {
                return Err(SpecError::BadHeaderName(h.clone()));
            }
        }
        if self.signed.contains(&Part::Timestamp) && self.timestamp_header.is_none() {
            return Err(SpecError::TimestampWithoutHeader);
        }
        if !self.signed.contains(&Part::Body) {
            return Err(SpecError::BodyNotSigned);
        }
        Ok(())
    }

    /// Shopify: `X-Shopify-Hmac-Sha256`, the base64 MAC of the raw body; no timestamp.
    pub fn shopify() -> HmacSpec {
        HmacSpec {
            header: "x-shopify-hmac-sha256".into(),
            prefix: String::new(),
            encoding: Encoding::Base64,
            signed: vec![Part::Body],
            timestamp_header: None,
            separator: None,
        }
    }

    /// Slack: `X-Slack-Signature: v0=<hex>` over `v0:{timestamp}:{body}`.
    pub fn slack() -> HmacSpec {
        HmacSpec {
            header: "x-slack-signature".into(),
            prefix: "v0=".into(),
            encoding: Encoding::Hex,
            signed: vec![
                Part::Text("v0:".into()),
                Part::Timestamp,
                Part::Text(":".into()),
                Part::Body,
            ],
            timestamp_header: Some("x-slack-request-timestamp".into()),
            separator: None,
        }
    }

    /// Every header verification reads.
    pub fn headers(&self) -> Vec<&str> {
        let mut names = vec![self.header.as_str()];
        names.extend(self.timestamp_header.as_deref());
        for part in &self.signed {
            if let Part::Header(h) = part {
                names.push(h);
            }
        }
        names
    }

    /// The headers whose values the MAC covers: the timestamp header where `{timestamp}`
    /// is signed, and each `{header:NAME}`.
    pub fn signed_headers(&self) -> Vec<&str> {
        self.signed
            .iter()
            .filter_map(|part| match part {
                Part::Timestamp => self.timestamp_header.as_deref(),
                Part::Header(h) => Some(h.as_str()),
                Part::Text(_) | Part::Body => None,
            })
            .collect()
    }

    /// The MACs presented in the header value: each entry split by the separator, with the
    /// prefix, decoded. Entries that are not of this form are skipped, not fatal.
    pub(crate) fn presented(&self, value: &str) -> Vec<[u8; 32]> {
        let entries: Vec<&str> = match &self.separator {
            Some(sep) => value.split(sep.as_str()).map(str::trim).collect(),
            None => vec![value.trim()],
        };
        entries
            .into_iter()
            .filter_map(|e| e.strip_prefix(self.prefix.as_str()))
            .filter_map(|tag| self.decode(tag))
            .collect()
    }

    fn decode(&self, tag: &str) -> Option<[u8; 32]> {
        let mut out = [0u8; 32];
        let filled = match self.encoding {
            Encoding::Hex => crate::hex::decode_into(tag, &mut out),
            Encoding::Base64 => BASE64.decode_into(tag, &mut out),
        };
        filled.then_some(out)
    }

    /// Writes a MAC the way the header carries it, prefix included.
    pub(crate) fn encode(&self, tag: &[u8]) -> String {
        let body = match self.encoding {
            Encoding::Hex => crate::hex::encode(tag),
            Encoding::Base64 => BASE64.encode(tag),
        };
        format!("{}{body}", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_name_their_parts() {
        assert_eq!(
            parse_template("v0:{timestamp}:{body}").unwrap(),
            HmacSpec::slack().signed
        );
        assert_eq!(
            parse_template("{header:X-Id}.{timestamp}.{body}").unwrap(),
            vec![
                Part::Header("x-id".into()),
                Part::Text(".".into()),
                Part::Timestamp,
                Part::Text(".".into()),
                Part::Body
            ]
        );
    }

    #[test]
    fn a_bad_template_says_what_is_wrong() {
        assert_eq!(
            parse_template("{ts}.{body}"),
            Err(SpecError::UnknownPlaceholder("ts".into()))
        );
        assert_eq!(parse_template("{body"), Err(SpecError::UnbalancedBrace));
        assert_eq!(parse_template("body}"), Err(SpecError::UnbalancedBrace));
        assert_eq!(parse_template("{timestamp}"), Err(SpecError::BodyNotSigned));
        assert_eq!(
            parse_template("{header:}{body}"),
            Err(SpecError::BadHeaderName(String::new()))
        );
    }

    #[test]
    fn several_signatures_in_one_header_are_all_read() {
        let spec = HmacSpec {
            separator: Some(",".into()),
            prefix: "sha256=".into(),
            ..HmacSpec::shopify()
        };
        let a = BASE64.encode([1u8; 32]);
        let b = BASE64.encode([2u8; 32]);
        let got = spec.presented(&format!("sha256={a}, junk, sha256={b}"));
        assert_eq!(got, vec![[1u8; 32], [2u8; 32]]);
    }
}

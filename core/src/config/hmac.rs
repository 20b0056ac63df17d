//! A generic HMAC source's `hmac` table, read into an [`HmacSpec`].

use serde_json::Value;

use crate::custom::{is_header_name, parse_template, Encoding, HmacSpec, Part, SpecError};

use super::{ConfigError, FieldError, Reader};

/// `hmac = { header, prefix, encoding, signed, timestamp_header, separator }`.
pub(super) fn parse_hmac(at: &str, value: &Value) -> Result<HmacSpec, ConfigError> {
    let mut r = Reader::new(at.to_owned(), value)?;
    let header = |r: &mut Reader, key: &'static str| -> Result<Option<String>, ConfigError> {
        match r.string(key)? {
            None => Ok(None),
            Some(h) if is_header_name(h) => Ok(Some(h.to_ascii_lowercase())),
            Some(_) => Err(r.invalid(key, "expected a header name")),
        }
    };
    let name = header(&mut r, "header")?.ok_or_else(|| ConfigError::Missing(r.path("header")))?;
    let prefix = r.string("prefix")?.unwrap_or("").to_owned();
    let encoding = match r.string("encoding")? {
        None | Some("hex") => Encoding::Hex,
        Some("base64") => Encoding::Base64,
        Some(_) => return Err(r.invalid("encoding", "expected hex or base64")),
    };
    let signed = match r.string("signed")? {
        None => vec![Part::Body],
        Some(t) => parse_template(t).map_err(|e| r.refused("signed", FieldError::Spec(e)))?,
    };
    let timestamp_header = header(&mut r, "timestamp_header")?;
    let separator = match r.string("separator")? {
        None => None,
        Some("") => return Err(r.invalid("separator", "expected a non-empty string")),
        Some(s) => Some(s.to_owned()),
    };
    r.finish()?;
    let spec = HmacSpec {
        header: name,
        prefix,
        encoding,
        signed,
        timestamp_header,
        separator,
    };
    spec.validate().map_err(|e| match e {
        SpecError::TimestampWithoutHeader => {
            ConfigError::Invalid(format!("{at}.timestamp_header"), FieldError::Spec(e))
        }
        _ => ConfigError::Invalid(at.to_owned(), FieldError::Spec(e)),
    })?;
    Ok(spec)
}

//! Reading what the user gives: bodies, headers, secrets, URLs, the clock.

use std::io::Read as _;
use std::path::Path;
use std::time::SystemTime;

use anyhow::{bail, Context as _, Result};
use hookonce_core::time::UnixSeconds;
use hookonce_core::verify::{Scheme, Secret};

use crate::args::scheme_name;

/// The bytes of FILE, or of standard input for `-` or no FILE, exactly as they are: a
/// signature covers every byte, a trailing newline included.
pub fn body(file: Option<&Path>) -> Result<Vec<u8>> {
    match file {
        Some(p) if p != Path::new("-") => {
            std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))
        }
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .context("cannot read the body from standard input")?;
            Ok(buf)
        }
    }
}

/// `Name: value` into a pair; the name is kept as given (lookups are case-insensitive).
pub fn header(s: &str) -> Result<(String, String)> {
    let Some((name, value)) = s.split_once(':') else {
        bail!("header {s:?} is not 'Name: value'");
    };
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        bail!("header {s:?} has no valid name before the colon");
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// A secret in the scheme's format, or an error that says what that format is.
pub fn secret(scheme: &Scheme, s: &str) -> Result<Secret> {
    scheme.parse_secret(s).map_err(|e| {
        let expected = match scheme {
            Scheme::StandardWebhooks => {
                "whsec_ followed by the base64 of the key, as the provider shows it"
            }
            _ => "a non-empty string",
        };
        anyhow::anyhow!(
            "--secret is not a {} secret ({e}): expected {expected}",
            scheme_name(scheme)
        )
    })
}

/// Seconds since the Unix epoch.
pub fn now() -> UnixSeconds {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    UnixSeconds(i64::try_from(secs).unwrap_or(i64::MAX))
}

/// A base URL without its trailing slash, checked to be http(s).
pub fn base_url(url: &str) -> Result<String> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        bail!("{url:?} is not a URL: expected http://HOST:PORT or https://HOST");
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// One path segment or query value, %-escaped (RFC 3986 §2.3 unreserved characters stay).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A fresh random id, e.g. `evt_5f1c0a9e2b7d4c13`.
pub fn fresh_id(prefix: &str) -> String {
    format!("{prefix}_{:016x}", fastrand::u64(..))
}

/// An RFC 3339 UTC time, e.g. `2026-10-06T07:06:30Z`.
pub fn rfc3339(t: UnixSeconds) -> String {
    let secs = u64::try_from(t.0).unwrap_or(0);
    humantime::format_rfc3339_seconds(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_split_at_the_first_colon() {
        assert_eq!(
            header("webhook-timestamp: 1614265330").unwrap(),
            ("webhook-timestamp".into(), "1614265330".into())
        );
        assert_eq!(header("Stripe-Signature:t=1,v1=ab").unwrap().1, "t=1,v1=ab");
        assert!(header("no colon").is_err());
        assert!(header(": value").is_err());
    }

    #[test]
    fn escaping_keeps_unreserved_characters_only() {
        assert_eq!(escape("evt_1-a.b~c"), "evt_1-a.b~c");
        assert_eq!(escape("a/b c?d"), "a%2Fb%20c%3Fd");
        assert_eq!(escape("é"), "%C3%A9");
    }

    #[test]
    fn a_bad_standard_webhooks_secret_says_what_is_expected() {
        let e = secret(&Scheme::StandardWebhooks, "whsec_not base64!").unwrap_err();
        assert!(
            e.to_string().contains("whsec_ followed by the base64"),
            "{e}"
        );
        assert!(secret(&Scheme::GitHub, "").is_err());
        assert!(secret(&Scheme::GitHub, "It's a Secret to Everybody").is_ok());
    }

    #[test]
    fn base_urls_lose_their_trailing_slash_and_must_be_http() {
        assert_eq!(
            base_url("http://127.0.0.1:8787/").unwrap(),
            "http://127.0.0.1:8787"
        );
        assert!(base_url("127.0.0.1:8787").is_err());
    }

    #[test]
    fn rfc3339_is_utc_to_the_second() {
        assert_eq!(rfc3339(UnixSeconds(1_791_244_805)), "2026-10-06T00:00:05Z");
    }
}

//! `sign` and `verify`: core's signing and verification, from the terminal.

use std::process::ExitCode;

use anyhow::{bail, Result};
use hookonce_core::sign;
use hookonce_core::time::{Seconds, UnixSeconds};
use hookonce_core::verify::{Scheme, Verifier, VerifyError};
use serde_json::{json, Map, Value};

use crate::args::{scheme_name, Format, SignArgs, VerifyArgs};
use crate::input;

pub fn sign(a: SignArgs, json: bool) -> Result<ExitCode> {
    let secret = input::secret(&a.scheme, &a.secret)?;
    let body = input::body(a.file.as_deref())?;
    let id = a.id.unwrap_or_else(|| input::fresh_id("msg"));
    let ts = a.timestamp.map_or_else(input::now, UnixSeconds);
    if ts.0 < 0 {
        bail!("--timestamp must not be negative: verifiers reject it");
    }
    let headers = sign::headers(&a.scheme, &secret, &id, ts, &body);
    let format = if json { Format::Json } else { a.format };
    match format {
        Format::Headers => {
            for (k, v) in &headers {
                println!("{k}: {v}");
            }
        }
        Format::Json => {
            let map: Map<String, Value> = headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), json!(v)))
                .collect();
            println!("{}", Value::Object(map));
        }
        Format::Curl => {
            let Some(url) = a.url else {
                bail!(
                    "--format curl needs --url, the delivery URL, e.g. http://127.0.0.1:8787/webhooks/cockpit"
                );
            };
            println!("{}", curl(&url, &headers, a.file.as_deref(), &body)?);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A shell-quoted curl command posting `body` with `headers`; a body from a file is
/// referenced by path, so the bytes curl sends are the bytes that were signed.
fn curl(
    url: &str,
    headers: &[(&str, String)],
    file: Option<&std::path::Path>,
    body: &[u8],
) -> Result<String> {
    let mut cmd = format!("curl -sS -i {}", quote(url));
    cmd.push_str(" \\\n  -H 'content-type: application/json'");
    for (k, v) in headers {
        cmd.push_str(&format!(" \\\n  -H {}", quote(&format!("{k}: {v}"))));
    }
    match file.filter(|p| *p != std::path::Path::new("-")) {
        Some(p) => cmd.push_str(&format!(
            " \\\n  --data-binary {}",
            quote(&format!("@{}", p.display()))
        )),
        None => {
            let Ok(text) = std::str::from_utf8(body) else {
                bail!("the body is not UTF-8; pass it as a FILE so curl can send it with @FILE");
            };
            cmd.push_str(&format!(" \\\n  --data-binary {}", quote(text)));
        }
    }
    Ok(cmd)
}

/// POSIX single-quoting: `'` becomes `'\''`.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

pub fn verify(a: VerifyArgs, json: bool) -> Result<ExitCode> {
    let secrets = a
        .secret
        .iter()
        .map(|s| input::secret(&a.scheme, s))
        .collect::<Result<Vec<_>>>()?;
    let headers = a
        .headers
        .iter()
        .map(|h| input::header(h))
        .collect::<Result<Vec<_>>>()?;
    let body = input::body(a.file.as_deref())?;
    let now = a.now.map_or_else(input::now, UnixSeconds);
    let tolerance = a
        .tolerance
        .map_or_else(|| a.scheme.default_tolerance(), Seconds);
    let verifier = Verifier::new(a.scheme.clone(), secrets, tolerance)?;
    let scheme = scheme_name(&a.scheme);
    match verifier.verify(&headers, &body, now) {
        Ok(v) => {
            if json {
                println!(
                    "{}",
                    json!({
                        "valid": true,
                        "scheme": scheme,
                        "signed_at": v.signed_at().map(|t| t.0),
                        "webhook_id": v.webhook_id(),
                    })
                );
            } else {
                let mut line = format!("valid: {scheme} signature");
                if let Some(t) = v.signed_at() {
                    line.push_str(&format!(", signed at {t} ({})", input::rfc3339(t)));
                }
                if let Some(id) = v.webhook_id() {
                    line.push_str(&format!(", webhook-id {id}"));
                }
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let hint = hint(&e, &a.scheme, &headers, now, tolerance);
            if json {
                println!(
                    "{}",
                    json!({
                        "valid": false,
                        "scheme": scheme,
                        "reason": e.reason(),
                        "detail": e.to_string(),
                        "hint": hint,
                    })
                );
            } else {
                println!("invalid: {e}");
                if let Some(h) = hint {
                    println!("  {h}");
                }
            }
            Ok(ExitCode::FAILURE)
        }
    }
}

/// What to try next, where the reason alone does not say.
fn hint(
    e: &VerifyError,
    scheme: &Scheme,
    headers: &[(String, String)],
    now: UnixSeconds,
    tolerance: Seconds,
) -> Option<String> {
    match e {
        VerifyError::TimestampTooOld | VerifyError::TimestampInFuture => Some(format!(
            "now is {now}, the tolerance {tolerance}; to check a captured delivery, pass --now with the time it arrived"
        )),
        VerifyError::MissingHeader(_) => Some(format!(
            "{} reads the headers {}; pass each as --header 'Name: value' (given: {})",
            scheme_name(scheme),
            scheme.headers().join(", "),
            if headers.is_empty() {
                "none".to_owned()
            } else {
                headers
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )),
        VerifyError::NoSignatureMatches => Some(
            "the body, the secret or a signed header differs from what was signed (a trailing newline counts)"
                .to_owned(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(quote("It's"), r"'It'\''s'");
    }

    #[test]
    fn curl_references_a_file_body_by_path() {
        let h = vec![("x-hub-signature-256", "sha256=00".to_owned())];
        let c = curl("http://h/webhooks/g", &h, Some("ev.json".as_ref()), b"{}").unwrap();
        assert!(c.contains("--data-binary '@ev.json'"), "{c}");
        let c = curl("http://h/webhooks/g", &h, None, b"{\"a\":1}").unwrap();
        assert!(c.contains("--data-binary '{\"a\":1}'"), "{c}");
        assert!(curl("http://h", &h, None, &[0xff]).is_err());
    }
}

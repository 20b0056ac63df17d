//! [`Verifier::verify`]: the one way to a [`Verified`] body.

use std::fmt;

use hmac::Mac;

use crate::b64::STANDARD as BASE64;
use crate::custom::{HmacSpec, Part};
use crate::time::{Seconds, UnixSeconds};

use super::error::VerifyError;
use super::headers::Headers;
use super::mac::{github_mac, keyed_mac, standard_webhooks_mac, stripe_mac, HmacSha256, TAG_LEN};
use super::scheme::{
    Scheme, Secret, GITHUB_SIGNATURE, STRIPE_SIGNATURE, WEBHOOK_ID, WEBHOOK_SIGNATURE,
    WEBHOOK_TIMESTAMP,
};

/// Checks incoming webhooks of one [`Scheme`] against a set of secrets.
#[derive(Clone, Debug)]
pub struct Verifier {
    scheme: Scheme,
    secrets: Vec<Secret>,
    tolerance: Seconds,
}

impl Verifier {
    /// A verifier accepting a signature by any of `secrets` (more than one during a rotation).
    ///
    /// `tolerance` bounds how far the signed timestamp may be from `now`, either way.
    pub fn new(
        scheme: Scheme,
        secrets: Vec<Secret>,
        tolerance: Seconds,
    ) -> Result<Verifier, VerifyError> {
        if secrets.is_empty() {
            return Err(VerifyError::NoSecrets);
        }
        Ok(Verifier {
            scheme,
            secrets,
            tolerance,
        })
    }

    /// The scheme this verifier checks.
    pub fn scheme(&self) -> &Scheme {
        &self.scheme
    }

    /// Checks that `body` carries a valid signature in `headers`, signed within the tolerance
    /// of `now`. Never parses `body`.
    pub fn verify<'b, K: AsRef<str>, V: AsRef<str>>(
        &self,
        headers: &[(K, V)],
        body: &'b [u8],
        now: UnixSeconds,
    ) -> Result<Verified<'b>, VerifyError> {
        match &self.scheme {
            Scheme::StandardWebhooks => self.verify_standard_webhooks(headers, body, now),
            Scheme::Stripe => self.verify_stripe(headers, body, now),
            Scheme::GitHub => self.verify_github(headers, body),
            scheme @ (Scheme::Shopify | Scheme::Slack | Scheme::Hmac(_)) => match scheme.spec() {
                Some(spec) => self.verify_hmac(spec, headers, body, now),
                None => Err(VerifyError::NoSignatureMatches),
            },
        }
    }

    fn verify_standard_webhooks<'b, K: AsRef<str>, V: AsRef<str>>(
        &self,
        headers: &[(K, V)],
        body: &'b [u8],
        now: UnixSeconds,
    ) -> Result<Verified<'b>, VerifyError> {
        let id = require(headers, WEBHOOK_ID)?;
        let ts_raw = require(headers, WEBHOOK_TIMESTAMP)?;
        let sig_header = require(headers, WEBHOOK_SIGNATURE)?;
        if id.is_empty() {
            return Err(VerifyError::MalformedHeader(WEBHOOK_ID.into()));
        }
        let ts = parse_timestamp(ts_raw)
            .ok_or(VerifyError::MalformedHeader(WEBHOOK_TIMESTAMP.into()))?;
        check_tolerance(ts, now, self.tolerance)?;

        // Space-separated `version,base64`; only v1 (HMAC-SHA256) is ours. Anything else,
        // including v1a (ed25519) and undecodable entries, is skipped rather than fatal.
        let presented: Vec<[u8; TAG_LEN]> = sig_header
            .split(' ')
            .filter_map(|entry| entry.split_once(','))
            .filter(|&(version, _)| version == "v1")
            .filter_map(|(_, sig)| decode_base64_tag(sig))
            .collect();

        self.any_secret_matches(&presented, |secret| {
            standard_webhooks_mac(secret, id, ts_raw, body)
        })?;
        Ok(Verified {
            body,
            signed_at: Some(ts),
            scheme: self.scheme.clone(),
            webhook_id: Some(id.to_owned()),
        })
    }

    fn verify_stripe<'b, K: AsRef<str>, V: AsRef<str>>(
        &self,
        headers: &[(K, V)],
        body: &'b [u8],
        now: UnixSeconds,
    ) -> Result<Verified<'b>, VerifyError> {
        let header = require(headers, STRIPE_SIGNATURE)?;
        let malformed = VerifyError::MalformedHeader(STRIPE_SIGNATURE.into());

        let mut ts_raw = None;
        let mut presented = Vec::new();
        for item in header.split(',') {
            let Some((key, value)) = item.trim().split_once('=') else {
                continue;
            };
            match key {
                // Two timestamps would make "what was signed" ambiguous.
                "t" if ts_raw.is_some() => return Err(malformed),
                "t" => ts_raw = Some(value),
                "v1" => presented.extend(decode_hex_tag(value)),
                // v0 is Stripe's test-mode scheme; unknown keys are future schemes.
                _ => {}
            }
        }
        let ts_raw = ts_raw.ok_or_else(|| malformed.clone())?;
        let ts = parse_timestamp(ts_raw).ok_or(malformed)?;
        check_tolerance(ts, now, self.tolerance)?;

        self.any_secret_matches(&presented, |secret| stripe_mac(secret, ts_raw, body))?;
        Ok(Verified {
            body,
            signed_at: Some(ts),
            scheme: self.scheme.clone(),
            webhook_id: None,
        })
    }

    fn verify_github<'b, K: AsRef<str>, V: AsRef<str>>(
        &self,
        headers: &[(K, V)],
        body: &'b [u8],
    ) -> Result<Verified<'b>, VerifyError> {
        let header = require(headers, GITHUB_SIGNATURE)?;
        let tag = header
            .strip_prefix("sha256=")
            .and_then(decode_hex_tag)
            .ok_or(VerifyError::MalformedHeader(GITHUB_SIGNATURE.into()))?;

        self.any_secret_matches(&[tag], |secret| github_mac(secret, body))?;
        Ok(Verified {
            body,
            signed_at: None,
            scheme: self.scheme.clone(),
            webhook_id: None,
        })
    }

    fn verify_hmac<'b, K: AsRef<str>, V: AsRef<str>>(
        &self,
        spec: &HmacSpec,
        headers: &[(K, V)],
        body: &'b [u8],
        now: UnixSeconds,
    ) -> Result<Verified<'b>, VerifyError> {
        let header = headers
            .header(&spec.header)
            .ok_or_else(|| VerifyError::MissingHeader(String::from(&spec.header)))?;
        let signed_at = match &spec.timestamp_header {
            None => None,
            Some(name) => {
                let raw = headers
                    .header(name)
                    .ok_or_else(|| VerifyError::MissingHeader(String::from(name)))?;
                let ts = parse_timestamp(raw)
                    .ok_or_else(|| VerifyError::MalformedHeader(String::from(name)))?;
                check_tolerance(ts, now, self.tolerance)?;
                Some((ts, raw))
            }
        };
        let mut parts: Vec<&[u8]> = Vec::with_capacity(spec.signed.len());
        for part in &spec.signed {
            parts.push(match part {
                Part::Text(t) => t.as_bytes(),
                Part::Body => body,
                Part::Timestamp => signed_at.map_or(&b""[..], |(_, raw)| raw.as_bytes()),
                Part::Header(h) => headers
                    .header(h)
                    .ok_or_else(|| VerifyError::MissingHeader(String::from(h)))?
                    .as_bytes(),
            });
        }
        let presented = spec.presented(header);
        self.any_secret_matches(&presented, |secret| keyed_mac(secret, &parts))?;
        Ok(Verified {
            body,
            signed_at: signed_at.map(|(ts, _)| ts),
            scheme: self.scheme.clone(),
            webhook_id: None,
        })
    }

    /// Hashes the body once per secret and compares that MAC against every presented tag,
    /// in constant time (`verify_slice`): O(secrets) body hashes, not O(secrets × tags).
    fn any_secret_matches(
        &self,
        presented: &[[u8; TAG_LEN]],
        mac_for: impl Fn(&Secret) -> HmacSha256,
    ) -> Result<(), VerifyError> {
        if presented.is_empty() {
            return Err(VerifyError::NoSignatureMatches);
        }
        for secret in &self.secrets {
            let mac = mac_for(secret);
            if presented
                .iter()
                .any(|tag| mac.clone().verify_slice(tag).is_ok())
            {
                return Ok(());
            }
        }
        Err(VerifyError::NoSignatureMatches)
    }
}

/// Proof that `body` carried a valid signature. Fields are private and the only constructor
/// is [`Verifier::verify`] (the pattern of rustls' `HandshakeSignatureValid`).
pub struct Verified<'b> {
    body: &'b [u8],
    signed_at: Option<UnixSeconds>,
    scheme: Scheme,
    webhook_id: Option<String>,
}

impl<'b> Verified<'b> {
    /// The authenticated raw body.
    pub fn body(&self) -> &'b [u8] {
        self.body
    }

    /// The signed timestamp; `None` for GitHub, which signs none.
    pub fn signed_at(&self) -> Option<UnixSeconds> {
        self.signed_at
    }

    /// The scheme that verified the body.
    pub fn scheme(&self) -> &Scheme {
        &self.scheme
    }

    /// The Standard Webhooks `webhook-id`, which is covered by the signature. `None` for
    /// other schemes: their delivery-id headers are unsigned, so not trustworthy here.
    pub fn webhook_id(&self) -> Option<&str> {
        self.webhook_id.as_deref()
    }
}

impl fmt::Debug for Verified<'_> {
    // The body can be large; its length is what a log line needs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verified")
            .field("scheme", &self.scheme)
            .field("signed_at", &self.signed_at)
            .field("webhook_id", &self.webhook_id)
            .field("body_len", &self.body.len())
            .finish()
    }
}

fn require<'h, K: AsRef<str>, V: AsRef<str>>(
    headers: &'h [(K, V)],
    name: &'static str,
) -> Result<&'h str, VerifyError> {
    headers
        .header(name)
        .ok_or_else(|| VerifyError::MissingHeader(name.into()))
}

/// Decimal unix seconds, digits only: no sign, no whitespace, no fraction.
fn parse_timestamp(s: &str) -> Option<UnixSeconds> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().map(UnixSeconds)
}

/// `|now - ts| <= tolerance`, inclusive at the edge; i128 so no input can overflow.
fn check_tolerance(
    ts: UnixSeconds,
    now: UnixSeconds,
    tolerance: Seconds,
) -> Result<(), VerifyError> {
    let age = i128::from(now.0) - i128::from(ts.0);
    let tolerance = i128::from(tolerance.0);
    if age > tolerance {
        Err(VerifyError::TimestampTooOld)
    } else if -age > tolerance {
        Err(VerifyError::TimestampInFuture)
    } else {
        Ok(())
    }
}

fn decode_base64_tag(s: &str) -> Option<[u8; TAG_LEN]> {
    let mut tag = [0u8; TAG_LEN];
    BASE64.decode_into(s, &mut tag).then_some(tag)
}

fn decode_hex_tag(s: &str) -> Option<[u8; TAG_LEN]> {
    let mut tag = [0u8; TAG_LEN];
    crate::hex::decode_into(s, &mut tag).then_some(tag)
}

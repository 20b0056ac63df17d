//! Signature verification of incoming webhooks, over the raw body bytes.
//!
//! Three schemes, all HMAC-SHA256 ([RFC 2104]): [Standard Webhooks], [Stripe] and [GitHub].
//! A [`Verifier`] holds one scheme and one or more secrets (several during a rotation);
//! [`Verifier::verify`] is the only way to obtain a [`Verified`], so code that takes a
//! `Verified` cannot be handed an unauthenticated body.
//!
//! [RFC 2104]: https://www.rfc-editor.org/rfc/rfc2104
//! [Standard Webhooks]: https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
//! [Stripe]: https://docs.stripe.com/webhooks#verify-manually
//! [GitHub]: https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries

use std::fmt;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::time::{Seconds, UnixSeconds};

const WEBHOOK_ID: &str = "webhook-id";
const WEBHOOK_TIMESTAMP: &str = "webhook-timestamp";
const WEBHOOK_SIGNATURE: &str = "webhook-signature";
const STRIPE_SIGNATURE: &str = "stripe-signature";
const GITHUB_SIGNATURE: &str = "x-hub-signature-256";

/// Prefix Standard Webhooks puts in front of a base64 secret.
const WHSEC_PREFIX: &str = "whsec_";

/// Length of an HMAC-SHA256 tag (FIPS 180-4 §1: SHA-256 digests are 256 bits).
const TAG_LEN: usize = 32;

/// Case-insensitive header lookup (RFC 9110 §5.1: field names are case-insensitive).
pub trait Headers {
    /// The value of the first field named `name`, compared ASCII case-insensitively.
    fn get(&self, name: &str) -> Option<&str>;
}

// The explicit `Headers::get` calls below matter: slices and Vecs have an inherent `get`
// (by index) that would otherwise win method resolution.

impl Headers for [(&str, &str)] {
    fn get(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|&(_, v)| v)
    }
}

impl<const N: usize> Headers for [(&str, &str); N] {
    fn get(&self, name: &str) -> Option<&str> {
        Headers::get(self.as_slice(), name)
    }
}

impl Headers for Vec<(&str, &str)> {
    fn get(&self, name: &str) -> Option<&str> {
        Headers::get(self.as_slice(), name)
    }
}

impl Headers for [(String, String)] {
    fn get(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl Headers for Vec<(String, String)> {
    fn get(&self, name: &str) -> Option<&str> {
        Headers::get(self.as_slice(), name)
    }
}

/// How a provider signs its webhooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scheme {
    /// Standard Webhooks v1 (standardwebhooks.com): `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    #[serde(rename = "standard-webhooks")]
    StandardWebhooks,
    /// Stripe: `Stripe-Signature: t=…,v1=…`.
    #[serde(rename = "stripe")]
    Stripe,
    /// GitHub: `X-Hub-Signature-256: sha256=…`, no timestamp.
    #[serde(rename = "github")]
    GitHub,
}

impl Scheme {
    /// Parses a secret as this scheme's provider displays it.
    ///
    /// - Standard Webhooks: optional `whsec_` prefix, then standard padded base64 of the key.
    /// - Stripe and GitHub: the string's UTF-8 bytes *are* the key (Stripe's `whsec_` included).
    pub fn parse_secret(self, s: &str) -> Result<Secret, VerifyError> {
        let key = match self {
            Scheme::StandardWebhooks => {
                let b64 = s.strip_prefix(WHSEC_PREFIX).unwrap_or(s);
                BASE64
                    .decode(b64)
                    .map_err(|_| VerifyError::MalformedSecret)?
            }
            Scheme::Stripe | Scheme::GitHub => s.as_bytes().to_vec(),
        };
        // An empty HMAC key is a key anyone can sign with.
        if key.is_empty() {
            return Err(VerifyError::MalformedSecret);
        }
        Ok(Secret(key))
    }

    /// The replay window the provider's own libraries use: 5 minutes for Standard Webhooks and
    /// Stripe. GitHub deliveries carry no timestamp, so its tolerance is unused (zero).
    pub fn default_tolerance(self) -> Seconds {
        match self {
            Scheme::StandardWebhooks | Scheme::Stripe => Seconds(300),
            Scheme::GitHub => Seconds(0),
        }
    }
}

/// An HMAC-SHA256 key (RFC 2104 §3). Never printed: `Debug` shows `Secret(<redacted>)`.
///
/// Deliberately not `PartialEq`: comparing keys is never needed and would not be constant-time.
#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

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
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Checks that `body` carries a valid signature in `headers`, signed within the tolerance
    /// of `now`. Never parses `body`.
    pub fn verify<'b, H: Headers + ?Sized>(
        &self,
        headers: &H,
        body: &'b [u8],
        now: UnixSeconds,
    ) -> Result<Verified<'b>, VerifyError> {
        match self.scheme {
            Scheme::StandardWebhooks => self.verify_standard_webhooks(headers, body, now),
            Scheme::Stripe => self.verify_stripe(headers, body, now),
            Scheme::GitHub => self.verify_github(headers, body),
        }
    }

    fn verify_standard_webhooks<'b, H: Headers + ?Sized>(
        &self,
        headers: &H,
        body: &'b [u8],
        now: UnixSeconds,
    ) -> Result<Verified<'b>, VerifyError> {
        let id = require(headers, WEBHOOK_ID)?;
        let ts_raw = require(headers, WEBHOOK_TIMESTAMP)?;
        let sig_header = require(headers, WEBHOOK_SIGNATURE)?;
        if id.is_empty() {
            return Err(VerifyError::MalformedHeader(WEBHOOK_ID));
        }
        let ts = parse_timestamp(ts_raw).ok_or(VerifyError::MalformedHeader(WEBHOOK_TIMESTAMP))?;
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
            scheme: self.scheme,
            webhook_id: Some(id.to_owned()),
        })
    }

    fn verify_stripe<'b, H: Headers + ?Sized>(
        &self,
        headers: &H,
        body: &'b [u8],
        now: UnixSeconds,
    ) -> Result<Verified<'b>, VerifyError> {
        let header = require(headers, STRIPE_SIGNATURE)?;
        let malformed = VerifyError::MalformedHeader(STRIPE_SIGNATURE);

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
            scheme: self.scheme,
            webhook_id: None,
        })
    }

    fn verify_github<'b, H: Headers + ?Sized>(
        &self,
        headers: &H,
        body: &'b [u8],
    ) -> Result<Verified<'b>, VerifyError> {
        let header = require(headers, GITHUB_SIGNATURE)?;
        let tag = header
            .strip_prefix("sha256=")
            .and_then(decode_hex_tag)
            .ok_or(VerifyError::MalformedHeader(GITHUB_SIGNATURE))?;

        self.any_secret_matches(&[tag], |secret| github_mac(secret, body))?;
        Ok(Verified {
            body,
            signed_at: None,
            scheme: self.scheme,
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
    pub fn scheme(&self) -> Scheme {
        self.scheme
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

/// Why a webhook or a secret was refused. Never carries a secret or an expected signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// A required header is absent (its lowercase name).
    MissingHeader(&'static str),
    /// A header is present but unparseable (its lowercase name).
    MalformedHeader(&'static str),
    /// The signed timestamp is further in the past than the tolerance.
    TimestampTooOld,
    /// The signed timestamp is further in the future than the tolerance.
    TimestampInFuture,
    /// No presented signature matches any secret (or none was in a supported version).
    NoSignatureMatches,
    /// A secret is empty or not in the scheme's format.
    MalformedSecret,
    /// A verifier was built without any secret.
    NoSecrets,
}

impl VerifyError {
    /// A stable `snake_case` label for metrics and logs (no header name).
    pub fn reason(&self) -> &'static str {
        match self {
            VerifyError::MissingHeader(_) => "missing_header",
            VerifyError::MalformedHeader(_) => "malformed_header",
            VerifyError::TimestampTooOld => "timestamp_too_old",
            VerifyError::TimestampInFuture => "timestamp_in_future",
            VerifyError::NoSignatureMatches => "no_signature_matches",
            VerifyError::MalformedSecret => "malformed_secret",
            VerifyError::NoSecrets => "no_secrets",
        }
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::MissingHeader(h) => write!(f, "missing header {h}"),
            VerifyError::MalformedHeader(h) => write!(f, "malformed header {h}"),
            VerifyError::TimestampTooOld => {
                f.write_str("timestamp outside the tolerance (too old)")
            }
            VerifyError::TimestampInFuture => {
                f.write_str("timestamp outside the tolerance (in the future)")
            }
            VerifyError::NoSignatureMatches => f.write_str("no signature matches"),
            VerifyError::MalformedSecret => f.write_str("malformed secret"),
            VerifyError::NoSecrets => f.write_str("no secrets configured"),
        }
    }
}

impl std::error::Error for VerifyError {}

fn require<'h, H: Headers + ?Sized>(
    headers: &'h H,
    name: &'static str,
) -> Result<&'h str, VerifyError> {
    Headers::get(headers, name).ok_or(VerifyError::MissingHeader(name))
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
    // 44 padded base64 chars encode 32 bytes; the decoder wants room for its estimate (33).
    if s.len() != 44 {
        return None;
    }
    let mut buf = [0u8; TAG_LEN + 1];
    match BASE64.decode_slice(s, &mut buf) {
        Ok(TAG_LEN) => buf[..TAG_LEN].try_into().ok(),
        _ => None,
    }
}

fn decode_hex_tag(s: &str) -> Option<[u8; TAG_LEN]> {
    let mut tag = [0u8; TAG_LEN];
    hex::decode_into(s, &mut tag).then_some(tag)
}

// ---- HMAC-SHA256, shared with `sign` so signing and verifying are one piece of code ----

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// A MAC keyed by `secret` over the concatenation of `parts`, fed incrementally so the
/// body is never copied.
fn keyed_mac(secret: &Secret, parts: &[&[u8]]) -> HmacSha256 {
    // HMAC takes keys of any length (RFC 2104 §3), so this cannot fail.
    let mut mac = HmacSha256::new_from_slice(&secret.0).expect("HMAC accepts any key length");
    for part in parts {
        mac.update(part);
    }
    mac
}

/// Standard Webhooks signed content: `{id}.{timestamp}.{body}`.
pub(crate) fn standard_webhooks_mac(
    secret: &Secret,
    id: &str,
    timestamp: &str,
    body: &[u8],
) -> HmacSha256 {
    keyed_mac(
        secret,
        &[id.as_bytes(), b".", timestamp.as_bytes(), b".", body],
    )
}

/// Stripe signed payload: `{t}.{body}`.
pub(crate) fn stripe_mac(secret: &Secret, timestamp: &str, body: &[u8]) -> HmacSha256 {
    keyed_mac(secret, &[timestamp.as_bytes(), b".", body])
}

/// GitHub signs the raw body alone.
pub(crate) fn github_mac(secret: &Secret, body: &[u8]) -> HmacSha256 {
    keyed_mac(secret, &[body])
}

/// Base16 (RFC 4648 §8), just what signatures need.
pub(crate) mod hex {
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

    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
}

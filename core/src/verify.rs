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

use crate::b64::{SECRET as SECRET_BASE64, STANDARD as BASE64};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use std::sync::OnceLock;

use crate::custom::{HmacSpec, Part};
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
///
/// One implementation, for any slice of name–value pairs; pass a `Vec` as `&v[..]`. The
/// method is not called `get`, which slices already have (by index).
pub trait Headers {
    /// The value of the first field named `name`, compared ASCII case-insensitively.
    fn header(&self, name: &str) -> Option<&str>;
}

impl<K: AsRef<str>, V: AsRef<str>> Headers for [(K, V)] {
    fn header(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(k, _)| k.as_ref().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_ref())
    }
}

/// How a provider signs its webhooks.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
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
    /// Shopify: the preset [`HmacSpec::shopify`].
    #[serde(rename = "shopify")]
    Shopify,
    /// Slack: the preset [`HmacSpec::slack`].
    #[serde(rename = "slack")]
    Slack,
    /// Any other HMAC-SHA256 provider, described by its source's configuration.
    #[serde(skip)]
    Hmac(Box<HmacSpec>),
}

fn shopify() -> &'static HmacSpec {
    static SPEC: OnceLock<HmacSpec> = OnceLock::new();
    SPEC.get_or_init(HmacSpec::shopify)
}

fn slack() -> &'static HmacSpec {
    static SPEC: OnceLock<HmacSpec> = OnceLock::new();
    SPEC.get_or_init(HmacSpec::slack)
}

impl Scheme {
    /// The HMAC description of a generic scheme or a preset; `None` for the native ones.
    pub fn spec(&self) -> Option<&HmacSpec> {
        match self {
            Scheme::Shopify => Some(shopify()),
            Scheme::Slack => Some(slack()),
            Scheme::Hmac(spec) => Some(spec),
            Scheme::StandardWebhooks | Scheme::Stripe | Scheme::GitHub => None,
        }
    }

    /// The headers this scheme's verification reads, so an adapter can copy just these.
    pub fn headers(&self) -> Vec<&str> {
        match self {
            Scheme::StandardWebhooks => vec![WEBHOOK_ID, WEBHOOK_TIMESTAMP, WEBHOOK_SIGNATURE],
            Scheme::Stripe => vec![STRIPE_SIGNATURE],
            Scheme::GitHub => vec![GITHUB_SIGNATURE],
            Scheme::Shopify | Scheme::Slack | Scheme::Hmac(_) => {
                self.spec().map(HmacSpec::headers).unwrap_or_default()
            }
        }
    }

    /// The request headers whose values the signature covers, besides the body (which
    /// every scheme signs). A field read from any other header is unsigned: whoever holds
    /// one signed body can send it again with another value there.
    pub fn signed_headers(&self) -> Vec<&str> {
        match self {
            Scheme::StandardWebhooks => vec![WEBHOOK_ID, WEBHOOK_TIMESTAMP],
            Scheme::Stripe | Scheme::GitHub => Vec::new(),
            Scheme::Shopify | Scheme::Slack | Scheme::Hmac(_) => self
                .spec()
                .map(HmacSpec::signed_headers)
                .unwrap_or_default(),
        }
    }

    /// Parses a secret as this scheme's provider displays it.
    ///
    /// - Standard Webhooks: optional `whsec_` prefix, then standard base64 of the key, padded
    ///   or not.
    /// - Every other scheme: the string's UTF-8 bytes *are* the key (Stripe's `whsec_`
    ///   included).
    pub fn parse_secret(&self, s: &str) -> Result<Secret, VerifyError> {
        let key = match self {
            Scheme::StandardWebhooks => {
                let b64 = s.strip_prefix(WHSEC_PREFIX).unwrap_or(s);
                SECRET_BASE64
                    .decode(b64)
                    .ok_or(VerifyError::MalformedSecret)?
            }
            _ => s.as_bytes().to_vec(),
        };
        // An empty HMAC key is a key anyone can sign with.
        if key.is_empty() {
            return Err(VerifyError::MalformedSecret);
        }
        Ok(Secret(key))
    }

    /// The replay window the provider's own libraries use: 5 minutes wherever a timestamp
    /// is signed (Standard Webhooks, Stripe, Slack); zero where none is (GitHub, Shopify).
    pub fn default_tolerance(&self) -> Seconds {
        match self {
            Scheme::StandardWebhooks | Scheme::Stripe => Seconds(300),
            Scheme::GitHub => Seconds(0),
            _ => match self.spec().and_then(|s| s.timestamp_header.as_ref()) {
                Some(_) => Seconds(300),
                None => Seconds(0),
            },
        }
    }

    /// The name in configuration (`scheme = "…"`).
    pub fn name(&self) -> &'static str {
        match self {
            Scheme::StandardWebhooks => "standard-webhooks",
            Scheme::Stripe => "stripe",
            Scheme::GitHub => "github",
            Scheme::Shopify => "shopify",
            Scheme::Slack => "slack",
            Scheme::Hmac(_) => "hmac",
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

/// Why a webhook or a secret was refused. Never carries a secret or an expected signature.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyError {
    /// A required header is absent (its lowercase name).
    MissingHeader(String),
    /// A header is present but unparseable (its lowercase name).
    MalformedHeader(String),
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

// ---- HMAC-SHA256, shared with `sign` so signing and verifying are one piece of code ----

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// A MAC keyed by `secret` over the concatenation of `parts`, fed incrementally so the
/// body is never copied.
pub(crate) fn keyed_mac(secret: &Secret, parts: &[&[u8]]) -> HmacSha256 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign;

    // Standard Webhooks reference vector: standard-webhooks/standard-webhooks,
    // libraries/python/tests/test_webhooks.py::test_sign_function (also in the spec's libraries).
    const SW_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const SW_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const SW_TS: i64 = 1_614_265_330;
    const SW_BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SW_SIG: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    // Stripe vector computed independently of this crate, with Python's stdlib:
    //   python3 -c 'import hmac,hashlib; print(hmac.new(b"whsec_hookonce_test_secret",
    //     b"1492774577." + b"{\"id\":\"evt_1\",\"object\":\"event\"}", hashlib.sha256).hexdigest())'
    const STRIPE_SECRET: &str = "whsec_hookonce_test_secret";
    const STRIPE_TS: i64 = 1_492_774_577;
    const STRIPE_BODY: &[u8] = br#"{"id":"evt_1","object":"event"}"#;
    const STRIPE_V1: &str = "f38dab5d1685a8642663451275bd950e8694ddb93ee9636ca36daf28e38d3ad9";

    // GitHub's documented example (docs.github.com, "Validating webhook deliveries").
    const GH_SECRET: &str = "It's a Secret to Everybody";
    const GH_BODY: &[u8] = b"Hello, World!";
    const GH_SIG: &str = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

    fn verifier(scheme: Scheme, secrets: &[&str]) -> Verifier {
        let secrets = secrets
            .iter()
            .map(|s| scheme.parse_secret(s).unwrap())
            .collect();
        {
            let t = scheme.default_tolerance();
            Verifier::new(scheme.clone(), secrets, t)
        }
        .unwrap()
    }

    fn sw_headers<'a>(id: &'a str, ts: &'a str, sig: &'a str) -> [(&'a str, &'a str); 3] {
        [
            ("webhook-id", id),
            ("webhook-timestamp", ts),
            ("webhook-signature", sig),
        ]
    }

    fn sw_verify(sig: &str, body: &[u8], now: i64) -> Result<(), VerifyError> {
        let ts = SW_TS.to_string();
        verifier(Scheme::StandardWebhooks, &[SW_SECRET])
            .verify(&sw_headers(SW_ID, &ts, sig), body, UnixSeconds(now))
            .map(drop)
    }

    fn stripe_verify(header: &str, body: &[u8], now: i64) -> Result<(), VerifyError> {
        verifier(Scheme::Stripe, &[STRIPE_SECRET])
            .verify(&[("stripe-signature", header)], body, UnixSeconds(now))
            .map(drop)
    }

    fn gh_verify(header: &str, body: &[u8]) -> Result<(), VerifyError> {
        verifier(Scheme::GitHub, &[GH_SECRET])
            .verify(&[("x-hub-signature-256", header)], body, UnixSeconds(0))
            .map(drop)
    }

    // ---- known-answer vectors ----

    #[test]
    fn standard_webhooks_reference_vector_is_signed_and_accepted() {
        let secret = Scheme::StandardWebhooks.parse_secret(SW_SECRET).unwrap();
        assert_eq!(
            sign::standard_webhooks(&secret, SW_ID, UnixSeconds(SW_TS), SW_BODY),
            SW_SIG
        );

        let ts = SW_TS.to_string();
        let v = verifier(Scheme::StandardWebhooks, &[SW_SECRET]);
        let ok = v
            .verify(&sw_headers(SW_ID, &ts, SW_SIG), SW_BODY, UnixSeconds(SW_TS))
            .unwrap();
        assert_eq!(ok.body(), SW_BODY);
        assert_eq!(ok.signed_at(), Some(UnixSeconds(SW_TS)));
        assert_eq!(ok.scheme(), &Scheme::StandardWebhooks);
        assert_eq!(ok.webhook_id(), Some(SW_ID));
    }

    #[test]
    fn standard_webhooks_secret_without_whsec_prefix_is_the_same_key() {
        let bare = SW_SECRET.strip_prefix("whsec_").unwrap();
        let secret = Scheme::StandardWebhooks.parse_secret(bare).unwrap();
        assert_eq!(
            sign::standard_webhooks(&secret, SW_ID, UnixSeconds(SW_TS), SW_BODY),
            SW_SIG
        );
    }

    #[test]
    fn stripe_independent_vector_is_signed_and_accepted() {
        let secret = Scheme::Stripe.parse_secret(STRIPE_SECRET).unwrap();
        let header = sign::stripe(&secret, UnixSeconds(STRIPE_TS), STRIPE_BODY);
        assert_eq!(header, format!("t={STRIPE_TS},v1={STRIPE_V1}"));

        let ok = verifier(Scheme::Stripe, &[STRIPE_SECRET])
            .verify(
                &[("stripe-signature", header.as_str())],
                STRIPE_BODY,
                UnixSeconds(STRIPE_TS),
            )
            .unwrap();
        assert_eq!(ok.body(), STRIPE_BODY);
        assert_eq!(ok.signed_at(), Some(UnixSeconds(STRIPE_TS)));
        assert_eq!(ok.scheme(), &Scheme::Stripe);
        assert_eq!(ok.webhook_id(), None);
    }

    #[test]
    fn github_documented_example_is_signed_and_accepted() {
        let secret = Scheme::GitHub.parse_secret(GH_SECRET).unwrap();
        assert_eq!(sign::github(&secret, GH_BODY), GH_SIG);

        let ok = verifier(Scheme::GitHub, &[GH_SECRET])
            .verify(&[("x-hub-signature-256", GH_SIG)], GH_BODY, UnixSeconds(0))
            .unwrap();
        assert_eq!(ok.body(), GH_BODY);
        assert_eq!(ok.signed_at(), None);
        assert_eq!(ok.scheme(), &Scheme::GitHub);
        assert_eq!(ok.webhook_id(), None);
    }

    // ---- one negative test per error variant ----

    #[test]
    fn missing_header_names_the_header() {
        let ts = SW_TS.to_string();
        let v = verifier(Scheme::StandardWebhooks, &[SW_SECRET]);
        let all = sw_headers(SW_ID, &ts, SW_SIG);
        let names = [WEBHOOK_ID, WEBHOOK_TIMESTAMP, WEBHOOK_SIGNATURE];
        for (i, name) in names.into_iter().enumerate() {
            let mut partial = all.to_vec();
            partial.remove(i);
            assert_eq!(
                v.verify(&partial, SW_BODY, UnixSeconds(SW_TS)).unwrap_err(),
                VerifyError::MissingHeader(name.into())
            );
        }
        let none: [(&str, &str); 0] = [];
        assert_eq!(
            verifier(Scheme::Stripe, &[STRIPE_SECRET])
                .verify(&none, b"", UnixSeconds(0))
                .unwrap_err(),
            VerifyError::MissingHeader("stripe-signature".into())
        );
        assert_eq!(
            verifier(Scheme::GitHub, &[GH_SECRET])
                .verify(&none, b"", UnixSeconds(0))
                .unwrap_err(),
            VerifyError::MissingHeader("x-hub-signature-256".into())
        );
    }

    #[test]
    fn unparseable_timestamp_is_malformed() {
        let v = verifier(Scheme::StandardWebhooks, &[SW_SECRET]);
        for ts in [
            "hello",
            "",
            "-1",
            "+1614265330",
            "1614265330.5",
            " 1614265330",
            "99999999999999999999",
        ] {
            assert_eq!(
                v.verify(&sw_headers(SW_ID, ts, SW_SIG), SW_BODY, UnixSeconds(SW_TS))
                    .unwrap_err(),
                VerifyError::MalformedHeader("webhook-timestamp".into()),
                "{ts:?}"
            );
        }
    }

    #[test]
    fn empty_webhook_id_is_malformed() {
        let ts = SW_TS.to_string();
        assert_eq!(
            verifier(Scheme::StandardWebhooks, &[SW_SECRET])
                .verify(&sw_headers("", &ts, SW_SIG), SW_BODY, UnixSeconds(SW_TS))
                .unwrap_err(),
            VerifyError::MalformedHeader("webhook-id".into())
        );
    }

    #[test]
    fn stripe_header_without_a_single_numeric_t_is_malformed() {
        let v1 = format!("v1={STRIPE_V1}");
        let twice = format!("t={STRIPE_TS},t={STRIPE_TS},{v1}");
        for header in [v1.as_str(), "t=abc,v1=00", "", "garbage", twice.as_str()] {
            assert_eq!(
                stripe_verify(header, STRIPE_BODY, STRIPE_TS).unwrap_err(),
                VerifyError::MalformedHeader("stripe-signature".into()),
                "{header:?}"
            );
        }
    }

    #[test]
    fn github_header_that_is_not_sha256_hex_is_malformed() {
        let sha1 = GH_SIG.replace("sha256=", "sha1=");
        let short = &GH_SIG[..GH_SIG.len() - 2];
        let not_hex = GH_SIG.replace('7', "g");
        for header in [sha1.as_str(), short, not_hex.as_str(), "", "sha256="] {
            assert_eq!(
                gh_verify(header, GH_BODY).unwrap_err(),
                VerifyError::MalformedHeader("x-hub-signature-256".into()),
                "{header:?}"
            );
        }
    }

    #[test]
    fn old_timestamp_is_rejected() {
        assert_eq!(
            sw_verify(SW_SIG, SW_BODY, SW_TS + 3_600).unwrap_err(),
            VerifyError::TimestampTooOld
        );
    }

    #[test]
    fn future_timestamp_is_rejected() {
        assert_eq!(
            sw_verify(SW_SIG, SW_BODY, SW_TS - 3_600).unwrap_err(),
            VerifyError::TimestampInFuture
        );
    }

    #[test]
    fn wrong_signature_matches_nothing() {
        // The reference libraries' own "invalid signature" case: last base64 char changed.
        let bad = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=";
        assert_eq!(
            sw_verify(bad, SW_BODY, SW_TS).unwrap_err(),
            VerifyError::NoSignatureMatches
        );
    }

    #[test]
    fn signature_header_without_any_usable_v1_matches_nothing() {
        for header in [
            "",
            " ",
            "v1",
            "v1,",
            "v1,not-base64!",
            "v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ] {
            assert_eq!(
                sw_verify(header, SW_BODY, SW_TS).unwrap_err(),
                VerifyError::NoSignatureMatches,
                "{header:?}"
            );
        }
        assert_eq!(
            stripe_verify(&format!("t={STRIPE_TS}"), STRIPE_BODY, STRIPE_TS).unwrap_err(),
            VerifyError::NoSignatureMatches
        );
    }

    #[test]
    fn malformed_secret_is_rejected() {
        for s in [
            "",
            "whsec_",
            "whsec_not base64!",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS",
        ] {
            assert_eq!(
                Scheme::StandardWebhooks.parse_secret(s).unwrap_err(),
                VerifyError::MalformedSecret,
                "{s:?}"
            );
        }
        assert_eq!(
            Scheme::Stripe.parse_secret("").unwrap_err(),
            VerifyError::MalformedSecret
        );
        assert_eq!(
            Scheme::GitHub.parse_secret("").unwrap_err(),
            VerifyError::MalformedSecret
        );
    }

    #[test]
    fn verifier_without_secrets_is_refused() {
        assert_eq!(
            Verifier::new(Scheme::GitHub, Vec::new(), Seconds(0)).unwrap_err(),
            VerifyError::NoSecrets
        );
    }

    // ---- rotation and multiple signatures ----

    #[test]
    fn during_rotation_old_and_new_secret_are_both_accepted() {
        const NEW: &str = "whsec_c2VjcmV0LW9mLWEtcm90YXRlZC1lbmRwb2ludA==";
        let v = verifier(Scheme::StandardWebhooks, &[NEW, SW_SECRET]);
        let ts = SW_TS.to_string();
        let new_sig = sign::standard_webhooks(
            &Scheme::StandardWebhooks.parse_secret(NEW).unwrap(),
            SW_ID,
            UnixSeconds(SW_TS),
            SW_BODY,
        );
        for sig in [SW_SIG, new_sig.as_str()] {
            v.verify(&sw_headers(SW_ID, &ts, sig), SW_BODY, UnixSeconds(SW_TS))
                .unwrap();
        }
        // A verifier that only knows the new secret refuses the old signature.
        assert_eq!(
            verifier(Scheme::StandardWebhooks, &[NEW])
                .verify(&sw_headers(SW_ID, &ts, SW_SIG), SW_BODY, UnixSeconds(SW_TS))
                .unwrap_err(),
            VerifyError::NoSignatureMatches
        );

        let gh = verifier(Scheme::GitHub, &["new secret", GH_SECRET]);
        gh.verify(&[("x-hub-signature-256", GH_SIG)], GH_BODY, UnixSeconds(0))
            .unwrap();
    }

    #[test]
    fn signature_list_with_one_bad_and_one_good_passes() {
        // Mirrors the reference libraries' multi-signature test.
        let list = format!(
            "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= {SW_SIG}"
        );
        sw_verify(&list, SW_BODY, SW_TS).unwrap();

        let stripe = format!(
            "t={STRIPE_TS},v1={},v1={STRIPE_V1},v0={STRIPE_V1}",
            "0".repeat(64)
        );
        stripe_verify(&stripe, STRIPE_BODY, STRIPE_TS).unwrap();
    }

    #[test]
    fn v1a_entries_are_skipped() {
        let b64 = SW_SIG.strip_prefix("v1,").unwrap();
        let only_v1a = format!("v1a,{b64}");
        assert_eq!(
            sw_verify(&only_v1a, SW_BODY, SW_TS).unwrap_err(),
            VerifyError::NoSignatureMatches
        );
        sw_verify(&format!("v1a,{b64} {SW_SIG}"), SW_BODY, SW_TS).unwrap();
    }

    #[test]
    fn stripe_v0_is_ignored_and_uppercase_hex_is_accepted() {
        let v0_only = format!("t={STRIPE_TS},v0={STRIPE_V1}");
        assert_eq!(
            stripe_verify(&v0_only, STRIPE_BODY, STRIPE_TS).unwrap_err(),
            VerifyError::NoSignatureMatches
        );
        let upper = format!("t={STRIPE_TS},v1={}", STRIPE_V1.to_uppercase());
        stripe_verify(&upper, STRIPE_BODY, STRIPE_TS).unwrap();
        gh_verify(&GH_SIG.replace("757107ea", "757107EA"), GH_BODY).unwrap();
    }

    // ---- tolerance edges ----

    #[test]
    fn timestamp_exactly_at_the_tolerance_passes_and_one_past_fails() {
        sw_verify(SW_SIG, SW_BODY, SW_TS + 300).unwrap();
        sw_verify(SW_SIG, SW_BODY, SW_TS - 300).unwrap();
        assert_eq!(
            sw_verify(SW_SIG, SW_BODY, SW_TS + 301).unwrap_err(),
            VerifyError::TimestampTooOld
        );
        assert_eq!(
            sw_verify(SW_SIG, SW_BODY, SW_TS - 301).unwrap_err(),
            VerifyError::TimestampInFuture
        );

        let header = format!("t={STRIPE_TS},v1={STRIPE_V1}");
        stripe_verify(&header, STRIPE_BODY, STRIPE_TS + 300).unwrap();
        stripe_verify(&header, STRIPE_BODY, STRIPE_TS - 300).unwrap();
        assert_eq!(
            stripe_verify(&header, STRIPE_BODY, STRIPE_TS + 301).unwrap_err(),
            VerifyError::TimestampTooOld
        );
        assert_eq!(
            stripe_verify(&header, STRIPE_BODY, STRIPE_TS - 301).unwrap_err(),
            VerifyError::TimestampInFuture
        );
    }

    #[test]
    fn extreme_times_and_tolerances_do_not_overflow() {
        let secret = Scheme::StandardWebhooks.parse_secret(SW_SECRET).unwrap();
        let ts = i64::MAX;
        let sig = sign::standard_webhooks(&secret, SW_ID, UnixSeconds(ts), b"");
        let ts_s = ts.to_string();
        let headers = sw_headers(SW_ID, &ts_s, &sig);
        let wide = Verifier::new(
            Scheme::StandardWebhooks,
            vec![secret.clone()],
            Seconds(u64::MAX),
        )
        .unwrap();
        wide.verify(&headers, b"", UnixSeconds(i64::MIN)).unwrap();
        let narrow = Verifier::new(Scheme::StandardWebhooks, vec![secret], Seconds(0)).unwrap();
        assert_eq!(
            narrow
                .verify(&headers, b"", UnixSeconds(i64::MIN))
                .unwrap_err(),
            VerifyError::TimestampInFuture
        );
    }

    // ---- headers ----

    #[test]
    fn header_names_match_case_insensitively() {
        let ts = SW_TS.to_string();
        let headers = [
            ("Webhook-Id", SW_ID),
            ("WEBHOOK-TIMESTAMP", ts.as_str()),
            ("Webhook-Signature", SW_SIG),
        ];
        verifier(Scheme::StandardWebhooks, &[SW_SECRET])
            .verify(&headers, SW_BODY, UnixSeconds(SW_TS))
            .unwrap();

        let stripe = format!("t={STRIPE_TS},v1={STRIPE_V1}");
        verifier(Scheme::Stripe, &[STRIPE_SECRET])
            .verify(
                &[("Stripe-Signature", stripe.as_str())],
                STRIPE_BODY,
                UnixSeconds(STRIPE_TS),
            )
            .unwrap();
        verifier(Scheme::GitHub, &[GH_SECRET])
            .verify(&[("X-Hub-Signature-256", GH_SIG)], GH_BODY, UnixSeconds(0))
            .unwrap();
    }

    #[test]
    fn owned_headers_are_looked_up_and_the_first_match_wins() {
        let headers: Vec<(String, String)> = vec![
            ("X-Hub-Signature-256".into(), GH_SIG.into()),
            ("x-hub-signature-256".into(), "sha256=00".into()),
        ];
        assert_eq!(headers.header("X-HUB-SIGNATURE-256"), Some(GH_SIG));
        assert_eq!(headers.header("x-github-delivery"), None);
        verifier(Scheme::GitHub, &[GH_SECRET])
            .verify(&headers, GH_BODY, UnixSeconds(0))
            .unwrap();
        let borrowed: &[(&str, &str)] = &[("a", "1"), ("A", "2")];
        assert_eq!(borrowed.header("a"), Some("1"));
    }

    // ---- body ----

    #[test]
    fn tampered_body_fails_for_every_scheme() {
        let tampered = br#"{"test": 2432232315}"#;
        assert_eq!(
            sw_verify(SW_SIG, tampered, SW_TS).unwrap_err(),
            VerifyError::NoSignatureMatches
        );
        let header = format!("t={STRIPE_TS},v1={STRIPE_V1}");
        assert_eq!(
            stripe_verify(&header, b"{}", STRIPE_TS).unwrap_err(),
            VerifyError::NoSignatureMatches
        );
        assert_eq!(
            gh_verify(GH_SIG, b"Hello, World?").unwrap_err(),
            VerifyError::NoSignatureMatches
        );
    }

    #[test]
    fn signed_timestamp_and_id_are_covered_by_the_signature() {
        let shifted = (SW_TS + 1).to_string();
        assert_eq!(
            verifier(Scheme::StandardWebhooks, &[SW_SECRET])
                .verify(
                    &sw_headers(SW_ID, &shifted, SW_SIG),
                    SW_BODY,
                    UnixSeconds(SW_TS)
                )
                .unwrap_err(),
            VerifyError::NoSignatureMatches
        );
        let ts = SW_TS.to_string();
        assert_eq!(
            verifier(Scheme::StandardWebhooks, &[SW_SECRET])
                .verify(
                    &sw_headers("msg_other", &ts, SW_SIG),
                    SW_BODY,
                    UnixSeconds(SW_TS)
                )
                .unwrap_err(),
            VerifyError::NoSignatureMatches
        );
    }

    #[test]
    fn empty_body_is_verified_like_any_other() {
        let sw = Scheme::StandardWebhooks.parse_secret(SW_SECRET).unwrap();
        sw_verify(
            &sign::standard_webhooks(&sw, SW_ID, UnixSeconds(SW_TS), b""),
            b"",
            SW_TS,
        )
        .unwrap();
        let st = Scheme::Stripe.parse_secret(STRIPE_SECRET).unwrap();
        stripe_verify(
            &sign::stripe(&st, UnixSeconds(STRIPE_TS), b""),
            b"",
            STRIPE_TS,
        )
        .unwrap();
        let gh = Scheme::GitHub.parse_secret(GH_SECRET).unwrap();
        gh_verify(&sign::github(&gh, b""), b"").unwrap();
    }

    // ---- secrecy and messages ----

    #[test]
    fn secret_never_appears_in_debug_output() {
        let bare = SW_SECRET.strip_prefix("whsec_").unwrap();
        let secret = Scheme::StandardWebhooks.parse_secret(SW_SECRET).unwrap();
        // The key as `Vec<u8>`'s Debug would print it, e.g. "[49, 242, …]".
        let key_bytes = format!("{:?}", BASE64.decode(bare).unwrap());
        let errors = [
            VerifyError::MissingHeader(WEBHOOK_SIGNATURE.into()),
            VerifyError::MalformedHeader(WEBHOOK_TIMESTAMP.into()),
            VerifyError::TimestampTooOld,
            VerifyError::TimestampInFuture,
            VerifyError::NoSignatureMatches,
            VerifyError::MalformedSecret,
            VerifyError::NoSecrets,
        ];
        let mut outputs = vec![
            format!("{secret:?}"),
            format!("{:?}", verifier(Scheme::StandardWebhooks, &[SW_SECRET])),
            format!("{:?}", verifier(Scheme::Stripe, &[STRIPE_SECRET])),
            format!("{:?}", verifier(Scheme::GitHub, &[GH_SECRET])),
        ];
        outputs.extend(errors.iter().map(|e| format!("{e:?} {e}")));
        assert_eq!(outputs[0], "Secret(<redacted>)");
        assert!(outputs[1].contains("Secret(<redacted>)"));
        for out in &outputs {
            for needle in [
                bare,
                STRIPE_SECRET,
                GH_SECRET,
                &key_bytes,
                &key_bytes[1..12],
                "g0hM9SsE",
            ] {
                assert!(!out.contains(needle), "{out:?} leaks {needle:?}");
            }
        }
    }

    #[test]
    fn error_messages_are_short_and_exact() {
        let cases = [
            (
                VerifyError::MissingHeader("webhook-signature".into()),
                "missing header webhook-signature",
            ),
            (
                VerifyError::MalformedHeader("stripe-signature".into()),
                "malformed header stripe-signature",
            ),
            (
                VerifyError::TimestampTooOld,
                "timestamp outside the tolerance (too old)",
            ),
            (
                VerifyError::TimestampInFuture,
                "timestamp outside the tolerance (in the future)",
            ),
            (VerifyError::NoSignatureMatches, "no signature matches"),
            (VerifyError::MalformedSecret, "malformed secret"),
            (VerifyError::NoSecrets, "no secrets configured"),
        ];
        for (err, msg) in cases {
            assert_eq!(err.to_string(), msg);
            assert!(!err.reason().is_empty());
        }
    }

    #[test]
    fn scheme_names_in_config_are_kebab_case() {
        for (json, scheme) in [
            (r#""standard-webhooks""#, Scheme::StandardWebhooks),
            (r#""stripe""#, Scheme::Stripe),
            (r#""github""#, Scheme::GitHub),
        ] {
            assert_eq!(serde_json::from_str::<Scheme>(json).unwrap(), scheme);
            assert_eq!(serde_json::to_string(&scheme).unwrap(), json);
        }
        assert!(serde_json::from_str::<Scheme>(r#""git-hub""#).is_err());
    }

    #[test]
    fn hex_round_trips_and_rejects_odd_or_foreign_digits() {
        let bytes = [0x00, 0x7f, 0x80, 0xff, 0xab];
        let s = crate::hex::encode(&bytes);
        assert_eq!(s, "007f80ffab");
        let mut out = [0u8; 5];
        assert!(crate::hex::decode_into(&s, &mut out));
        assert_eq!(out, bytes);
        assert!(crate::hex::decode_into("007F80FFAB", &mut out));
        assert!(!crate::hex::decode_into("007f80ffa", &mut out));
        assert!(!crate::hex::decode_into("007f80ffag", &mut out));
        assert!(!crate::hex::decode_into("+07f80ffab", &mut out));
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn whatever_sign_produces_verify_accepts(
                id in "[!-~]{1,40}",
                ts in 0i64..=4_102_444_800,
                body in proptest::collection::vec(any::<u8>(), 0..512),
            ) {
                let sw = Scheme::StandardWebhooks.parse_secret(SW_SECRET).unwrap();
                let ts_s = ts.to_string();
                let sig = sign::standard_webhooks(&sw, &id, UnixSeconds(ts), &body);
                let v = verifier(Scheme::StandardWebhooks, &[SW_SECRET]);
                let ok = v.verify(&sw_headers(&id, &ts_s, &sig), &body, UnixSeconds(ts)).unwrap();
                prop_assert_eq!(ok.webhook_id(), Some(id.as_str()));

                let st = Scheme::Stripe.parse_secret(STRIPE_SECRET).unwrap();
                let header = sign::stripe(&st, UnixSeconds(ts), &body);
                let v = verifier(Scheme::Stripe, &[STRIPE_SECRET]);
                prop_assert!(v.verify(&[("stripe-signature", header.as_str())], &body, UnixSeconds(ts)).is_ok());
            }

            #[test]
            fn arbitrary_headers_never_panic_or_pass(
                id in ".{0,20}", ts in ".{0,20}", sig in ".{0,120}",
            ) {
                for scheme in [Scheme::StandardWebhooks, Scheme::Stripe, Scheme::GitHub] {
                    let v = verifier(scheme, &[SW_SECRET]);
                    let headers = [
                        ("webhook-id", id.as_str()),
                        ("webhook-timestamp", ts.as_str()),
                        ("webhook-signature", sig.as_str()),
                        ("stripe-signature", sig.as_str()),
                        ("x-hub-signature-256", sig.as_str()),
                    ];
                    prop_assert!(v.verify(&headers, b"body", UnixSeconds(0)).is_err());
                }
            }
        }
    }

    #[test]
    fn a_standard_webhooks_secret_may_omit_its_base64_padding() {
        // base64("secret1") is "c2VjcmV0MQ==", printed by some libraries as "c2VjcmV0MQ".
        let padded = Scheme::StandardWebhooks
            .parse_secret("whsec_c2VjcmV0MQ==")
            .unwrap();
        let bare = Scheme::StandardWebhooks
            .parse_secret("whsec_c2VjcmV0MQ")
            .unwrap();
        assert_eq!(padded.0, bare.0);
        assert_eq!(bare.0, b"secret1");
        assert!(Scheme::StandardWebhooks
            .parse_secret("whsec_c2VjcmV0M")
            .is_err());
    }
}

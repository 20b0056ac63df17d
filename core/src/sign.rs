//! Outgoing signatures: hookonce signs the deliveries it forwards, and tests sign the requests
//! they send. Each function is the exact inverse of the matching [`crate::verify`] scheme and
//! shares its MAC code, so the two cannot drift apart.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use hmac::Mac;

use crate::hex;
use crate::time::UnixSeconds;
use crate::verify::{github_mac, standard_webhooks_mac, stripe_mac, Secret};

/// Standard Webhooks signature header value for content `{msg_id}.{timestamp}.{body}`: `"v1,<base64>"`.
///
/// `timestamp` is written in decimal; verifiers reject a negative one.
#[must_use]
pub fn standard_webhooks(
    secret: &Secret,
    msg_id: &str,
    timestamp: UnixSeconds,
    body: &[u8],
) -> String {
    let tag = standard_webhooks_mac(secret, msg_id, &timestamp.to_string(), body)
        .finalize()
        .into_bytes();
    format!("v1,{}", BASE64.encode(tag))
}

/// Stripe `Stripe-Signature` header value for payload `{t}.{body}`: `"t=<timestamp>,v1=<hex>"`.
#[must_use]
pub fn stripe(secret: &Secret, timestamp: UnixSeconds, body: &[u8]) -> String {
    let t = timestamp.to_string();
    let tag = stripe_mac(secret, &t, body).finalize().into_bytes();
    format!("t={t},v1={}", hex::encode(&tag))
}

/// GitHub `X-Hub-Signature-256` header value over the raw body: `"sha256=<hex>"`.
#[must_use]
pub fn github(secret: &Secret, body: &[u8]) -> String {
    let tag = github_mac(secret, body).finalize().into_bytes();
    format!("sha256={}", hex::encode(&tag))
}

/// The signature headers a provider of `scheme` would send with `body`: one dispatch over
/// the schemes, for re-signing a stored delivery and for tools that sign test deliveries.
///
/// `id` is the Standard Webhooks `webhook-id` (signed there, unused by the other schemes);
/// `timestamp` is unused by GitHub, which signs none. Names are lower-case.
#[must_use]
pub fn headers(
    scheme: crate::verify::Scheme,
    secret: &Secret,
    id: &str,
    timestamp: UnixSeconds,
    body: &[u8],
) -> Vec<(&'static str, String)> {
    use crate::verify::Scheme;
    match scheme {
        Scheme::StandardWebhooks => vec![
            ("webhook-id", id.to_owned()),
            ("webhook-timestamp", timestamp.to_string()),
            (
                "webhook-signature",
                standard_webhooks(secret, id, timestamp, body),
            ),
        ],
        Scheme::Stripe => vec![("stripe-signature", stripe(secret, timestamp, body))],
        Scheme::GitHub => vec![("x-hub-signature-256", github(secret, body))],
    }
}

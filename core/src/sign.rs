//! Outgoing signatures: hookonce signs the deliveries it forwards, and tests sign the requests
//! they send. Each function is the exact inverse of the matching [`crate::verify`] scheme and
//! shares its MAC code, so the two cannot drift apart.

use crate::b64::STANDARD as BASE64;
use hmac::Mac;

use crate::custom::{HmacSpec, Part};
use crate::hex;
use crate::time::UnixSeconds;
use crate::verify::{github_mac, keyed_mac, standard_webhooks_mac, stripe_mac, Scheme, Secret};

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
    standard_webhooks_each(std::slice::from_ref(secret), msg_id, timestamp, body)
}

/// [`standard_webhooks`] with each of `secrets`: their `v1,<base64>` signatures in the
/// order given, separated by spaces (`"v1,<sig1> v1,<sig2>"`), as Svix sends them during a
/// key rotation, so a receiver that holds any one of the secrets verifies. No secrets give
/// an empty value, which no receiver verifies.
#[must_use]
pub fn standard_webhooks_each(
    secrets: &[Secret],
    msg_id: &str,
    timestamp: UnixSeconds,
    body: &[u8],
) -> String {
    let timestamp = timestamp.to_string();
    let mut value = String::new();
    for secret in secrets {
        if !value.is_empty() {
            value.push(' ');
        }
        let tag = standard_webhooks_mac(secret, msg_id, &timestamp, body)
            .finalize()
            .into_bytes();
        value.push_str("v1,");
        value.push_str(&BASE64.encode(tag));
    }
    value
}

/// The three Standard Webhooks headers for `body`: `webhook-id` (`id`), `webhook-timestamp`
/// and `webhook-signature`, signed with each of `secrets` in the order given
/// ([`standard_webhooks_each`]).
#[must_use]
pub fn standard_webhooks_headers(
    secrets: &[Secret],
    id: &str,
    timestamp: UnixSeconds,
    body: &[u8],
) -> Vec<(&'static str, String)> {
    vec![
        ("webhook-id", id.to_owned()),
        ("webhook-timestamp", timestamp.to_string()),
        (
            "webhook-signature",
            standard_webhooks_each(secrets, id, timestamp, body),
        ),
    ]
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
/// `id` is the Standard Webhooks `webhook-id` (signed there, unused by Stripe and GitHub);
/// for an HMAC scheme it is the value of every `{header:…}` its template signs, and those
/// headers are returned too. `timestamp` is unused where none is signed. Names are
/// lower-case.
#[must_use]
pub fn headers<'s>(
    scheme: &'s Scheme,
    secret: &Secret,
    id: &'s str,
    timestamp: UnixSeconds,
    body: &[u8],
) -> Vec<(&'s str, String)> {
    match scheme {
        Scheme::StandardWebhooks => {
            standard_webhooks_headers(std::slice::from_ref(secret), id, timestamp, body)
        }
        Scheme::Stripe => vec![("stripe-signature", stripe(secret, timestamp, body))],
        Scheme::GitHub => vec![("x-hub-signature-256", github(secret, body))],
        Scheme::Shopify | Scheme::Slack | Scheme::Hmac(_) => match scheme.spec() {
            Some(spec) => hmac(spec, secret, id, timestamp, body),
            None => Vec::new(),
        },
    }
}

/// The headers of an [`HmacSpec`] scheme: its timestamp, the named headers it signs (each
/// `id`), and the signature.
fn hmac<'s>(
    spec: &'s HmacSpec,
    secret: &Secret,
    id: &'s str,
    timestamp: UnixSeconds,
    body: &[u8],
) -> Vec<(&'s str, String)> {
    let ts = timestamp.to_string();
    let mut out: Vec<(&'s str, String)> = Vec::new();
    let mut parts: Vec<&[u8]> = Vec::new();
    for part in &spec.signed {
        parts.push(match part {
            Part::Text(t) => t.as_bytes(),
            Part::Body => body,
            Part::Timestamp => ts.as_bytes(),
            Part::Header(h) => {
                out.push((h.as_str(), id.to_owned()));
                id.as_bytes()
            }
        });
    }
    if let Some(h) = &spec.timestamp_header {
        out.push((h.as_str(), ts.clone()));
    }
    let tag = keyed_mac(secret, &parts).finalize().into_bytes();
    out.push((spec.header.as_str(), spec.encode(&tag)));
    out
}

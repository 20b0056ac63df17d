//! HMAC-SHA256 over a scheme's signed parts, shared with `sign` so signing and verifying
//! are one piece of code.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::scheme::Secret;

/// Length of an HMAC-SHA256 tag (FIPS 180-4 §1: SHA-256 digests are 256 bits).
pub(super) const TAG_LEN: usize = 32;

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

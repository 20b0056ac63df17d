//! Signatures the hostile-inputs suite needs beyond [`crate::sign_standard_webhooks`],
//! [`crate::sign_stripe`] and [`crate::sign_github`]: made with the harness's own HMAC,
//! independent of hookonce-core.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use hmac::{Hmac, Mac as _};
use sha2::Sha256;

/// `v1,<base64 HMAC-SHA256>` over `{id}.{timestamp}.{body}` with the timestamp exactly as
/// given, so a test can sign a timestamp that is not a plain number (" 12", "1.5", "١٢").
pub fn standard_webhooks_signature(secret: &str, id: &str, timestamp: &str, body: &[u8]) -> String {
    let key = B64
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .expect("secret is base64 after whsec_");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("any key length");
    for part in [id.as_bytes(), b".", timestamp.as_bytes(), b".", body] {
        mac.update(part);
    }
    format!("v1,{}", B64.encode(mac.finalize().into_bytes()))
}

/// Shopify's `X-Shopify-Hmac-Sha256`: base64 HMAC-SHA256 of the body alone.
pub fn shopify_signature(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(body);
    B64.encode(mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_standard_webhooks_signer_on_a_plain_timestamp() {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        assert_eq!(
            standard_webhooks_signature(secret, "msg_1", "1614265330", b"{}"),
            crate::sign_standard_webhooks(secret, "msg_1", 1614265330, b"{}")
        );
    }

    #[test]
    fn the_harness_signs_a_stripe_vector_computed_with_pythons_hmac() {
        assert_eq!(
            crate::sign_stripe(
                "whsec_hookonce_test_secret",
                1_492_774_577,
                br#"{"id":"evt_1","object":"event"}"#
            ),
            "t=1492774577,v1=f38dab5d1685a8642663451275bd950e8694ddb93ee9636ca36daf28e38d3ad9"
        );
    }
}

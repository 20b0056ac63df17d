//! `sign::headers` is the inverse of verification for every scheme.

use hookonce_core::{signature_headers, Scheme, Seconds, UnixSeconds, Verifier, VerifyError};

const NOW: UnixSeconds = UnixSeconds(1_791_270_390);

fn secret_for(scheme: Scheme) -> &'static str {
    match scheme {
        Scheme::StandardWebhooks => "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        _ => "whsec_plain_provider_secret",
    }
}

#[test]
fn signed_headers_verify_and_a_changed_body_does_not() {
    for scheme in [Scheme::StandardWebhooks, Scheme::Stripe, Scheme::GitHub] {
        let secret = scheme.parse_secret(secret_for(scheme)).unwrap();
        let body = br#"{"id":"evt_1"}"#;
        let headers = signature_headers(scheme, &secret, "evt_1", NOW, body);
        let verifier = Verifier::new(scheme, vec![secret], Seconds(300)).unwrap();
        assert!(
            verifier.verify(&headers_ref(&headers), body, NOW).is_ok(),
            "{scheme:?}: {headers:?}"
        );
        assert_eq!(
            verifier
                .verify(&headers_ref(&headers), br#"{"id":"evt_2"}"#, NOW)
                .unwrap_err(),
            VerifyError::NoSignatureMatches,
            "{scheme:?}"
        );
    }
}

fn headers_ref<'a>(h: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    h.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

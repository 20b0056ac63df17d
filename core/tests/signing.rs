//! `sign::headers` is the inverse of verification for every scheme, and the presets
//! match their providers' own known answers.

use hookonce_core::custom::{parse_template, Encoding, HmacSpec};
use hookonce_core::event::challenge;
use hookonce_core::sign;
use hookonce_core::time::{Seconds, UnixSeconds};
use hookonce_core::verify::{Scheme, Verifier, VerifyError};

const NOW: UnixSeconds = UnixSeconds(1_791_270_390);

fn secret_for(scheme: &Scheme) -> &'static str {
    match scheme {
        Scheme::StandardWebhooks => "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        _ => "whsec_plain_provider_secret",
    }
}

fn generic() -> Scheme {
    Scheme::Hmac(Box::new(HmacSpec {
        header: "x-acme-signature".into(),
        prefix: "sha256=".into(),
        encoding: Encoding::Hex,
        signed: parse_template("{header:x-acme-id}.{timestamp}.{body}").unwrap(),
        timestamp_header: Some("x-acme-timestamp".into()),
        separator: Some(",".into()),
    }))
}

#[test]
fn signed_headers_verify_and_a_changed_body_does_not() {
    for scheme in [
        Scheme::StandardWebhooks,
        Scheme::Stripe,
        Scheme::GitHub,
        Scheme::Shopify,
        Scheme::Slack,
        generic(),
    ] {
        let secret = scheme.parse_secret(secret_for(&scheme)).unwrap();
        let body = br#"{"id":"evt_1"}"#;
        let headers = sign::headers(&scheme, &secret, "evt_1", NOW, body);
        let verifier = Verifier::new(scheme.clone(), vec![secret], Seconds(300)).unwrap();
        assert!(
            verifier.verify(&headers, body, NOW).is_ok(),
            "{scheme:?}: {headers:?}"
        );
        assert_eq!(
            verifier
                .verify(&headers, br#"{"id":"evt_2"}"#, NOW)
                .unwrap_err(),
            VerifyError::NoSignatureMatches,
            "{scheme:?}"
        );
    }
}

#[test]
fn slack_verifies_its_documented_example() {
    // api.slack.com, "Verifying requests from Slack": the published example values.
    let secret = Scheme::Slack
        .parse_secret("8f742231b10e8888abcd99yyyzzz85a5")
        .unwrap();
    let body = b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    let headers = [
        ("X-Slack-Request-Timestamp", "1531420618"),
        (
            "X-Slack-Signature",
            "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
        ),
    ];
    let verifier = Verifier::new(Scheme::Slack, vec![secret], Seconds(300)).unwrap();
    let ok = verifier.verify(&headers, body, UnixSeconds(1_531_420_700));
    assert_eq!(ok.unwrap().signed_at(), Some(UnixSeconds(1_531_420_618)));
    // Five minutes of tolerance, as Slack asks.
    assert_eq!(
        verifier
            .verify(&headers, body, UnixSeconds(1_531_420_618 + 301))
            .unwrap_err(),
        VerifyError::TimestampTooOld
    );
}

#[test]
fn shopify_verifies_the_base64_mac_of_the_raw_body() {
    // Oracle: Python's hmac, base64(HMAC-SHA256(b"hush", body)), as Shopify's docs describe.
    let body = br#"{"id":820982911946154508,"email":"jon@example.com"}"#;
    let secret = Scheme::Shopify.parse_secret("hush").unwrap();
    let headers = [(
        "X-Shopify-Hmac-Sha256",
        "D0UMXmhjwBRi4y66TmhJrDlhQABD7zI2fm3p6/QLMo8=",
    )];
    let verifier = Verifier::new(Scheme::Shopify, vec![secret], Seconds(0)).unwrap();
    assert!(verifier.verify(&headers, body, NOW).is_ok());
    assert_eq!(
        verifier.verify(&headers, b"{}", NOW).unwrap_err(),
        VerifyError::NoSignatureMatches
    );
}

#[test]
fn a_generic_scheme_takes_any_of_several_signatures_in_one_header() {
    let scheme = generic();
    let old = scheme.parse_secret("old-secret").unwrap();
    let new = scheme.parse_secret("new-secret").unwrap();
    let body = br#"{"id":"evt_9"}"#;
    let by_old = sign::headers(&scheme, &old, "evt_9", NOW, body);
    let by_new = sign::headers(&scheme, &new, "evt_9", NOW, body);
    let sig = |h: &[(&str, String)]| {
        h.iter()
            .find(|(k, _)| *k == "x-acme-signature")
            .unwrap()
            .1
            .clone()
    };
    let mut headers: Vec<(&str, String)> = by_old
        .iter()
        .filter(|(k, _)| *k != "x-acme-signature")
        .cloned()
        .collect();
    headers.push((
        "x-acme-signature",
        format!("{}, {}", sig(&by_new), sig(&by_old)),
    ));
    let verifier = Verifier::new(scheme.clone(), vec![old], Seconds(300)).unwrap();
    assert!(verifier.verify(&headers, body, NOW).is_ok(), "{headers:?}");
    // The signed header is part of what was signed.
    let tampered: Vec<(&str, String)> = headers
        .iter()
        .map(|(k, v)| {
            (
                *k,
                if *k == "x-acme-id" {
                    "evt_10".into()
                } else {
                    v.clone()
                },
            )
        })
        .collect();
    assert_eq!(
        verifier.verify(&tampered, body, NOW).unwrap_err(),
        VerifyError::NoSignatureMatches
    );
}

#[test]
fn slacks_url_verification_is_answered_with_its_challenge() {
    let secret = Scheme::Slack.parse_secret("s3cret").unwrap();
    let verifier = Verifier::new(Scheme::Slack, vec![secret.clone()], Seconds(300)).unwrap();
    let body = br#"{"token":"t","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}"#;
    let headers = sign::headers(&Scheme::Slack, &secret, "", NOW, body);
    let verified = verifier.verify(&headers, body, NOW).unwrap();
    assert_eq!(
        challenge(&verified).as_deref(),
        Some("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P")
    );
    let event = br#"{"type":"event_callback","event_id":"Ev1","event":{"type":"message"}}"#;
    let headers = sign::headers(&Scheme::Slack, &secret, "", NOW, event);
    assert_eq!(
        challenge(&verifier.verify(&headers, event, NOW).unwrap()),
        None
    );
}

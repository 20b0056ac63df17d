//! Step 2 of the flow, verify: the signature of an incoming webhook, over the raw body
//! bytes.
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

//!
//! By role: the schemes and their secrets (`scheme`), the [`Verifier`] and its proof
//! (`verifier`), why a webhook is refused (`error`), and the MACs `sign` shares (`mac`).

mod error;
mod headers;
mod mac;
mod scheme;
mod verifier;

pub use error::VerifyError;
pub use headers::Headers;
pub use scheme::{Scheme, Secret};
pub use verifier::{Verified, Verifier};

pub(crate) use mac::{github_mac, keyed_mac, standard_webhooks_mac, stripe_mac};

#[cfg(test)]
mod tests {
    use super::scheme::*;
    use super::*;
    use crate::b64::STANDARD as BASE64;
    use crate::time::{Seconds, UnixSeconds};

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

//! Per-source configuration, validated once, with errors that name the bad field.
//!
//! Sources arrive as JSON (in the Worker: `[vars.HOOKONCE_SOURCES.<name>]` in
//! `wrangler.toml`). A bad field fails the whole configuration: hookonce never falls back
//! to accepting unsigned input.
//!
//! By role: one source (`source`) and all of them by name (`sources`); a source's
//! `forward` or `destinations` and `hmac` tables; the reader that names each field and refuses typos
//! (`reader`); and what an error says (`error`).

mod destination;
mod error;
mod forward;
mod hmac;
mod reader;
mod source;
mod sources;

pub use destination::{DestinationConfig, ALL_TYPES, DEFAULT_DESTINATION, DEFAULT_SIGNING_SECRET};
pub use error::{BucketsChanged, ConfigError, FieldError};
pub use forward::{
    Deliver, Destination, Forward, ForwardMode, DEFAULT_FORWARD_TIMEOUT, DEFAULT_LEASE,
};
pub use source::{
    Effect, Effects, FieldSource, Shape, SourceConfig, DEFAULT_BUCKETS, DEFAULT_LEGACY_LOOKUP,
    DEFAULT_MAX_BODY, MAX_BUCKETS,
};
pub use sources::{Sources, OPS_SOURCE};

use destination::parse_destinations;
use hmac::parse_hmac;
use reader::Reader;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::MAX_STORABLE_BODY;
    use crate::custom::SpecError;
    use crate::outbound::Policy;
    use crate::retention::{Retention, RetentionError};
    use crate::retry::ScheduleError;
    use crate::time::{Seconds, UnixSeconds};
    use crate::verify::Scheme;
    use serde_json::json;
    use serde_json::Value;

    fn cockpit() -> Value {
        json!({
            "scheme": "standard-webhooks",
            "secrets": ["COCKPIT_SECRET"],
            "effects": {
                "cardholder.created": "snapshot",
                "payment.captured": { "ledger": "/data/object/amount" },
                "*": "notify"
            }
        })
    }

    #[test]
    fn the_sample_source_parses_with_the_seeds_defaults() {
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        assert_eq!(s.scheme, Scheme::StandardWebhooks);
        assert_eq!(s.tolerance, Seconds(300));
        assert_eq!(s.shape.id, FieldSource::Pointer("/id".into()));
        assert_eq!(
            s.shape.entity,
            FieldSource::Pointer("/data/object/id".into())
        );
        assert_eq!(
            s.shape.effects.for_type("cardholder.created"),
            &Effect::Snapshot
        );
        assert_eq!(s.shape.effects.for_type("anything.else"), &Effect::Notify);
        assert_eq!(s.retention, Retention::Forever);
        assert_eq!(s.max_body, DEFAULT_MAX_BODY);
        assert!(s.keep_raw_bodies);
    }

    #[test]
    fn errors_name_the_bad_field() {
        let mut v = cockpit();
        v["tolerance_secs"] = json!("soon");
        assert_eq!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Invalid(
                "cockpit.tolerance_secs".into(),
                FieldError::Value("expected a whole number of seconds")
            ))
        );
        let mut v = cockpit();
        v.as_object_mut().unwrap().remove("secrets");
        assert_eq!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Missing("cockpit.secrets".into()))
        );
    }

    #[test]
    fn max_body_bytes_is_capped_at_what_an_entity_stores() {
        let with = |n: Value| {
            let mut v = cockpit();
            v["max_body_bytes"] = n;
            SourceConfig::from_json("cockpit", &v).map(|s| s.max_body)
        };
        assert_eq!(with(json!(MAX_STORABLE_BODY)), Ok(MAX_STORABLE_BODY));
        assert_eq!(with(json!(1)), Ok(1));
        for bad in [
            json!(MAX_STORABLE_BODY + 1),
            json!(32 << 20),
            json!(0),
            json!(-1),
            json!(1.5),
            json!("1048576"),
            json!(u64::MAX),
        ] {
            let err = with(bad.clone()).expect_err("refused").to_string();
            assert!(err.starts_with("cockpit.max_body_bytes: "), "{bad}: {err}");
            assert!(
                err.contains(&MAX_STORABLE_BODY.to_string()),
                "{bad}: the error names the cap: {err}"
            );
        }
    }

    #[test]
    fn a_typo_is_an_error_not_a_default() {
        let mut v = cockpit();
        v["tolerence_secs"] = json!(10);
        assert_eq!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Unknown("cockpit.tolerence_secs".into()))
        );
    }

    #[test]
    fn retention_shorter_than_a_day_is_refused() {
        let mut v = cockpit();
        v["retention_secs"] = json!(3600);
        let e = SourceConfig::from_json("cockpit", &v).unwrap_err();
        assert_eq!(
            e,
            ConfigError::Invalid(
                "cockpit.retention_secs".into(),
                FieldError::Retention(RetentionError::TooShort(Seconds(3600)))
            )
        );
        assert_eq!(
            e.to_string(),
            "cockpit.retention_secs: must be at least 86400 (24 h)"
        );
        v["retention_secs"] = json!(86_400 * 30);
        assert!(SourceConfig::from_json("cockpit", &v).is_ok());
    }

    #[test]
    fn bodies_are_kept_30_days_by_default_and_body_retention_secs_sets_it() {
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        assert_eq!(s.lifetimes().bodies, Seconds(30 * 86_400));
        assert_eq!(s.lifetimes().ids, Retention::Forever);
        let mut v = cockpit();
        v["body_retention_secs"] = json!(0);
        let s = SourceConfig::from_json("cockpit", &v).unwrap();
        assert_eq!(s.body_retention, Seconds(0));
    }

    #[test]
    fn a_bad_body_retention_names_the_field() {
        for bad in [json!(-1), json!("30d"), json!(1.5), json!(315_360_001_u64)] {
            let mut v = cockpit();
            v["body_retention_secs"] = bad.clone();
            assert!(
                matches!(
                    SourceConfig::from_json("cockpit", &v),
                    Err(ConfigError::Invalid(f, _)) if f == "cockpit.body_retention_secs"
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn buckets_default_to_64_and_a_count_outside_1_to_1024_names_the_field() {
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        assert_eq!(
            (s.buckets, s.legacy_lookup),
            (DEFAULT_BUCKETS, DEFAULT_LEGACY_LOOKUP)
        );
        let with = |key: &str, v: Value| {
            let mut c = cockpit();
            c[key] = v;
            SourceConfig::from_json("cockpit", &c)
        };
        assert_eq!(with("buckets", json!(1)).unwrap().buckets, 1);
        assert_eq!(with("buckets", json!(1024)).unwrap().buckets, 1024);
        for bad in [json!(0), json!(1025), json!(-1), json!(2.5), json!("64")] {
            let e = with("buckets", bad.clone()).unwrap_err();
            assert_eq!(
                e.to_string(),
                "cockpit.buckets: expected 1 to 1024",
                "{bad}"
            );
        }
    }

    #[test]
    fn buckets_made_with_another_count_are_refused_naming_the_field() {
        let mut c = cockpit();
        c["buckets"] = json!(8);
        let s = SourceConfig::from_json("cockpit", &c).unwrap();
        assert_eq!(s.check_buckets(8), Ok(()));
        let e = s.check_buckets(64).unwrap_err();
        assert_eq!(
            e,
            BucketsChanged {
                source: "cockpit".into(),
                configured: 8,
                recorded: 64
            }
        );
        let e = e.to_string();
        assert!(
            e.starts_with(
                "cockpit.buckets is 8, but its events about no entity are recorded in 64 buckets"
            ) && e.ends_with("set buckets back to 64"),
            "{e}"
        );
    }

    #[test]
    fn ids_are_looked_up_in_per_event_objects_only_within_legacy_lookup_secs() {
        let since = UnixSeconds(1_000_000);
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        let looks = |now: i64, created: Option<i64>| {
            s.looks_up_per_event_objects(since, UnixSeconds(now), created.map(UnixSeconds))
        };
        assert!(looks(1_000_000, None));
        assert!(looks(1_000_000 + 30 * 86_400 - 1, None));
        assert!(!looks(1_000_000 + 30 * 86_400, None));
        // An event created before the buckets, or up to a day after, may be an earlier
        // version's; one created later cannot be.
        assert!(looks(1_000_000 + 5 * 86_400, Some(900_000)));
        assert!(looks(1_000_000 + 5 * 86_400, Some(1_000_000 + 86_400)));
        assert!(!looks(1_000_000 + 5 * 86_400, Some(1_000_000 + 86_401)));
        let mut c = cockpit();
        c["legacy_lookup_secs"] = json!(0);
        let off = SourceConfig::from_json("cockpit", &c).unwrap();
        assert!(!off.looks_up_per_event_objects(since, since, None));
        c["legacy_lookup_secs"] = json!(315_360_001);
        assert_eq!(
            SourceConfig::from_json("cockpit", &c)
                .unwrap_err()
                .to_string(),
            "cockpit.legacy_lookup_secs: must be at most 315360000 (10 years)"
        );
    }

    #[test]
    fn an_unknown_scheme_is_refused() {
        let mut v = cockpit();
        v["scheme"] = json!("none");
        assert!(matches!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Invalid(f, _)) if f == "cockpit.scheme"
        ));
    }

    #[test]
    fn a_source_reads_its_signature_headers_and_configured_header_fields() {
        let s =
            SourceConfig::from_json("gh", &json!({"scheme": "github", "secrets": ["GH"]})).unwrap();
        assert_eq!(
            s.headers_read(),
            ["x-hub-signature-256", "x-github-delivery", "x-github-event"]
        );
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        assert_eq!(
            s.headers_read(),
            ["webhook-id", "webhook-timestamp", "webhook-signature"]
        );
    }

    #[test]
    fn github_reads_id_and_type_from_headers() {
        let s =
            SourceConfig::from_json("gh", &json!({"scheme": "github", "secrets": ["GH"]})).unwrap();
        assert_eq!(s.shape.id, FieldSource::Header("x-github-delivery".into()));
        assert_eq!(s.shape.kind, FieldSource::Header("x-github-event".into()));
    }

    #[test]
    fn a_sync_lease_must_outlast_the_call() {
        let mut v = cockpit();
        v["forward"] = json!({"url": "http://127.0.0.1:9/", "mode": "sync", "timeout_secs": 30, "lease_secs": 10});
        assert!(matches!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Invalid(f, _)) if f == "cockpit.forward.lease_secs"
        ));
    }

    #[test]
    fn a_source_forwards_to_exactly_one_url_service_or_queue() {
        let forward = |f: Value| {
            let mut v = cockpit();
            v["forward"] = f;
            SourceConfig::from_json("cockpit", &v)
                .map(|s| s.destinations[0].forward.destination.clone())
        };
        assert_eq!(
            forward(json!({"service": "APP"})),
            Ok(Destination::Service("APP".into()))
        );
        assert_eq!(
            forward(json!({"queue": "EVENTS_2"})),
            Ok(Destination::Queue("EVENTS_2".into()))
        );
        assert_eq!(
            forward(json!({"url": "https://app.example/hooks"})),
            Ok(Destination::Url("https://app.example/hooks".into()))
        );
        let error = |f: Value| forward(f).unwrap_err().to_string();
        assert_eq!(
            error(json!({"mode": "async"})),
            "cockpit.forward: expected one of url, service or queue"
        );
        assert_eq!(
            error(json!({"url": "https://a.example/", "queue": "EVENTS"})),
            "cockpit.forward.queue: only one of url, service or queue"
        );
        for bad in ["", "9lives", "my-app", "a.b", "APP "] {
            assert!(
                error(json!({ "service": bad }))
                    .starts_with("cockpit.forward.service: expected a binding name"),
                "{bad:?}"
            );
        }
        assert!(
            error(json!({ "queue": 7 })).starts_with("cockpit.forward.queue: expected a string")
        );
        assert!(error(json!({ "url": "ftp://x" })).starts_with("cockpit.forward.url:"));
    }

    #[test]
    fn sync_mode_needs_an_answering_destination_not_a_queue() {
        let mut v = cockpit();
        v["forward"] = json!({"queue": "EVENTS", "mode": "sync"});
        assert!(SourceConfig::from_json("cockpit", &v)
            .unwrap_err()
            .to_string()
            .starts_with("cockpit.forward.mode: sync needs an answer"));
        v["forward"] = json!({"service": "APP", "mode": "sync"});
        let s = SourceConfig::from_json("cockpit", &v).unwrap();
        assert_eq!(s.destinations[0].forward.mode, ForwardMode::Sync);
    }

    #[test]
    fn source_names_are_url_safe() {
        assert!(matches!(
            Sources::from_json(&json!({"a/b": cockpit()})),
            Err(ConfigError::Invalid(..))
        ));
        assert!(Sources::from_json(&json!({"cockpit": cockpit()})).is_ok());
    }

    #[test]
    fn a_generic_hmac_source_is_described_in_its_config_and_errors_name_the_field() {
        let mut v = cockpit();
        v["scheme"] = json!("hmac");
        v["hmac"] = json!({
            "header": "X-Acme-Signature", "prefix": "sha256=", "encoding": "base64",
            "signed": "{timestamp}.{body}", "timestamp_header": "x-acme-timestamp",
        });
        let s = SourceConfig::from_json("acme", &v).unwrap();
        let spec = s.scheme.spec().unwrap();
        assert_eq!(spec.header, "x-acme-signature");
        assert_eq!(s.tolerance, Seconds(300));
        assert!(s.headers_read().contains(&"x-acme-timestamp"));

        let bad = |field: &str, value: Value| {
            let mut v = v.clone();
            v["hmac"][field] = value;
            SourceConfig::from_json("acme", &v).unwrap_err().to_string()
        };
        assert!(bad("signed", json!("{ts}.{body}"))
            .starts_with("acme.hmac.signed: unknown placeholder"));
        assert!(bad("encoding", json!("hex64")).starts_with("acme.hmac.encoding:"));
        assert!(bad("nope", json!(1)).starts_with("acme.hmac.nope: unknown field"));
        let mut no_ts = v.clone();
        no_ts["hmac"]
            .as_object_mut()
            .unwrap()
            .remove("timestamp_header");
        assert!(SourceConfig::from_json("acme", &no_ts)
            .unwrap_err()
            .to_string()
            .starts_with("acme.hmac.timestamp_header:"));
        let mut missing = v.clone();
        missing.as_object_mut().unwrap().remove("hmac");
        assert_eq!(
            SourceConfig::from_json("acme", &missing),
            Err(ConfigError::Missing("acme.hmac".into()))
        );
    }

    #[test]
    fn a_configured_url_passes_the_outbound_guard_or_fails_the_configuration() {
        let with_url = |url: &str| {
            let mut v = cockpit();
            v["forward"] = json!({ "url": url });
            Sources::from_json(&json!({ "cockpit": v })).unwrap()
        };
        let strict = Policy::default();
        let open = Policy::from_var(Some("true")).unwrap();
        assert_eq!(
            with_url("https://app.example/in").check_outbound(strict),
            Ok(())
        );
        let local = with_url("http://127.0.0.1:9000/in");
        assert_eq!(local.check_outbound(open), Ok(()));
        let e = local.check_outbound(strict).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cockpit.forward.url: plain http://"),
            "{e}"
        );
        let e = with_url("https://169.254.169.254/")
            .check_outbound(strict)
            .unwrap_err();
        assert!(e.to_string().contains("no-private-destinations"), "{e}");
        assert!(Policy::from_var(Some("yes")).is_err());
        assert_eq!(Policy::from_var(Some("false")), Ok(strict));
    }

    #[test]
    fn state_is_never_decided_by_a_header_the_signature_does_not_cover() {
        let source = |scheme: &str, effects: Value, extra: Value| {
            let mut v = json!({ "scheme": scheme, "secrets": ["S"], "effects": effects });
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            SourceConfig::from_json("src", &v)
        };
        let ledger = json!({ "paid": { "ledger": "/amount" } });
        let field = |r: Result<SourceConfig, ConfigError>| match r {
            Err(ConfigError::Invalid(at, why)) => {
                assert!(why.to_string().contains("trust_unsigned_headers"), "{why}");
                at
            }
            other => panic!("expected a refusal, got {other:?}"),
        };
        // Shopify and GitHub sign only the body; their ids come from headers.
        assert_eq!(
            field(source("shopify", ledger.clone(), json!({}))),
            "src.fields.id"
        );
        assert_eq!(
            field(source("github", ledger.clone(), json!({}))),
            "src.fields.id"
        );
        // Snapshots take their version from the body (Shopify's /updated_at): signed.
        let snap = json!({ "*": "snapshot" });
        assert!(source("shopify", snap, json!({})).is_ok());
        // The generic scheme: headers it reads must be in `signed`, or trusted explicitly.
        let hmac = |signed: &str| json!({ "hmac": { "header": "x-sig", "signed": signed }, "id_header": "x-id" });
        assert_eq!(
            field(source("hmac", ledger.clone(), hmac("{body}"))),
            "src.fields.id"
        );
        assert!(source("hmac", ledger.clone(), hmac("{header:x-id}.{body}")).is_ok());
        // Standard Webhooks signs webhook-id.
        let swh = json!({ "id_header": "webhook-id" });
        assert!(source("standard-webhooks", ledger.clone(), swh).is_ok());
        // The opt-in.
        let trusted = source("shopify", ledger, json!({ "trust_unsigned_headers": true }));
        assert!(trusted.unwrap().trust_unsigned_headers);
        // Notify effects decide no state: an unsigned id only names the event.
        assert!(source("github", json!({ "*": "notify" }), json!({})).is_ok());
    }

    #[test]
    fn presets_read_their_providers_fields() {
        let mut v = cockpit();
        v["scheme"] = json!("shopify");
        v["effects"] = json!({ "orders/updated": "snapshot" });
        let s = SourceConfig::from_json("shop", &v).unwrap();
        assert_eq!(s.shape.id, FieldSource::Header("x-shopify-event-id".into()));
        assert_eq!(s.shape.kind, FieldSource::Header("x-shopify-topic".into()));
        assert_eq!(
            s.shape.created_at,
            FieldSource::Pointer("/updated_at".into()),
            "Shopify's version is the signed resource's own"
        );
        v["scheme"] = json!("slack");
        let s = SourceConfig::from_json("slack", &v).unwrap();
        assert_eq!(s.shape.id, FieldSource::Pointer("/event_id".into()));
        assert_eq!(s.tolerance, Seconds(300));
        v["scheme"] = json!("paypal");
        assert!(SourceConfig::from_json("x", &v).is_err());
        v["scheme"] = json!("slack");
        v["hmac"] = json!({ "header": "x" });
        assert!(
            SourceConfig::from_json("x", &v).is_err(),
            "hmac only with scheme = hmac"
        );
    }

    #[test]
    fn a_refusal_by_the_schedule_or_the_hmac_spec_is_kept_typed_and_named_in_the_message() {
        let mut v = cockpit();
        v["forward"] = json!({"url": "https://app.example/in", "schedule_secs": [10, 0]});
        let e = SourceConfig::from_json("cockpit", &v).unwrap_err();
        assert_eq!(
            e,
            ConfigError::Invalid(
                "cockpit.forward.schedule_secs".into(),
                FieldError::Schedule(ScheduleError::ZeroDelay { index: 1 })
            )
        );
        assert_eq!(
            e.to_string(),
            "cockpit.forward.schedule_secs: expected positive, non-decreasing delays within the \
             window (retry delay 1 is zero)"
        );
        let cause = std::error::Error::source(&e).expect("the schedule's error is the cause");
        assert_eq!(cause.to_string(), "retry delay 1 is zero");

        let mut v = cockpit();
        v["scheme"] = json!("hmac");
        v["hmac"] = json!({"header": "x-sig", "signed": "{ts}.{body}"});
        let e = SourceConfig::from_json("acme", &v).unwrap_err();
        assert_eq!(
            e,
            ConfigError::Invalid(
                "acme.hmac.signed".into(),
                FieldError::Spec(SpecError::UnknownPlaceholder("ts".into()))
            )
        );
        assert_eq!(
            e.to_string(),
            "acme.hmac.signed: unknown placeholder {ts}: expected {body}, {timestamp} or \
             {header:NAME}"
        );
    }
}

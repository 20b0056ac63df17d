//! A destination's `max_in_flight`, `max_per_second` and `breaker` table become the
//! settings its gate is asked with; what is left out keeps protect's defaults, and each
//! bad value is refused naming the field as it is configured.

use hookonce_core::config::{ConfigError, SourceConfig};
use hookonce_core::gate::settings_for;
use hookonce_core::protect::Settings;
use hookonce_core::time::Seconds;
use serde_json::{json, Value};

fn source(destinations: Value) -> Result<SourceConfig, ConfigError> {
    SourceConfig::from_json(
        "stripe",
        &json!({"scheme": "stripe", "secrets": ["S"], "destinations": destinations}),
    )
}

fn error(billing: Value) -> String {
    let mut d = json!({"url": "https://billing.example/hooks"});
    for (k, v) in billing.as_object().unwrap() {
        d[k] = v.clone();
    }
    source(json!({ "billing": d }))
        .expect_err("refused")
        .to_string()
}

#[test]
fn every_field_is_read_into_the_destinations_settings() {
    let s = source(json!({"billing": {
        "url": "https://billing.example/hooks",
        "max_in_flight": 3, "max_per_second": 40,
        "breaker": {"failures": 50, "failure_rate": 100, "min_attempts": 200,
                    "window_secs": 120, "cool_down_secs": 5, "max_cool_down_secs": 60},
    }}))
    .unwrap();
    let got = settings_for(&s, "billing").unwrap();
    assert_eq!((got.max_in_flight(), got.max_per_second()), (3, Some(40)));
    assert_eq!(
        (
            got.failure_threshold(),
            got.failure_rate(),
            got.min_attempts()
        ),
        (50, 100, 200)
    );
    assert_eq!(
        (got.window(), got.cool_down(), got.max_cool_down()),
        (Seconds(120), Seconds(5), Seconds(60))
    );
    assert_eq!(got.lease(), Settings::LEASE);
    assert_eq!(settings_for(&s, "other"), None);
}

#[test]
fn left_out_fields_keep_the_defaults_and_forward_takes_them_too() {
    let s = source(json!({"a": {"queue": "Q"}, "b": {"queue": "Q", "breaker": {"failures": 9}}}))
        .unwrap();
    assert_eq!(settings_for(&s, "a"), Some(Settings::default()));
    let b = settings_for(&s, "b").unwrap();
    assert_eq!(b.failure_threshold(), 9);
    assert_eq!((b.failure_rate(), b.max_in_flight()), (50, 10));
    let single = SourceConfig::from_json(
        "stripe",
        &json!({"scheme": "stripe", "secrets": ["S"],
                "forward": {"service": "APP", "max_in_flight": 2, "breaker": {"cool_down_secs": 1}}}),
    )
    .unwrap();
    let d = settings_for(&single, "default").unwrap();
    assert_eq!((d.max_in_flight(), d.cool_down()), (2, Seconds(1)));
}

#[test]
fn each_bad_value_names_its_field() {
    let at = "stripe.destinations.billing";
    let cases = [
        (
            json!({"max_in_flight": 0}),
            "max_in_flight",
            "must be from 1 to 1000",
        ),
        (
            json!({"max_in_flight": 1001}),
            "max_in_flight",
            "must be from 1 to 1000",
        ),
        (
            json!({"max_per_second": 0}),
            "max_per_second",
            "must be from 1 to 100000",
        ),
        (
            json!({"max_per_second": "ten"}),
            "max_per_second",
            "expected a whole number",
        ),
        (
            json!({"breaker": {"failures": 0}}),
            "breaker.failures",
            "must be from 1 to 10000",
        ),
        (
            json!({"breaker": {"failures": 5_000_000_000u64}}),
            "breaker.failures",
            "must be from 1 to 10000",
        ),
        (
            json!({"breaker": {"failure_rate": 0}}),
            "breaker.failure_rate",
            "must be a percentage from 1 to 100",
        ),
        (
            json!({"breaker": {"failure_rate": 0.5}}),
            "breaker.failure_rate",
            "expected a whole number",
        ),
        (
            json!({"breaker": {"failure_rate": 300}}),
            "breaker.failure_rate",
            "must be a percentage from 1 to 100",
        ),
        (
            json!({"breaker": {"min_attempts": 0}}),
            "breaker.min_attempts",
            "must be from 1 to 10000",
        ),
        (
            json!({"breaker": {"window_secs": 3601}}),
            "breaker.window_secs",
            "must be from 1 to 3600",
        ),
        (
            json!({"breaker": {"cool_down_secs": 0}}),
            "breaker.cool_down_secs",
            "must be from 1 to max_cool_down_secs",
        ),
        (
            json!({"breaker": {"cool_down_secs": 700}}),
            "breaker.cool_down_secs",
            "must be from 1 to max_cool_down_secs",
        ),
        (
            json!({"breaker": {"max_cool_down_secs": 3601}}),
            "breaker.max_cool_down_secs",
            "must be from 1 to 3600",
        ),
        (
            json!({"breaker": {"window_secs": -1}}),
            "breaker.window_secs",
            "expected a whole number of seconds",
        ),
    ];
    for (bad, field, why) in cases {
        assert_eq!(error(bad.clone()), format!("{at}.{field}: {why}"), "{bad}");
    }
    assert_eq!(
        error(json!({"breaker": {"failure": 3}})),
        format!("{at}.breaker.failure: unknown field")
    );
    assert_eq!(
        error(json!({"breaker": 5})),
        format!("{at}.breaker: expected an object")
    );
}

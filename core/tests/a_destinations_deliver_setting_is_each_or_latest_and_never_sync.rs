//! `deliver` chooses whether a destination is sent every row or only each entity's newest
//! snapshot; it is `each` unless set, and `latest` is refused on a sync destination, whose
//! calls carry the event the provider waits on.

use hookonce_core::config::{ConfigError, Deliver, SourceConfig};
use serde_json::{json, Value};

fn source(billing: Value) -> Result<SourceConfig, ConfigError> {
    SourceConfig::from_json(
        "stripe",
        &json!({"scheme": "stripe", "secrets": ["S"], "destinations": {"billing": billing}}),
    )
}

fn deliver(billing: Value) -> Deliver {
    let s = source(billing).unwrap();
    s.destination("billing").unwrap().forward.deliver
}

#[test]
fn deliver_is_each_unless_set_to_latest() {
    let url = "https://billing.example/hooks";
    assert_eq!(deliver(json!({ "url": url })), Deliver::Each);
    assert_eq!(
        deliver(json!({ "url": url, "deliver": "each" })),
        Deliver::Each
    );
    assert_eq!(
        deliver(json!({ "url": url, "deliver": "latest" })),
        Deliver::Latest
    );
}

#[test]
fn an_unknown_value_and_latest_with_sync_are_refused_naming_the_field() {
    let err = |billing: Value| source(billing).expect_err("refused").to_string();
    let unknown = err(json!({ "url": "https://billing.example/", "deliver": "newest" }));
    assert!(
        unknown.contains("stripe.destinations.billing.deliver")
            && unknown.contains("each or latest"),
        "{unknown}"
    );
    let sync = err(json!({ "service": "APP", "mode": "sync", "deliver": "latest" }));
    assert!(
        sync.contains("stripe.destinations.billing.deliver") && sync.contains("sync"),
        "{sync}"
    );
}

//! Shared helpers: real sign → verify → parse, so tests reach events the only way code can.
#![allow(dead_code)]

use hookonce_core::config::SourceConfig;
use hookonce_core::event::{Event, ParseError};
use hookonce_core::verify::{Scheme, Verifier};
use hookonce_core::{sign, Seconds, UnixSeconds};
use serde_json::{json, Value};

/// The public Standard Webhooks example secret (also the sample source's local secret).
pub const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
pub const NOW: UnixSeconds = UnixSeconds(1_791_270_390);

pub fn cockpit() -> SourceConfig {
    SourceConfig::from_json(
        "cockpit",
        &json!({
            "scheme": "standard-webhooks",
            "secrets": ["COCKPIT_SECRET"],
            "effects": {
                "cardholder.updated": "snapshot",
                "payment.captured": { "ledger": "/data/object/amount" },
                "*": "notify"
            }
        }),
    )
    .expect("sample source is valid")
}

/// Signs `body` as the provider would, verifies it and parses it with `source`.
pub fn parse(source: &SourceConfig, body: &Value) -> Result<Event, ParseError> {
    let secret = Scheme::StandardWebhooks.parse_secret(SECRET).unwrap();
    let bytes = serde_json::to_vec(body).unwrap();
    let msg_id = body["id"].as_str().unwrap_or("msg_none");
    let ts = NOW.0.to_string();
    let sig = sign::standard_webhooks(&secret, msg_id, NOW, &bytes);
    let headers = [
        ("webhook-id", msg_id),
        ("webhook-timestamp", ts.as_str()),
        ("webhook-signature", sig.as_str()),
    ];
    let verifier = Verifier::new(Scheme::StandardWebhooks, vec![secret], Seconds(300)).unwrap();
    let verified = verifier
        .verify(&headers[..], &bytes, NOW)
        .expect("signature verifies");
    Event::parse(&verified, &headers[..], &source.shape)
}

pub fn event(body: &Value) -> Event {
    parse(&cockpit(), body).expect("event parses")
}

/// A snapshot event for card `card`, created at `secs` past NOW, reporting `status`.
pub fn snapshot(id: &str, card: &str, secs: i64, status: &str) -> Value {
    json!({
        "id": id,
        "type": "cardholder.updated",
        "created_at": secs + NOW.0,
        "data": { "object": { "id": card, "status": status } }
    })
}

/// A ledger event adding `amount` to `card`.
pub fn payment(id: &str, card: &str, secs: i64, amount: i64) -> Value {
    json!({
        "id": id,
        "type": "payment.captured",
        "created_at": secs + NOW.0,
        "data": { "object": { "id": card, "amount": amount } }
    })
}

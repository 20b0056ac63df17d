//! Shared helpers: real sign → verify → parse, so tests reach events the only way code can.
#![allow(dead_code)]

pub mod model;

use hookonce_core::config::SourceConfig;
use hookonce_core::decide::{decide, Decision, Delivery, Plan, Stored};
use hookonce_core::event::{Event, ParseError};
use hookonce_core::sign;
use hookonce_core::time::{Seconds, UnixSeconds};
use hookonce_core::verify::{Scheme, Verifier};
use serde_json::{json, Value};

/// The public Standard Webhooks example secret (also the sample source's local secret).
pub const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
pub const NOW: UnixSeconds = UnixSeconds(1_791_270_390);

pub fn cockpit() -> SourceConfig {
    cockpit_forwarding("forward", json!({ "url": "https://app.example/hooks" }))
}

/// The sample source with `value` as its `forward` or `destinations` (`key`).
pub fn cockpit_forwarding(key: &str, value: Value) -> SourceConfig {
    let mut source = json!({
        "scheme": "standard-webhooks",
        "secrets": ["COCKPIT_SECRET"],
        "effects": {
            "cardholder.updated": "snapshot",
            "payment.captured": { "ledger": "/data/object/amount" },
            "*": "notify"
        },
    });
    source[key] = value;
    SourceConfig::from_json("cockpit", &source).expect("sample source is valid")
}

/// A delivery as the adapter holds it after steps 2 and 3: source, event, headers, body.
pub struct Signed {
    pub source: SourceConfig,
    pub event: Event,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Signed {
    pub fn delivery(&self) -> Delivery<'_> {
        Delivery {
            source: &self.source,
            event: &self.event,
            headers: &self.headers,
            body: &self.body,
        }
    }

    pub fn decide(&self, stored: &Stored, plan: Plan, now: UnixSeconds) -> Decision<'_> {
        decide(self.delivery(), stored, plan, now)
    }
}

impl std::ops::Deref for Signed {
    type Target = Event;
    fn deref(&self) -> &Event {
        &self.event
    }
}

/// Signs `body` as the provider would, verifies it and parses it with `source`.
pub fn parse_signed(source: &SourceConfig, body: &Value) -> Result<Signed, ParseError> {
    let secret = Scheme::StandardWebhooks.parse_secret(SECRET).unwrap();
    let bytes = serde_json::to_vec(body).unwrap();
    let msg_id = body["id"].as_str().unwrap_or("msg_none");
    let headers: Vec<(String, String)> =
        sign::headers(&source.scheme, &secret, msg_id, NOW, &bytes)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
    let verifier = Verifier::new(Scheme::StandardWebhooks, vec![secret], Seconds(300)).unwrap();
    let verified = verifier
        .verify(&headers, &bytes, NOW)
        .expect("signature verifies");
    let event = Event::parse(&verified, &headers, &source.shape)?;
    Ok(Signed {
        source: source.clone(),
        event,
        headers,
        body: bytes,
    })
}

/// [`parse_signed`], for tests about parsing.
pub fn parse(source: &SourceConfig, body: &Value) -> Result<Event, ParseError> {
    parse_signed(source, body).map(|s| s.event)
}

pub fn event(body: &Value) -> Signed {
    parse_signed(&cockpit(), body).expect("event parses")
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

/// A scenario for the ordering properties: creation times of snapshots of one card (with
/// ties, so the id tiebreak is exercised too), and a script of `steps(n)` for `n` events.
pub fn timed_script<S: proptest::strategy::Strategy>(
    steps: fn(usize) -> S,
) -> impl proptest::strategy::Strategy<Value = (Vec<i64>, S::Value)> {
    use proptest::prelude::*;
    prop::collection::vec(0i64..8, 1..8).prop_flat_map(move |times| {
        let n = times.len();
        (Just(times), steps(n))
    })
}

/// Snapshot events `evt_{i}` of `card_1`, created `times[i]` past NOW.
pub fn snapshots(times: &[i64]) -> Vec<Signed> {
    times
        .iter()
        .enumerate()
        .map(|(i, t)| {
            event(&snapshot(
                &format!("evt_{i}"),
                "card_1",
                *t,
                &format!("s{i}"),
            ))
        })
        .collect()
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

/// A gate's grant of lease `lease` until `until`, as the gate object's answer carries it
/// (a `Grant` is made by the gate only).
pub fn grant(lease: u64, until: hookonce_core::time::UnixSeconds) -> hookonce_core::protect::Ask {
    let wire = serde_json::json!({
        "answer": "grant", "lease": lease, "until": until.0, "probe": false, "healthy_since": null,
    });
    match hookonce_core::gate::Answer::decode(wire.to_string().as_bytes()) {
        Some(hookonce_core::gate::Answer::Ask { ask, .. }) => ask,
        other => panic!("a grant's wire decoded to {other:?}"),
    }
}

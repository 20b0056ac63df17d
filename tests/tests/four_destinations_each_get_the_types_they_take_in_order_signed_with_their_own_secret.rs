//! Fan-out on workerd: one source with two HTTP origins, a service binding and a queue at
//! once. Each destination receives exactly the applied events whose type its `types`
//! take, each once, in order per entity, and each message verifies with the published
//! `standardwebhooks` package under that destination's own secret only.

use std::time::Duration;

use hookonce_e2e::origin::{self, assert_in_order_per_entity, Origin, Recorded, Sent};
use hookonce_e2e::peers::{self, QUEUE, QUEUE_PATH, SERVICE, SERVICE_PATH};
use hookonce_e2e::{oracle, unix_now};
use serde_json::{json, Value};

/// Each destination: its name, its types, its secret's binding and value.
const DESTINATIONS: [(&str, &[&str], &str, &str); 4] = [
    (
        "billing",
        &["payment.*"],
        "BILLING_SECRET",
        "whsec_6vtjLsYOUQneQC4NEniS87wGh4Tmwa5r",
    ),
    (
        "audit",
        &["*"],
        "AUDIT_SECRET",
        "whsec_KJNbNCGGD8RLaw4RkfEfTofIFd85vdp0",
    ),
    (
        "app",
        &["item.*"],
        "APP_SECRET",
        "whsec_i3Ia3jnC5GfH7y/KAgnxQIkS4SAxoN0L",
    ),
    (
        "analytics",
        &["item.noticed"],
        "ANALYTICS_SECRET",
        "whsec_oQhJSQCR7jlQZe7GPegtUoSCBwojN/JA",
    ),
];

const TYPES: [&str; 4] = [
    "item.snapshot",
    "item.noticed",
    "payment.captured",
    "item.noticed",
];

/// The oracle: whether `types` take `kind` (`*`, `prefix.*` or the type itself).
fn takes(types: &[&str], kind: &str) -> bool {
    types.iter().any(|t| {
        *t == "*"
            || *t == kind
            || t.strip_suffix(".*")
                .is_some_and(|p| kind.starts_with(&format!("{p}.")))
    })
}

/// The event id, the three `webhook-*` headers and the body of one received message: a
/// request as it came, or a queue message as the consumer relayed it.
fn message(r: &Recorded) -> (String, Value, Vec<u8>) {
    let pick = |get: &dyn Fn(&str) -> String| -> Value {
        let names = ["webhook-id", "webhook-timestamp", "webhook-signature"];
        names
            .iter()
            .map(|h| (h.to_string(), json!(get(h))))
            .collect()
    };
    if r.path == QUEUE_PATH {
        let m = r.json();
        let h = m["headers"].clone();
        let headers = pick(&|name| h[name].as_str().unwrap_or_default().to_owned());
        let body = m["body"].as_str().expect("a text body").as_bytes().to_vec();
        (m["event_id"].as_str().unwrap().to_owned(), headers, body)
    } else {
        let headers = pick(&|name| r.must(name).to_owned());
        (r.must("webhook-id").to_owned(), headers, r.body.clone())
    }
}

#[test]
fn each_destination_gets_exactly_its_types_in_order_under_its_own_secret() {
    let (billing, audit, peer) = (Origin::start(), Origin::start(), Origin::start());
    let mut destinations = json!({
        "billing": { "url": billing.url("/billing") },
        "audit": { "url": audit.url("/audit") },
        "app": { "service": SERVICE },
        "analytics": { "queue": QUEUE },
    });
    for (name, types, binding, _) in DESTINATIONS {
        destinations[name]["types"] = json!(types);
        destinations[name]["secrets"] = json!([binding]);
    }
    let builder = peers::builder_for(&peer, origin::sources_to(destinations));
    let w = DESTINATIONS
        .iter()
        .fold(builder, |b, (_, _, binding, secret)| {
            b.secret(binding, secret)
        })
        .start();

    let mut sent = Vec::new();
    let now = unix_now();
    for (i, kind) in TYPES.iter().enumerate() {
        for entity in ["fan_a", "fan_b"] {
            let id = format!("evt_{entity}_{i}");
            let body = origin::event_body(&id, kind, entity, now + i as i64);
            let r = origin::deliver_body(&w, &id, &body);
            assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
            sent.push((
                kind,
                Sent {
                    entity: entity.to_owned(),
                    id,
                    body,
                },
            ));
        }
    }

    let expect = |types: &[&str]| -> Vec<Sent> {
        sent.iter()
            .filter(|(k, _)| takes(types, k))
            .map(|(_, s)| s.clone())
            .collect()
    };
    let received = |name: &str| -> Vec<Recorded> {
        let (origin, path) = match name {
            "billing" => (&billing, "/billing"),
            "audit" => (&audit, "/audit"),
            "app" => (&peer, SERVICE_PATH),
            _ => (&peer, QUEUE_PATH),
        };
        origin
            .requests()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    };
    for (name, types, _, secret) in DESTINATIONS {
        let want = expect(types);
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while received(name).len() < want.len() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(200));
        }
        let got = received(name);
        let ids: Vec<String> = got.iter().map(|r| message(r).0).collect();
        let mut want_ids: Vec<&str> = want.iter().map(|s| s.id.as_str()).collect();
        let mut sorted: Vec<&str> = ids.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        want_ids.sort_unstable();
        assert_eq!(
            sorted, want_ids,
            "{name} gets exactly what its types take, once each"
        );
        let arrived: Vec<&str> = ids.iter().map(String::as_str).collect();
        assert_in_order_per_entity(&want, &arrived);

        for (k, r) in got.iter().enumerate() {
            let (id, headers, body) = message(r);
            let sent_body = &want.iter().find(|s| s.id == id).unwrap().body;
            assert_eq!(&body, sent_body, "{name}: the original body");
            assert_eq!(
                oracle::standardwebhooks_says(secret, &headers, &body),
                "verified",
                "{name}: {id} under its own secret"
            );
            // Under every other destination's secret it is refused (checked on the first).
            for (other, _, _, wrong) in DESTINATIONS.iter().filter(|d| d.0 != name && k == 0) {
                let said = oracle::standardwebhooks_says(wrong, &headers, &body);
                assert!(
                    said.starts_with("rejected"),
                    "{name}'s {id} under {other}'s: {said}"
                );
            }
        }
    }
}

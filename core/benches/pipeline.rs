//! Events per second per core for the synchronous part of one delivery, native:
//! `hmac_only` (the floor: one HMAC-SHA256 over `{id}.{ts}.{body}`), then `verify`,
//! `verify+parse` and `verify+parse+decide` on a fresh entity, for 1 KiB and 64 KiB bodies.
//!
//! `bench/run.sh` reads the medians from `target/criterion/<size>/<step>/new/estimates.json`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use hookonce_core::config::SourceConfig;
use hookonce_core::decide::{decide, Delivery, Plan, Stored};
use hookonce_core::event::Event;
use hookonce_core::sign;
use hookonce_core::time::{Seconds, UnixSeconds};
use hookonce_core::verify::{Scheme, Verifier};
use serde_json::json;

// The load generator's bodies, byte for byte, so the native and workerd figures match.
#[path = "../../bench/loadgen/src/event.rs"]
mod event;

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const NOW: UnixSeconds = UnixSeconds(1_791_270_390);

fn pipeline(c: &mut Criterion) {
    let source = SourceConfig::from_json(
        "cockpit",
        &json!({
            "scheme": "standard-webhooks",
            "secrets": ["COCKPIT_SECRET"],
            "effects": { event::EVENT_TYPE: "snapshot", "*": "notify" }
        }),
    )
    .expect("bench source is valid");
    let secret = Scheme::StandardWebhooks
        .parse_secret(SECRET)
        .expect("secret");
    let verifier = Verifier::new(Scheme::StandardWebhooks, vec![secret.clone()], Seconds(300))
        .expect("verifier");
    let plan = Plan::Apply { forward: false };

    for (label, size) in [("1KiB", event::SMALL_BODY), ("64KiB", event::BIG_BODY)] {
        let id = "evt_bench_1";
        let body = event::body(id, "card_1", NOW.0, size);
        let ts = NOW.to_string();
        let signature = sign::standard_webhooks(&secret, id, NOW, &body);
        let owned: Vec<(String, String)> = [
            ("webhook-id", id),
            ("webhook-timestamp", ts.as_str()),
            ("webhook-signature", signature.as_str()),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let headers = &owned[..];
        let verified = || {
            verifier
                .verify(headers, black_box(&body), NOW)
                .expect("verifies")
        };
        let parsed = || Event::parse(&verified(), headers, &source.shape).expect("parses");

        let mut group = c.benchmark_group(label);
        // One element = one event, so criterion reports events/s.
        group.throughput(Throughput::Elements(1));
        group.bench_function("hmac_only", |b| {
            b.iter(|| sign::standard_webhooks(&secret, id, NOW, black_box(&body)))
        });
        group.bench_function("verify", |b| b.iter(|| verified().signed_at()));
        group.bench_function("verify+parse", |b| b.iter(parsed));
        group.bench_function("verify+parse+decide", |b| {
            b.iter(|| {
                let event = parsed();
                let delivery = Delivery {
                    source: &source,
                    event: &event,
                    headers,
                    body: &body,
                };
                black_box(decide(delivery, &Stored::default(), plan, NOW)).label()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, pipeline);
criterion_main!(benches);

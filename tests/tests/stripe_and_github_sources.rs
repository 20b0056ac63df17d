//! Stripe and GitHub sources end to end: each scheme's own signature header, its own event
//! shape, and deduplication on its own event id (Stripe's `evt_…` in the body, GitHub's
//! `X-GitHub-Delivery`, which GitHub keeps when it redelivers).

use hookonce_e2e::events::{assert_problem, outcome};
use hookonce_e2e::{sign_github, sign_stripe, unix_now, Worker};
use serde_json::json;

const STRIPE_SECRET: &str = "whsec_stripe_e2e_secret";
const GITHUB_SECRET: &str = "It's a Secret to Everybody";

fn worker() -> Worker {
    Worker::builder()
        .var(
            "HOOKONCE_SOURCES",
            json!({
                "stripe": {
                    "scheme": "stripe",
                    "secrets": ["STRIPE_SECRET"],
                    "effects": { "customer.updated": "snapshot", "*": "notify" }
                },
                "github": { "scheme": "github", "secrets": ["GITHUB_SECRET"] }
            }),
        )
        .secret("STRIPE_SECRET", STRIPE_SECRET)
        .secret("GITHUB_SECRET", GITHUB_SECRET)
        .start()
}

fn stripe_delivery(w: &Worker, body: &[u8]) -> hookonce_e2e::Resp {
    let header = sign_stripe(STRIPE_SECRET, unix_now(), body);
    w.post(
        "/webhooks/stripe",
        &[("stripe-signature", header.as_str())],
        body,
    )
}

fn github_delivery(w: &Worker, delivery: &str, body: &[u8]) -> hookonce_e2e::Resp {
    let header = sign_github(GITHUB_SECRET, body);
    w.post(
        "/webhooks/github",
        &[
            ("x-hub-signature-256", header.as_str()),
            ("x-github-delivery", delivery),
            ("x-github-event", "push"),
        ],
        body,
    )
}

#[test]
fn stripe_and_github_deliveries_are_verified_and_deduplicated_on_their_event_ids() {
    let w = worker();

    // Stripe: `created` is unix seconds, the entity is data.object.id.
    let older = json!({"id": "evt_s1", "type": "customer.updated", "created": 1_791_270_000,
                       "data": {"object": {"id": "cus_1", "email": "old@example.com"}}});
    let newer = json!({"id": "evt_s2", "type": "customer.updated", "created": 1_791_270_100,
                       "data": {"object": {"id": "cus_1", "email": "new@example.com"}}});
    let newer = serde_json::to_vec(&newer).unwrap();
    let older = serde_json::to_vec(&older).unwrap();
    assert_eq!(outcome(&stripe_delivery(&w, &newer)), "applied");
    assert_eq!(outcome(&stripe_delivery(&w, &older)), "stale");
    assert_eq!(outcome(&stripe_delivery(&w, &newer)), "duplicate");
    let unsigned = w.post(
        "/webhooks/stripe",
        &[("stripe-signature", "t=1,v1=00")],
        &newer[..],
    );
    assert_problem(&unsigned, 401, "invalid-signature");

    // GitHub: the body has no event id; the delivery header is the id.
    let push = br#"{"ref":"refs/heads/main","after":"abc"}"#;
    let first = github_delivery(&w, "72d3162e-cc78-11e3-81ab-4c9367dc0958", push);
    assert_eq!(outcome(&first), "applied", "{first}");
    let redelivered = github_delivery(&w, "72d3162e-cc78-11e3-81ab-4c9367dc0958", push);
    assert_eq!(outcome(&redelivered), "duplicate", "{redelivered}");
    let another = github_delivery(&w, "8a1b0000-cc78-11e3-81ab-4c9367dc0958", push);
    assert_eq!(
        outcome(&another),
        "applied",
        "same body, another event: {another}"
    );
    let tampered = w.post(
        "/webhooks/github",
        &[
            (
                "x-hub-signature-256",
                sign_github(GITHUB_SECRET, push).as_str(),
            ),
            ("x-github-delivery", "99"),
            ("x-github-event", "push"),
        ],
        &br#"{"ref":"refs/heads/evil","after":"abc"}"#[..],
    );
    assert_problem(&tampered, 401, "invalid-signature");
}

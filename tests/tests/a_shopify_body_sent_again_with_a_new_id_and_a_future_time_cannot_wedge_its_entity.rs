//! Shopify signs only the body. A snapshot's version comes from the body's own
//! `updated_at`, never from the unsigned `X-Shopify-Triggered-At`: whoever holds one signed
//! body can send it again with a new event id and a far-future time, and the entity still
//! takes the next real update.

use hookonce_e2e::events::{admin_get, outcome};
use hookonce_e2e::schemes::shopify_signature;
use hookonce_e2e::Worker;
use serde_json::json;

const SECRET: &str = "shpss_e2e_wedge_secret";

fn send(w: &Worker, event_id: &str, triggered_at: &str, body: &[u8]) -> hookonce_e2e::Resp {
    let sig = shopify_signature(SECRET, body);
    w.post(
        "/webhooks/shop",
        &[
            ("x-shopify-hmac-sha256", sig.as_str()),
            ("x-shopify-event-id", event_id),
            ("x-shopify-topic", "orders/updated"),
            ("x-shopify-triggered-at", triggered_at),
        ],
        body,
    )
}

#[test]
fn a_shopify_body_sent_again_with_a_new_id_and_a_future_time_cannot_wedge_its_entity() {
    let w = Worker::builder()
        .var(
            "HOOKONCE_SOURCES",
            json!({ "shop": { "scheme": "shopify", "secrets": ["SHOP_SECRET"],
                              "effects": { "orders/updated": "snapshot" } } }),
        )
        .secret("SHOP_SECRET", SECRET)
        .start();
    let v1 = br#"{"id":4401,"note":"v1","updated_at":"2026-12-01T10:00:00Z"}"#;
    let v2 = br#"{"id":4401,"note":"v2","updated_at":"2026-12-01T11:00:00Z"}"#;
    let r = send(&w, "evt-real-1", "2026-12-01T10:00:01Z", v1);
    assert_eq!(outcome(&r), "applied", "{r}");

    // The replay: the same signed body, a new id, a time far in the future.
    let forged = send(&w, "evt-forged-9", "2099-01-01T00:00:00Z", v1);
    assert_eq!(forged.status, 200, "{forged}");

    let r = send(&w, "evt-real-2", "2026-12-01T11:00:01Z", v2);
    assert_eq!(outcome(&r), "applied", "the real update is not stale: {r}");
    let state = admin_get(&w, "/entities/shop/4401");
    assert_eq!(state.status, 200, "{state}");
    assert_eq!(state.json()["state"]["note"], "v2", "{state}");
}

//! The Shopify and Slack presets end to end, signed here with the providers' own recipes
//! (independent of hookonce-core): each is verified and deduplicated on its event id, and
//! Slack's url_verification handshake is answered with its challenge.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use hmac::{Hmac, Mac as _};
use hookonce_e2e::events::{assert_problem, outcome};
use hookonce_e2e::schemes::shopify_signature;
use hookonce_e2e::{unix_now, Worker};
use serde_json::json;
use sha2::Sha256;

const SHOPIFY_SECRET: &str = "shpss_e2e_app_secret";
const SLACK_SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";

fn mac(secret: &str, parts: &[&[u8]]) -> Vec<u8> {
    let mut m = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().to_vec()
}

fn worker() -> Worker {
    Worker::builder()
        .var(
            "HOOKONCE_SOURCES",
            json!({
                "shop": { "scheme": "shopify", "secrets": ["SHOPIFY_SECRET"],
                          "effects": { "orders/updated": "snapshot", "*": "notify" } },
                "slack": { "scheme": "slack", "secrets": ["SLACK_SECRET"] },
            }),
        )
        .secret("SHOPIFY_SECRET", SHOPIFY_SECRET)
        .secret("SLACK_SECRET", SLACK_SECRET)
        .start()
}

fn shopify(w: &Worker, event_id: &str, webhook_id: &str, body: &[u8]) -> hookonce_e2e::Resp {
    let sig = shopify_signature(SHOPIFY_SECRET, body);
    w.post(
        "/webhooks/shop",
        &[
            ("x-shopify-hmac-sha256", sig.as_str()),
            ("x-shopify-event-id", event_id),
            ("x-shopify-webhook-id", webhook_id),
            ("x-shopify-topic", "orders/updated"),
            ("x-shopify-triggered-at", "2026-11-30T10:00:00.000Z"),
        ],
        body,
    )
}

fn slack(w: &Worker, body: &[u8], extra: &[(&str, &str)]) -> hookonce_e2e::Resp {
    let ts = unix_now().to_string();
    let sig = format!(
        "v0={}",
        mac(SLACK_SECRET, &[b"v0:", ts.as_bytes(), b":", body])
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    let mut headers = vec![
        ("x-slack-request-timestamp", ts.as_str()),
        ("x-slack-signature", sig.as_str()),
    ];
    headers.extend_from_slice(extra);
    w.post("/webhooks/slack", &headers, body)
}

#[test]
fn shopify_and_slack_deliveries_are_verified_and_deduplicated_on_their_event_ids() {
    let w = worker();

    // Shopify: two subscriptions get the same event, with two webhook ids and one event id.
    let order = br#"{"id":820982911946154508,"email":"jon@example.com","total_price":"10.00","updated_at":"2026-11-30T10:00:00-05:00"}"#;
    let first = shopify(&w, "evt-shop-1", "wh-a", order);
    assert_eq!(outcome(&first), "applied", "{first}");
    assert_eq!(first.json()["entity"], "820982911946154508", "{first}");
    let second = shopify(&w, "evt-shop-1", "wh-b", order);
    assert_eq!(outcome(&second), "duplicate", "{second}");
    let mut forged = order.to_vec();
    forged.extend_from_slice(b" ");
    let sig = B64.encode(mac(SHOPIFY_SECRET, &[order]));
    let r = w.post(
        "/webhooks/shop",
        &[
            ("x-shopify-hmac-sha256", sig.as_str()),
            ("x-shopify-event-id", "evt-shop-2"),
            ("x-shopify-topic", "orders/updated"),
        ],
        &forged,
    );
    assert_problem(&r, 401, "invalid-signature");

    // Slack: the url_verification handshake.
    let r = slack(
        &w,
        br#"{"token":"t","challenge":"c-123","type":"url_verification"}"#,
        &[],
    );
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.json()["challenge"], "c-123", "{r}");

    // Slack: an event, then Slack's retry of it.
    let event = br#"{"type":"event_callback","event_id":"Ev-e2e-1","event_time":1764496800,"event":{"type":"app_mention","text":"hi"}}"#;
    let r = slack(&w, event, &[]);
    assert_eq!(outcome(&r), "applied", "{r}");
    assert_eq!(r.json()["event_type"], "app_mention", "{r}");
    let r = slack(
        &w,
        event,
        &[
            ("x-slack-retry-num", "1"),
            ("x-slack-retry-reason", "http_timeout"),
        ],
    );
    assert_eq!(outcome(&r), "duplicate", "{r}");
}

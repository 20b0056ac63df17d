//! `max_body_bytes` is capped at what an entity's Durable Object can store
//! (`MAX_STORABLE_BODY`, measured on workerd), so a body a source accepts is one hookonce
//! records: a body of exactly the cap that does not compress, all of it a snapshot's state,
//! is applied and kept, and one byte more is a 413 (issue 48). Without the cap, a larger
//! body was accepted and then answered 503 on every retry, forever.

use hookonce_core::body::MAX_STORABLE_BODY;
use hookonce_e2e::events::{cockpit_secret, ADMIN_TOKEN, COCKPIT};
use hookonce_e2e::raw::RawRequest;
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{standard_webhooks_headers, unix_now, wrangler_sources};
use serde_json::{json, Value};

/// A `cardholder.created` of exactly `len` bytes whose object holds `len` bytes, most of
/// them a string that LZ4 cannot shrink (a xorshift stream over 64 characters).
fn incompressible_event(id: &str, entity: &str, len: usize) -> Vec<u8> {
    let head = format!(
        r#"{{"id":"{id}","type":"cardholder.created","created_at":"2026-10-06T00:00:00Z","data":{{"object":{{"id":"{entity}","blob":""#
    );
    let tail = r#""}}}"#;
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut out = head.into_bytes();
    while out.len() < len - tail.len() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.push(alphabet[(state % 64) as usize]);
    }
    out.extend_from_slice(tail.as_bytes());
    assert_eq!(out.len(), len);
    out
}

#[test]
fn a_body_at_the_largest_limit_a_source_may_set_is_stored() {
    let mut sources = wrangler_sources();
    sources[COCKPIT]["max_body_bytes"] = json!(MAX_STORABLE_BODY);
    let w = Workerd::builder().sources(sources).start();
    let deliver = |id: &str, body: &[u8]| {
        let headers = standard_webhooks_headers(&cockpit_secret(), id, unix_now(), body);
        w.post("/webhooks/cockpit", &headers, body)
    };

    let body = incompressible_event("evt_cap", "ch_cap", MAX_STORABLE_BODY);
    let r = deliver("evt_cap", &body);
    assert_eq!(r.status, 200, "{}", r.status);
    assert_eq!(r.json()["outcome"], "applied", "{r}");

    let auth = [("authorization", format!("Bearer {ADMIN_TOKEN}"))];
    let e = w.request("GET", "/entities/cockpit/ch_cap", &auth, None);
    assert_eq!(e.status, 200, "{}", e.status);
    let sent: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        e.json()["state"],
        sent["data"]["object"],
        "the state is kept whole"
    );
    let replay = w.request(
        "POST",
        "/admin/replay/cockpit/evt_cap?entity=ch_cap",
        &auth,
        Some(b""),
    );
    assert_eq!(replay.status, 200, "the body is kept: {}", replay.status);
    assert_eq!(replay.json()["outcome"], "duplicate");

    // One byte more is refused from its Content-Length, before it is read (the runtime may
    // close the connection under a client that goes on sending it, so none is sent).
    let over = RawRequest {
        method: "POST".into(),
        path: "/webhooks/cockpit".into(),
        content_length: Some((MAX_STORABLE_BODY + 1).to_string()),
        half_close: true,
        ..RawRequest::default()
    };
    let r = over.send(w.addr()).expect("an answer");
    assert_eq!(r.status, 413, "{r}");
}

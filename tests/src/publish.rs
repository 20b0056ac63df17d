//! Helpers for the publish API (`POST /v1/messages`).

use crate::{Resp, Worker};

/// The first dev publish token (`HOOKONCE_PUBLISH_TOKENS` in `.dev.vars.example`).
pub fn token() -> String {
    crate::dev_var("HOOKONCE_PUBLISH_TOKENS")
        .split(',')
        .next()
        .expect("a publish token")
        .trim()
        .to_string()
}

/// `key` as an RFC 8941 sf-string: quoted, `"` and `\` escaped.
pub fn sf_string(key: &str) -> String {
    format!("\"{}\"", key.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A publish body for `destination`.
pub fn body(destination: &str, event_type: &str, payload: serde_json::Value) -> Vec<u8> {
    serde_json::json!({ "destination": destination, "event_type": event_type, "payload": payload })
        .to_string()
        .into_bytes()
}

/// `POST /v1/messages` with a bearer `token` (none if `None`) and a raw `Idempotency-Key`
/// header value (none if `None`).
pub fn post(w: &Worker, token: Option<&str>, key_header: Option<&str>, body: &[u8]) -> Resp {
    let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
    if let Some(t) = token {
        headers.push(("authorization".into(), format!("Bearer {t}")));
    }
    if let Some(k) = key_header {
        headers.push(("idempotency-key".into(), k.to_string()));
    }
    w.post("/v1/messages", &headers, body)
}

/// `POST /v1/messages` with the dev token and `key` as an sf-string.
pub fn publish(w: &Worker, key: &str, body: &[u8]) -> Resp {
    post(w, Some(&token()), Some(&sf_string(key)), body)
}

/// `GET /v1/messages/status` under `token`, with a raw `Idempotency-Key` header value.
pub fn status(w: &Worker, token: &str, key_header: &str) -> Resp {
    w.request(
        "GET",
        "/v1/messages/status",
        &[
            ("authorization", format!("Bearer {token}")),
            ("idempotency-key", key_header.to_owned()),
        ],
        None,
    )
}

/// Waits until the message published under `token` and `key_header` is no longer pending:
/// from then on the outbox has nothing left to send for it, so what the origin received
/// is final.
pub fn wait_settled(
    w: &Worker,
    token: &str,
    key_header: &str,
    timeout: std::time::Duration,
) -> serde_json::Value {
    let key = key_header;
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let r = status(w, token, key);
        assert_eq!(r.status, 200, "{r}");
        let j = r.json();
        if j["status"] != "pending" {
            return j;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{key} still pending after {timeout:?}: {j}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

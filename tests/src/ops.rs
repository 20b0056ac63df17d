//! Operational webhooks: a Worker whose `HOOKONCE_OPS` points at an ops endpoint, and the
//! alerts that endpoint received, each checked against the ops secret with the harness's
//! own Standard Webhooks signer (independent of hookonce-core).

use serde_json::{json, Value};

use crate::origin::{sources_to, Origin};
use crate::{dev_var, sign_standard_webhooks, Worker};

/// The binding of the ops secret (the `.dev.vars.example` value).
pub const SECRET_BINDING: &str = "HOOKONCE_OPS_SECRET";

/// A Worker forwarding to `destinations` (as [`sources_to`]) whose alerts go to `ops`,
/// with `settings` merged into `HOOKONCE_OPS` (quiet window, thresholds, schedule).
pub fn worker_alerting(destinations: Value, ops: &Origin, settings: Value) -> Worker {
    let mut config = json!({ "url": ops.url("/ops"), "schedule_secs": [1, 1, 2] });
    if let (Some(c), Some(s)) = (config.as_object_mut(), settings.as_object()) {
        c.extend(s.clone());
    }
    Worker::builder()
        .var("HOOKONCE_SOURCES", sources_to(destinations))
        .var("HOOKONCE_OPS", config)
        .start()
}

/// One alert as its endpoint received it.
#[derive(Debug, Clone)]
pub struct Received {
    /// `type`.
    pub kind: String,
    /// The whole body.
    pub body: Value,
    /// `Idempotency-Key`.
    pub key: String,
}

/// What `ops` received, in order, first deliveries only (a retry of an alert is the same
/// key), each asserted signed with the ops secret and keyed by its id.
pub fn alerts(ops: &Origin) -> Vec<Received> {
    let secret = dev_var(SECRET_BINDING);
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for r in ops.requests() {
        let id = r.must("webhook-id").to_owned();
        let ts: i64 = r.must("webhook-timestamp").parse().expect("a timestamp");
        let expected = sign_standard_webhooks(&secret, &id, ts, &r.body);
        let signatures = r.must("webhook-signature");
        assert!(
            signatures.split(' ').any(|s| s == expected),
            "an alert not signed with the ops secret: {r:?}"
        );
        let body = r.json();
        let key = r.must("idempotency-key").to_owned();
        assert_eq!(key, id, "the alert's key is its id");
        assert_eq!(body["id"], id.as_str(), "{body}");
        if seen.insert(key.clone()) {
            out.push(Received {
                kind: body["type"].as_str().unwrap_or_default().to_owned(),
                body,
                key,
            });
        }
    }
    out
}

/// The kinds of [`alerts`], in order.
pub fn kinds(ops: &Origin) -> Vec<String> {
    alerts(ops).into_iter().map(|a| a.kind).collect()
}

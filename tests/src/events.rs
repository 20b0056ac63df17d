//! Events in the seeds' shape and signed deliveries to the sample source `cockpit`, so test
//! files never copy signing code.
//!
//! ```no_run
//! use hookonce_e2e::{events::*, Worker};
//!
//! let w = Worker::start();
//! let ev = cardholder_created(&new_id("evt"), "ch_1", &at(0), "Ada");
//! let r = deliver(&w, &ev);
//! assert_eq!(outcome(&r), "applied", "{r}");
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};

use crate::{dev_var, sign_standard_webhooks, unix_now, Resp, Worker};

/// The sample source in `wrangler.toml`.
pub const COCKPIT: &str = "cockpit";

/// The read API's token in `.dev.vars.example`.
pub const ADMIN_TOKEN: &str = "dev-admin-token";

/// `cockpit`'s signing secret (`COCKPIT_SECRET` from `.dev.vars.example`).
pub fn cockpit_secret() -> String {
    dev_var("COCKPIT_SECRET")
}

/// An id unique within this test process and across runs, e.g. `evt_4711_1733140000_3`.
pub fn new_id(prefix: &str) -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}_{}_{}_{n}", std::process::id(), unix_now())
}

/// An RFC 3339 `created_at`: 2026-10-06T00:00:00Z plus `offset_secs` (less than 20 days).
pub fn at(offset_secs: u32) -> String {
    assert!(offset_secs < 20 * 86_400, "at() covers 20 days");
    let day = 6 + offset_secs / 86_400;
    let s = offset_secs % 86_400;
    format!(
        "2026-10-{day:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// `{"id", "type", "created_at", "data": {"object": object}}`.
pub fn event(id: &str, kind: &str, created_at: &str, object: Value) -> Value {
    json!({ "id": id, "type": kind, "created_at": created_at, "data": { "object": object } })
}

/// A `cardholder.created` (snapshot) about cardholder `ch`.
pub fn cardholder_created(id: &str, ch: &str, created_at: &str, name: &str) -> Value {
    event(
        id,
        "cardholder.created",
        created_at,
        json!({ "id": ch, "name": name }),
    )
}

/// A `cardholder.updated` (snapshot) about cardholder `ch`.
pub fn cardholder_updated(id: &str, ch: &str, created_at: &str, name: &str) -> Value {
    event(
        id,
        "cardholder.updated",
        created_at,
        json!({ "id": ch, "name": name }),
    )
}

/// A `payment.captured` (ledger, `/data/object/amount`) on entity `account`.
pub fn payment_captured(id: &str, account: &str, created_at: &str, amount: i64) -> Value {
    event(
        id,
        "payment.captured",
        created_at,
        json!({ "id": account, "amount": amount, "currency": "eur" }),
    )
}

/// Signed Standard Webhooks headers (webhook-id = `msg_id`) with a JSON content type.
pub fn signed_headers(secret: &str, msg_id: &str, ts: i64, body: &[u8]) -> Vec<(String, String)> {
    crate::standard_webhooks_headers(secret, msg_id, ts, body)
}

/// POSTs `event` to `/webhooks/cockpit`, signed now with the cockpit secret; the
/// webhook-id is the event's `id` (a random one if it has none).
pub fn deliver(w: &Worker, event: &Value) -> Resp {
    deliver_with(w, &cockpit_secret(), event)
}

/// Like [`deliver`], signed with `secret`.
pub fn deliver_with(w: &Worker, secret: &str, event: &Value) -> Resp {
    let msg_id = event["id"]
        .as_str()
        .map_or_else(|| new_id("msg"), str::to_owned);
    deliver_raw(
        w,
        COCKPIT,
        secret,
        &msg_id,
        unix_now(),
        event.to_string().as_bytes(),
    )
}

/// POSTs raw `body` to `/webhooks/{source}`, signed with `secret` at `ts` as `msg_id`.
pub fn deliver_raw(
    w: &Worker,
    source: &str,
    secret: &str,
    msg_id: &str,
    ts: i64,
    body: &[u8],
) -> Resp {
    let headers = signed_headers(secret, msg_id, ts, body);
    w.post(&format!("/webhooks/{source}"), &headers, body)
}

/// The expected signature a provider would send; tests check it never leaks.
pub fn expected_signature(secret: &str, msg_id: &str, ts: i64, body: &[u8]) -> String {
    sign_standard_webhooks(secret, msg_id, ts, body)
}

/// GET `path` with `Authorization: Bearer dev-admin-token`.
pub fn admin_get(w: &Worker, path: &str) -> Resp {
    admin_request(w, "GET", path)
}

/// `POST path` (empty body) with the admin token: requeue, replay.
pub fn admin_post(w: &Worker, path: &str) -> Resp {
    admin_request(w, "POST", path)
}

/// POSTs `path` (with a query) with the admin token page after page, passing each page's
/// `next` as `cursor` until it is null; every page must be a 200. The pages, in order.
pub fn admin_pages(w: &Worker, path: &str) -> Vec<Value> {
    let mut pages: Vec<Value> = Vec::new();
    loop {
        let page_path = match pages.last().and_then(|p| p["next"].as_str()) {
            Some(next) => format!("{path}&cursor={next}"),
            None if pages.is_empty() => path.to_owned(),
            None => return pages,
        };
        let r = admin_post(w, &page_path);
        assert_eq!(r.status, 200, "{page_path}: {r}");
        pages.push(r.json());
        assert!(pages.len() < 1_000, "a sweep that never ends: {pages:#?}");
    }
}

fn admin_request(w: &Worker, method: &str, path: &str) -> Resp {
    let auth = format!("Bearer {ADMIN_TOKEN}");
    let body: Option<&[u8]> = (method == "POST").then_some(b"");
    w.request(method, path, &[("authorization", auth.as_str())], body)
}

/// `GET /entities/cockpit/{entity}` with the admin token.
pub fn entity(w: &Worker, entity: &str) -> Resp {
    admin_get(w, &format!("/entities/{COCKPIT}/{entity}"))
}

/// `GET /events/cockpit/{event_id}?entity={entity}` with the admin token.
pub fn event_record(w: &Worker, event_id: &str, entity: &str) -> Resp {
    admin_get(w, &format!("/events/{COCKPIT}/{event_id}?entity={entity}"))
}

/// The `outcome` of a 200 delivery, checking the `hookonce-outcome` header agrees.
pub fn outcome(r: &Resp) -> String {
    assert_eq!(r.status, 200, "expected 200: {r}");
    let body = r.json();
    let o = body["outcome"]
        .as_str()
        .unwrap_or_else(|| panic!("no outcome: {r}"))
        .to_owned();
    assert_eq!(r.header("hookonce-outcome"), Some(o.as_str()), "{r}");
    o
}

/// Asserts `r` is an RFC 9457 problem with `status` and `type` ending in `slug`; returns
/// its `detail`.
pub fn assert_problem(r: &Resp, status: u16, slug: &str) -> String {
    assert_eq!(r.status, status, "{r}");
    assert_eq!(
        r.header("content-type"),
        Some("application/problem+json"),
        "{r}"
    );
    let body = r.json();
    assert_eq!(
        body["type"],
        format!("https://hookonce.dev/problems/{slug}"),
        "{r}"
    );
    assert_eq!(body["status"], status, "{r}");
    body["detail"]
        .as_str()
        .unwrap_or_else(|| panic!("problem without detail: {r}"))
        .to_owned()
}

/// Asserts `r` is the 500 `configuration` problem that a caller without the admin token
/// gets: its detail names none of `named` (fields, bindings), which the worker logs instead
/// (`configuration_invalid`).
pub fn assert_misconfigured(w: &Worker, r: &Resp, named: &[&str]) {
    let detail = assert_problem(r, 500, "configuration");
    for name in named {
        assert!(!detail.contains(name), "the answer names {name}: {r}");
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let logs = w.logs();
        let logged = logs
            .lines()
            .any(|l| l.contains("configuration_invalid") && named.iter().all(|n| l.contains(n)));
        if logged {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no configuration_invalid log naming {named:?}:\n{logs}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// `GET /sources/{source}/events?{query}` with the admin token.
pub fn feed_of(w: &Worker, source: &str, query: &str) -> Resp {
    admin_get(w, &format!("/sources/{source}/events?{query}"))
}

/// Polls `source`'s feed (`query`) until `done(rows)`, newest first: the feed is written
/// after the answer, so it catches up a moment later. Panics with the rows after 10 s.
pub fn wait_feed(
    w: &Worker,
    source: &str,
    query: &str,
    mut done: impl FnMut(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let r = feed_of(w, source, query);
        assert_eq!(r.status, 200, "{r}");
        let rows = r.json()["events"].as_array().cloned().unwrap_or_default();
        if done(&rows) {
            return rows;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "feed of {source} ({query}) not as expected: {rows:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A worker whose `cockpit` source keeps raw bodies for `secs` seconds after they arrive.
pub fn worker_keeping_bodies_for(secs: u64) -> Worker {
    let mut sources = crate::wrangler_sources();
    sources[COCKPIT]["body_retention_secs"] = secs.into();
    Worker::builder().var("HOOKONCE_SOURCES", sources).start()
}

/// `POST /admin/replay/cockpit/{event_id}?entity={entity}` with the admin token.
pub fn replay(w: &Worker, event_id: &str, entity: &str) -> Resp {
    replay_in(w, COCKPIT, event_id, entity)
}

/// [`replay`] for any source.
pub fn replay_in(w: &Worker, source: &str, event_id: &str, entity: &str) -> Resp {
    admin_post(
        w,
        &format!("/admin/replay/{source}/{event_id}?entity={entity}"),
    )
}

/// Polls an admin replay of `cockpit`'s `event_id` until it answers 404, i.e. the
/// entity's alarm has pruned the body (a replay before that is a harmless duplicate);
/// returns that answer. Panics with the last answer after `timeout`.
pub fn wait_body_pruned(
    w: &Worker,
    event_id: &str,
    entity: &str,
    timeout: std::time::Duration,
) -> Resp {
    wait_body_pruned_in(w, COCKPIT, event_id, entity, timeout)
}

/// [`wait_body_pruned`] for any source.
pub fn wait_body_pruned_in(
    w: &Worker,
    source: &str,
    event_id: &str,
    entity: &str,
    timeout: std::time::Duration,
) -> Resp {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let r = replay_in(w, source, event_id, entity);
        if r.status == 404 {
            return r;
        }
        assert_eq!(r.status, 200, "a replay with its body kept: {r}");
        assert!(
            std::time::Instant::now() < deadline,
            "the body of {event_id} still kept after {timeout:?}: {r}"
        );
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
}

//! Every kind of bad delivery gets a clear 4xx problem, never a 5xx: unknown source, bad or
//! stale signatures, oversized bodies, unreadable events, wrong methods, bad paths, and a
//! few hundred random ones.

use hookonce_e2e::events::*;
use hookonce_e2e::{unix_now, wrangler_sources, Resp, Worker};
use serde_json::json;
use std::sync::OnceLock;

/// `cockpit` as in wrangler.toml, plus `tiny`: the same with `max_body_bytes = 64`.
fn worker() -> &'static Worker {
    static W: OnceLock<Worker> = OnceLock::new();
    W.get_or_init(|| {
        let mut sources = wrangler_sources();
        let mut tiny = sources[COCKPIT].clone();
        tiny["max_body_bytes"] = json!(64);
        sources["tiny"] = tiny;
        Worker::builder().var("HOOKONCE_SOURCES", sources).start()
    })
}

fn valid_body() -> (String, Vec<u8>) {
    let id = new_id("evt");
    let body = cardholder_created(&id, "ch_bad_input", &at(0), "Ada").to_string();
    (id, body.into_bytes())
}

fn assert_not_5xx(r: &Resp, what: &str) {
    assert!(r.status < 500, "{what}: answered 5xx: {r}");
}

#[test]
fn an_unknown_source_is_404() {
    let w = worker();
    let (id, body) = valid_body();
    let r = deliver_raw(w, "nope", &cockpit_secret(), &id, unix_now(), &body);
    let detail = assert_problem(&r, 404, "unknown-source");
    assert!(detail.contains("nope"), "{r}");
}

#[test]
fn a_bad_signature_is_401_naming_the_reason_without_leaking_the_expected_one() {
    let w = worker();
    let secret = cockpit_secret();
    let (id, body) = valid_body();
    let ts = unix_now();
    let expected = expected_signature(&secret, &id, ts, &body);
    let expected_b64 = expected.trim_start_matches("v1,");

    // Signed with another secret.
    let wrong = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    let r = deliver_raw(w, COCKPIT, wrong, &id, ts, &body);
    assert_problem(&r, 401, "invalid-signature");
    assert!(!r.text().contains(expected_b64), "leaks the signature: {r}");

    // Body changed after signing.
    let mut headers = signed_headers(&secret, &id, ts, &body);
    let mut tampered = body.clone();
    tampered.extend_from_slice(b" ");
    let r = w.post("/webhooks/cockpit", &headers, &tampered);
    assert_problem(&r, 401, "invalid-signature");
    assert!(!r.text().contains(expected_b64), "{r}");
    let tampered_sig = expected_signature(&secret, &id, ts, &tampered);
    assert!(
        !r.text().contains(tampered_sig.trim_start_matches("v1,")),
        "{r}"
    );

    // Each header missing in turn.
    for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
        let without: Vec<_> = headers.iter().filter(|(k, _)| k != name).cloned().collect();
        let r = w.post("/webhooks/cockpit", &without, &body);
        let detail = assert_problem(&r, 401, "invalid-signature");
        assert!(detail.contains(name), "detail should name {name}: {r}");
    }

    // A syntactically broken signature.
    for (k, v) in headers.iter_mut() {
        if k == "webhook-signature" {
            *v = "v1,not base64!!".into();
        }
    }
    let r = w.post("/webhooks/cockpit", &headers, &body);
    assert_problem(&r, 401, "invalid-signature");
    assert!(!r.text().contains(expected_b64), "{r}");
}

#[test]
fn an_old_timestamp_is_401_too_old() {
    let w = worker();
    let (id, body) = valid_body();
    let r = deliver_raw(w, COCKPIT, &cockpit_secret(), &id, unix_now() - 3600, &body);
    let detail = assert_problem(&r, 401, "invalid-signature");
    assert!(detail.contains("too old"), "{r}");
}

#[test]
fn a_future_timestamp_is_401() {
    let w = worker();
    let (id, body) = valid_body();
    let r = deliver_raw(w, COCKPIT, &cockpit_secret(), &id, unix_now() + 3600, &body);
    let detail = assert_problem(&r, 401, "invalid-signature");
    assert!(detail.contains("future"), "{r}");
}

#[test]
fn an_oversized_body_is_413() {
    let w = worker();
    let secret = cockpit_secret();
    // A source configured with max_body_bytes = 64.
    let (id, body) = valid_body();
    assert!(body.len() > 64);
    let r = deliver_raw(w, "tiny", &secret, &id, unix_now(), &body);
    let detail = assert_problem(&r, 413, "body-too-large");
    assert!(detail.contains("64"), "{r}");
    // Exactly at the limit is read (and then refused for what it is, not for its size).
    let at_limit = format!("{{\"id\":\"{}\"}}", "e".repeat(64 - 9));
    assert_eq!(at_limit.len(), 64);
    let r = deliver_raw(w, "tiny", &secret, "e", unix_now(), at_limit.as_bytes());
    let detail = assert_problem(&r, 400, "invalid-event");
    assert!(detail.contains("missing field"), "{r}");

    // The default limit, 1 MiB, plus one byte.
    let big = vec![b' '; (1 << 20) + 1];
    let r = deliver_raw(w, COCKPIT, &secret, &new_id("evt"), unix_now(), &big);
    assert_problem(&r, 413, "body-too-large");
}

#[test]
fn a_body_that_is_not_json_is_400() {
    let w = worker();
    let r = deliver_raw(
        w,
        COCKPIT,
        &cockpit_secret(),
        &new_id("msg"),
        unix_now(),
        b"{not json",
    );
    let detail = assert_problem(&r, 400, "invalid-event");
    assert!(detail.contains("not valid JSON"), "{r}");
}

#[test]
fn an_event_without_an_id_is_400_naming_the_field() {
    let w = worker();
    let mut ev = cardholder_created("x", "ch_bad_input", &at(0), "Ada");
    ev.as_object_mut().unwrap().remove("id");
    let r = deliver(w, &ev);
    let detail = assert_problem(&r, 400, "invalid-event");
    assert!(detail.contains("missing field id"), "{r}");
}

#[test]
fn an_unreadable_created_at_is_400() {
    let w = worker();
    for bad in [
        json!("yesterday"),
        json!("2026-13-45T99:00:00Z"),
        json!([1]),
    ] {
        let mut ev = cardholder_created(&new_id("evt"), "ch_bad_input", &at(0), "Ada");
        ev["created_at"] = bad.clone();
        let r = deliver(w, &ev);
        let detail = assert_problem(&r, 400, "invalid-event");
        assert!(detail.contains("created_at"), "{bad}: {r}");
    }
}

#[test]
fn a_wrong_method_is_405_with_allow() {
    let w = worker();
    for method in ["GET", "PUT", "DELETE", "PATCH"] {
        let r = w.request(method, "/webhooks/cockpit", &[] as &[(&str, &str)], None);
        assert_problem(&r, 405, "method-not-allowed");
        assert_eq!(r.header("allow"), Some("POST"), "{method}: {r}");
    }
    let r = w.post("/entities/cockpit/ch_1", &[] as &[(&str, &str)], "");
    assert_problem(&r, 405, "method-not-allowed");
    assert_eq!(r.header("allow"), Some("GET"), "{r}");
}

#[test]
fn a_malformed_path_escape_is_400() {
    let w = worker();
    let (id, body) = valid_body();
    let headers = signed_headers(&cockpit_secret(), &id, unix_now(), &body);
    for path in [
        "/webhooks/%zz",
        "/webhooks/cock%",
        "/webhooks/%c3%28",
        "/webhooks/%E0%A4",
        "/webhooks/%+f",
        "/webhooks/%-1",
    ] {
        let r = w.post(path, &headers, &body);
        let detail = assert_problem(&r, 400, "bad-request");
        assert!(detail.contains("%-escape"), "{path}: {r}");
    }
    for path in ["/entities/cockpit/%zz", "/events/%ff/evt_1"] {
        let r = admin_get(w, path);
        assert_problem(&r, 400, "bad-request");
    }
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
    /// Printable ASCII, so it is a valid header value.
    fn text(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b' ' + (self.next() % 95) as u8))
            .collect()
    }
}

#[test]
fn random_garbage_never_answers_5xx() {
    let w = worker();
    let secret = cockpit_secret();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let weird = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(9_223_372_036_854_775_807i64),
        json!(-9_223_372_036_854_775_808i64),
        json!(1e300),
        json!(""),
        json!("x"),
        json!("2026-10-06T07:06:30Z"),
        json!("2026-10-06T07:06:30.123456789+02:00"),
        json!("\u{0000}\u{ffff}"),
        json!([]),
        json!({}),
        json!({"id": {"id": 1}}),
        json!("a".repeat(5000)),
    ];
    let fields = [
        "/id",
        "/type",
        "/created_at",
        "/data",
        "/data/object",
        "/data/object/id",
        "/data/object/amount",
    ];
    let types = [
        "cardholder.created",
        "cardholder.updated",
        "payment.captured",
        "other.thing",
    ];
    for i in 0..200 {
        let id = new_id("evt");
        let body: Vec<u8> = match rng.below(4) {
            0 => {
                let n = rng.below(300);
                rng.bytes(n)
            }
            1 => {
                let n = rng.below(300);
                rng.text(n).into_bytes()
            }
            _ => {
                // A well-formed event with one or two fields replaced by something odd.
                let mut ev = payment_captured(&id, "acct_fuzz", &at(0), 1);
                ev["type"] = (*rng.pick(&types)).into();
                for _ in 0..=rng.below(2) {
                    let field = *rng.pick(&fields);
                    let value = rng.pick(&weird).clone();
                    if let Some(slot) = ev.pointer_mut(field) {
                        *slot = value;
                    }
                }
                ev.to_string().into_bytes()
            }
        };
        let msg_id = match rng.below(5) {
            0 => String::new(),
            1 => rng.text(40),
            _ => id.clone(),
        };
        let ts = match rng.below(6) {
            0 => unix_now() - 100_000,
            1 => unix_now() + 100_000,
            _ => unix_now(),
        };
        let mut headers = if rng.below(3) == 0 {
            vec![("content-type".to_string(), "application/json".to_string())]
        } else {
            signed_headers(&secret, &msg_id, ts, &body)
        };
        // Sometimes mangle one header.
        if rng.below(3) == 0 {
            let name = *rng.pick(&[
                "webhook-id",
                "webhook-timestamp",
                "webhook-signature",
                "content-type",
            ]);
            let n = rng.below(200);
            let value = match rng.below(4) {
                0 => rng.text(n),
                1 => format!("v1,{}", rng.text(n)),
                2 => "99999999999999999999999".into(),
                _ => "-1".into(),
            };
            headers.retain(|(k, _)| k != name);
            headers.push((name.to_string(), value));
        }
        let path = match rng.below(10) {
            0 => format!(
                "/webhooks/{}",
                rng.pick(&["tiny", "nope", "cockpit%20", "%00"])
            ),
            _ => "/webhooks/cockpit".to_string(),
        };
        let r = w.post(&path, &headers, &body);
        assert_not_5xx(
            &r,
            &format!(
                "case {i}: {path} headers {headers:?} body {:?}",
                String::from_utf8_lossy(&body)
            ),
        );
    }
}

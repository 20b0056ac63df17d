//! `GET /metrics` under a real Prometheus (Debian's package): it scrapes the worker on
//! workerd with the admin token, and its HTTP API reports the deliveries sent, by outcome;
//! the rejected ones, by reason; the forward attempts, by the origin's own record of what
//! it answered; one dead letter; and one row pending, as old as it is. `promtool check metrics`
//! passes on the text, and a scrape without the token gets a 401 problem.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin, Reply};
use hookonce_e2e::prometheus::{promtool_check_metrics, Prometheus};
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{dev_var, standard_webhooks_headers, unix_now};

const TOKEN_BINDING: &str = "HOOKONCE_ADMIN_TOKEN";

fn send(w: &Workerd, id: &str, kind: &str, entity: &str, created_at: i64) -> String {
    let body = origin::event_body(id, kind, entity, created_at);
    let secret = dev_var(origin::SECRET_BINDING);
    let headers = standard_webhooks_headers(&secret, id, unix_now(), &body);
    let r = w.post(&format!("/webhooks/{}", origin::SOURCE), &headers, &body);
    assert_eq!(r.status, 200, "{r}");
    r.header("hookonce-outcome").unwrap_or_default().to_owned()
}

#[test]
fn prometheus_reports_what_the_worker_was_sent() {
    let o = Origin::start();
    // The application takes every event but two: one it answers 410 Gone (a dead letter),
    // one 500 (pending, its retry due after the test).
    o.set_policy(|key, _| match key {
        Some("evt_gone") => Reply::Gone,
        Some("evt_fail") => Reply::Status(500),
        _ => Reply::OK,
    });
    let w = Workerd::builder()
        .sources(origin::sources(serde_json::json!({
            "url": o.url("/hooks"),
            "schedule_secs": [60],
            "window_secs": 120,
            "timeout_secs": 2,
        })))
        .start();
    let token = dev_var(TOKEN_BINDING);

    let unauthorised = w.get("/metrics");
    assert_eq!(unauthorised.status, 401, "{unauthorised}");
    assert_eq!(
        unauthorised.header("content-type"),
        Some("application/problem+json"),
        "{unauthorised}"
    );

    let p = Prometheus::start(w.addr(), &token);

    // Five applied (one to be a dead letter, one pending), two duplicates, one stale.
    let now = unix_now();
    let mut outcomes = Vec::new();
    for (id, entity) in [
        ("evt_a", "ent_a"),
        ("evt_b", "ent_b"),
        ("evt_gone", "ent_c"),
        ("evt_fail", "ent_d"),
    ] {
        outcomes.push(send(&w, id, "item.noticed", entity, now));
    }
    outcomes.push(send(&w, "evt_new", "item.snapshot", "ent_s", now));
    outcomes.push(send(&w, "evt_old", "item.snapshot", "ent_s", now - 60));
    outcomes.push(send(&w, "evt_a", "item.noticed", "ent_a", now));
    outcomes.push(send(&w, "evt_b", "item.noticed", "ent_b", now));
    assert_eq!(
        outcomes,
        [
            "applied",
            "applied",
            "applied",
            "applied",
            "applied",
            "stale",
            "duplicate",
            "duplicate"
        ]
    );
    // Three refused: two with a signature that does not match, one with none.
    let body = origin::event_body("evt_bad", "item.noticed", "ent_a", now);
    let forged = standard_webhooks_headers(
        "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "evt_bad",
        now,
        &body,
    );
    let path = format!("/webhooks/{}", origin::SOURCE);
    for _ in 0..2 {
        assert_eq!(w.post(&path, &forged, &body).status, 401);
    }
    assert_eq!(w.post(&path, &[] as &[(&str, &str)], &body).status, 401);

    let timeout = Duration::from_secs(25);
    let at = |expr: &str, want: f64| {
        let got = p.wait_for(expr, want, timeout);
        assert_eq!(got, Some(want), "{expr}\n{}", p.logs());
    };
    at(r#"up{job="hookonce"}"#, 1.0);
    at(r#"hookonce_dead_letters{source="acme"}"#, 1.0);
    at(r#"hookonce_outbox_pending_rows{source="acme"}"#, 1.0);
    // Its age grows as the scrapes go on: the row was written when evt_fail arrived.
    let age = r#"hookonce_outbox_oldest_pending_age_seconds{source="acme"}"#;
    at(&format!("{age} >= bool 2"), 1.0);
    let (shown, since) = (p.query(age).unwrap(), (unix_now() - now) as f64);
    assert!(
        shown <= since + 1.0,
        "{shown} s shown, {since} s since it was sent"
    );
    let counted = [
        ("deliveries_total", "outcome", "applied", 5.0),
        ("deliveries_total", "outcome", "duplicate", 2.0),
        ("deliveries_total", "outcome", "stale", 1.0),
        ("rejected_deliveries_total", "reason", "signature", 3.0),
    ];
    let series = |name: &str, label: &str, value: &str| {
        format!(r#"hookonce_{name}{{source="acme",{label}="{value}"}}"#)
    };
    for (name, label, value, want) in counted {
        at(&series(name, label, value), want);
    }
    at(r#"hookonce_configuration_errors"#, 0.0);
    // The attempts, by what the origin recorded answering.
    let answered = |reply: Reply| o.requests().iter().filter(|r| r.reply == reply).count() as f64;
    for (result, reply) in [
        ("2xx", Reply::OK),
        ("4xx", Reply::Gone),
        ("5xx", Reply::Status(500)),
    ] {
        at(
            &series("forward_attempts_total", "result", result),
            answered(reply),
        );
    }
    assert_eq!(answered(Reply::Gone), 1.0, "a 410 is not retried");
    assert_eq!(answered(Reply::Status(500)), 1.0, "no retry is due yet");

    let auth = [("authorization", format!("Bearer {token}"))];
    let scraped = w.request("GET", "/metrics", &auth, None);
    assert_eq!(scraped.status, 200, "{scraped}");
    assert_eq!(
        scraped.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    let text = scraped.text();
    if let Err(said) = promtool_check_metrics(&text) {
        panic!("promtool check metrics fails: {said}\n{text}");
    }
    for id in ["evt_a", "ent_a", "evt_gone"] {
        assert!(
            !text.contains(id),
            "no label names an event or entity: {text}"
        );
    }
}

//! `GET /metrics` under a real Prometheus (Debian's package): it scrapes the worker on
//! workerd with the admin token, and its HTTP API reports the deliveries sent, by outcome;
//! the rejected ones, by reason; the forward attempts, by the origin's own record of what
//! it answered; one dead letter; and one row pending, as old as it is, for the source and
//! for its destination; its breaker closed, nothing in flight. `promtool check metrics`
//! passes on the text, and a scrape without the token gets a 401 problem.

use std::time::Duration;

use hookonce_e2e::origin::{self, Reply};
use hookonce_e2e::prometheus::{promtool_check_metrics, Prometheus};
use hookonce_e2e::{dev_var, unix_now};

const TOKEN_BINDING: &str = "HOOKONCE_ADMIN_TOKEN";

#[test]
fn prometheus_reports_what_the_worker_was_sent() {
    // The application takes every event but two: one it answers 410 Gone (a dead letter),
    // one 500 (pending, its retry due after the test).
    let (o, w) = origin::mix_worker("/hooks");
    let token = dev_var(TOKEN_BINDING);

    let unauthorised = w.get("/metrics");
    assert_eq!(unauthorised.status, 401, "{unauthorised}");
    assert_eq!(
        unauthorised.header("content-type"),
        Some("application/problem+json"),
        "{unauthorised}"
    );

    let p = Prometheus::start(w.addr(), &token);

    // Five applied (one to be a dead letter, one pending), two duplicates, one stale,
    // three refused (two forged, one unsigned).
    let now = unix_now();
    origin::send_mix(|path, headers, body| w.post(path, headers, body), now);

    let timeout = Duration::from_secs(25);
    let at = |expr: &str, want: f64| {
        let got = p.wait_for(expr, want, timeout);
        assert_eq!(got, Some(want), "{expr}\n{}", p.logs());
    };
    at(r#"up{job="hookonce"}"#, 1.0);
    at(r#"hookonce_dead_letters{source="acme"}"#, 1.0);
    at(r#"hookonce_outbox_pending_rows{source="acme"}"#, 1.0);
    // The same per destination: the source's `forward` is the destination `default`.
    at(
        r#"hookonce_destination_dead_letters{source="acme",destination="default"}"#,
        1.0,
    );
    at(
        r#"hookonce_destination_pending_rows{source="acme",destination="default"}"#,
        1.0,
    );
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
    // The destination's protection: its breaker closed (one failure is no outage), and
    // nothing in flight between attempts.
    let guard = |name: &str, state: &str| {
        format!(r#"hookonce_destination_{name}{{source="acme",destination="default"{state}}}"#)
    };
    at(&guard("breaker_state", r#",state="closed""#), 1.0);
    at(&guard("breaker_state", r#",state="open""#), 0.0);
    at(&guard("in_flight", ""), 0.0);
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

//! `forward.service` bound to a Worker that is not running: every attempt fails, so the
//! first event is retried until its window is spent and then becomes a dead letter, listed
//! per source, exactly as an HTTPS destination that never answers; the next events go
//! after it. Five failures in a row (its `breaker.failures`) open the destination's
//! breaker: from then on no attempt is made and no row changes (none becomes a dead letter
//! for the outage).

use std::time::{Duration, Instant};

use hookonce_e2e::events::admin_get;
use hookonce_e2e::origin::{self, Origin};
use hookonce_e2e::peers;
use serde_json::json;

#[test]
fn a_binding_to_a_worker_nobody_runs_gives_dead_letters() {
    let o = Origin::start();
    let w = peers::builder(
        &o,
        json!({ "service": "GONE", "schedule_secs": [1], "window_secs": 2, "timeout_secs": 2,
                "breaker": { "failures": 5 } }),
    )
    .config(
        "services",
        json!([{ "binding": "GONE", "service": "hookonce-nobody-runs-this" }]),
    )
    .start();

    origin::deliver(&w, "evt_gone_1", "svc_gone");
    origin::deliver(&w, "evt_gone_2", "svc_gone");
    origin::deliver(&w, "evt_gone_3", "svc_gone");
    // A 2 s window with 1 s retries gives each event 2 to 4 attempts: the first is a dead
    // letter before the breaker's fifth failure, which the next two make sure of.
    let deadline = Instant::now() + Duration::from_secs(30);
    while admin_get(&w, "/sources/acme/destinations/default/status").json()["circuit"] != "open" {
        assert!(Instant::now() < deadline, "the breaker never opened");
        std::thread::sleep(Duration::from_millis(200));
    }
    let rows = origin::outbox(&w, "svc_gone");
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(
        origin::outbox(&w, "svc_gone"),
        rows,
        "nothing changes while it is open"
    );
    assert_eq!(rows[0]["status"], "dead", "{rows:#?}");
    let dead: Vec<_> = rows.iter().filter(|r| r["status"] == "dead").collect();
    for row in &dead {
        assert!(
            row["attempts"].as_u64().unwrap() >= 2,
            "retried first: {row}"
        );
        // wrangler dev answers 503 for a binding to a Worker it does not run.
        let last = row["last_result"].as_str().unwrap();
        assert!(last.ends_with(": retry window exhausted"), "{row}");
    }

    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let r = admin_get(&w, "/sources/acme/dead");
        assert_eq!(r.status, 200, "{r}");
        let listed = r.json()["dead"].as_array().cloned().unwrap_or_default();
        if listed.len() == dead.len() {
            assert!(
                listed.iter().all(|d| d["entity"] == "svc_gone"),
                "{listed:#?}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "dead letters: {listed:#?}");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(o.requests().is_empty(), "nothing reached the running peer");
}

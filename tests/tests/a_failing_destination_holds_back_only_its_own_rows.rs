//! Isolation between destinations: while one origin answers 503, another destination of
//! the same source receives every event at once, in order per entity; once the first
//! origin recovers, it catches up, in order per entity too.
//!
//! The origin is down `HOOKONCE_ISOLATION_DOWN_SECS` (15 by default; `make isolation`:
//! 180). A burst of events goes out at the start and every 30 s while it is down, so the
//! other destination is shown to keep up for the whole outage, not only at its start.

use std::time::{Duration, Instant};

use hookonce_e2e::origin::{
    self, assert_in_order_per_entity, assert_receives_all_in_order, deliver_burst_from, Origin,
    Reply,
};
use serde_json::json;

const ENTITIES: [&str; 2] = ["ent_a", "ent_b"];
/// Events per entity in each burst.
const BURST: usize = 4;
/// Time between two bursts while the origin is down.
const EVERY: Duration = Duration::from_secs(30);

/// How long the failing origin stays down.
fn down_for() -> Duration {
    Duration::from_secs(hookonce_e2e::env_number("HOOKONCE_ISOLATION_DOWN_SECS").unwrap_or(15))
}

/// A destination retrying every 2 s, with a window that outlasts the outage by 2 minutes:
/// no row dies of it.
fn destination(o: &Origin, down: Duration) -> serde_json::Value {
    json!({
        "url": o.url("/hooks"),
        "schedule_secs": [1, 1, 2],
        "window_secs": down.as_secs() + 120,
        "timeout_secs": 2,
    })
}

#[test]
fn one_destination_down_holds_back_none_of_the_others_rows_then_catches_up_in_order() {
    let down_for = down_for();
    let (down, up) = (Origin::start(), Origin::start());
    down.set_default(Reply::Status(503));
    let w = origin::worker_to(json!({
        "billing": destination(&down, down_for),
        "audit": destination(&up, down_for),
    }));
    let started = Instant::now();
    let mut sent = Vec::new();
    // Bursts at 0 s, 30 s, …, each a full interval before the origin is back.
    for burst in (0..).take_while(|&b| b == 0 || EVERY * (b + 1) <= down_for) {
        std::thread::sleep((started + EVERY * burst).saturating_duration_since(Instant::now()));
        let first = burst as usize * BURST;
        sent.extend(deliver_burst_from(&w, &ENTITIES, first..first + BURST));
        let applied = Instant::now();
        assert_receives_all_in_order(&up, &sent, Duration::from_secs(10));
        let tried = down.requests().len();
        assert!(
            down.first_keys(true).is_empty() && tried > 0,
            "billing was tried and failed meanwhile ({:?} in)",
            started.elapsed()
        );
        println!(
            "{:>5.1} s: audit has all {} events {} ms after the last was applied; billing failed {tried} attempts",
            started.elapsed().as_secs_f64(),
            sent.len(),
            applied.elapsed().as_millis()
        );
    }
    let rows = origin::outbox(&w, "ent_a");
    let pending = |name: &str| {
        rows.iter()
            .filter(|r| r["destination"] == name && r["status"] == "pending")
            .count()
    };
    let per_entity = sent.len() / ENTITIES.len();
    assert_eq!(
        (pending("billing"), pending("audit")),
        (per_entity, 0),
        "{rows:#?}"
    );

    // Down for `down_for` in all, then back.
    std::thread::sleep(down_for.saturating_sub(started.elapsed()));
    down.set_default(Reply::OK);
    let back = Instant::now();
    // A breaker opens after ten failures in a row (about 10 s into the outage at this
    // schedule, later on a loaded machine) and waits out its cool-down before it probes;
    // each failed probe doubles it, so the probe after the origin comes back is at most the
    // outage so far plus the time the breaker took to open, later.
    assert_receives_all_in_order(&down, &sent, down_for + Duration::from_secs(60));
    println!(
        "{:>5.1} s: billing back; it has all {} events {} ms later",
        back.duration_since(started).as_secs_f64(),
        sent.len(),
        back.elapsed().as_millis()
    );
    // Nothing reached billing out of order while it failed either: first attempts too.
    let tried = down.first_keys(false);
    let ids: Vec<&str> = tried.iter().map(String::as_str).collect();
    assert_in_order_per_entity(&sent, &ids);
}

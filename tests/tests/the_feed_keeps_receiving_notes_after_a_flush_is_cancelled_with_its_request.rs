//! The feed notes of an isolate are flushed in the `waitUntil` of one request. The runtime
//! may cancel that work (Cloudflare does, 30 s after the response), and a cancelled future
//! is never polled again nor dropped. The notes that follow must still reach the feed: a
//! later request takes over once the cancelled flush has gone quiet (issue 48).
//!
//! Runs the probe build (`make test` builds it): there, the flush that takes the note of an
//! event whose id ends with `STALL_PROBE` waits forever on a promise that never settles,
//! which is what a cancelled request's work looks like from inside.

use std::time::{Duration, Instant};

use hookonce_e2e::events::*;
use hookonce_e2e::{probe_bundle, Worker, STALL_PROBE};

fn in_feed(w: &Worker, id: &str) -> bool {
    let r = feed_of(w, COCKPIT, "limit=200");
    assert_eq!(r.status, 200, "{r}");
    r.json()["events"]
        .as_array()
        .is_some_and(|rows| rows.iter().any(|row| row["event_id"] == id))
}

#[test]
fn the_feed_keeps_receiving_notes_after_a_flush_is_cancelled_with_its_request() {
    let w = Worker::builder().config("main", probe_bundle()).start();
    let probe = format!("{}{STALL_PROBE}", new_id("evt"));
    let r = deliver(&w, &cardholder_created(&probe, "ch_stall", &at(0), "Ada"));
    assert_eq!(outcome(&r), "applied", "{r}");
    // The probe's note is taken by the flush, which now never ends.
    std::thread::sleep(Duration::from_secs(1));

    let after = new_id("evt");
    let r = deliver(&w, &cardholder_created(&after, "ch_stall", &at(1), "Grace"));
    assert_eq!(outcome(&r), "applied", "{r}");

    // Deliveries go on; one of them takes over the flush once the stuck one has gone quiet,
    // and the note queued behind it arrives.
    let started = Instant::now();
    let mut n = 2;
    while !in_feed(&w, &after) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the note of {after} never reached the feed: the cancelled flush still holds it"
        );
        let id = new_id("evt");
        let r = deliver(&w, &cardholder_created(&id, "ch_stall", &at(n), "Linus"));
        assert_eq!(outcome(&r), "applied", "{r}");
        n += 1;
        std::thread::sleep(Duration::from_secs(1));
    }

    // And the feed keeps up from then on.
    let last = new_id("evt");
    let r = deliver(
        &w,
        &cardholder_created(&last, "ch_stall", &at(n), "Barbara"),
    );
    assert_eq!(outcome(&r), "applied", "{r}");
    let rows = wait_feed(&w, COCKPIT, "limit=200", |rows| {
        rows.iter().any(|row| row["event_id"] == last)
    });
    assert!(!rows.is_empty());
}

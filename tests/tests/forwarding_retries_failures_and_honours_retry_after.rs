//! Async forwarding retries: failures are retried with the same key and a rising
//! `hookonce-attempt` until delivered; a 429's `Retry-After` is honoured (the next attempt
//! comes no earlier); a request that outlives `timeout_secs` is a failure and is retried.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin, Recorded, Reply};
use serde_json::json;

fn for_key<'a>(reqs: &'a [Recorded], key: &str) -> Vec<&'a Recorded> {
    reqs.iter()
        .filter(|r| r.header("idempotency-key") == Some(key))
        .collect()
}

#[test]
fn failures_are_retried_and_retry_after_is_honoured() {
    let o = Origin::start();
    let w = origin::worker(json!({
        "url": o.url("/hooks"),
        "schedule_secs": [1, 1, 2],
        "window_secs": 20,
        "timeout_secs": 2,
        "lease_secs": 5,
    }));

    // 1. Two 500s, then 200.
    o.fail_first(2);
    let (r, _) = origin::deliver(&w, "evt_fail_twice", "ent_retry");
    assert_eq!(r.status, 200, "{r}");
    let reqs = o.wait_for(Duration::from_secs(20), |r| {
        for_key(r, "evt_fail_twice").len() >= 3
    });
    let tries = for_key(&reqs, "evt_fail_twice");
    let attempts: Vec<u32> = tries.iter().map(|r| r.attempt()).collect();
    assert_eq!(attempts[..3], [1, 2, 3], "attempt numbers rise");
    assert!(tries
        .iter()
        .all(|r| r.must("webhook-id") == "evt_fail_twice"));
    for pair in tries.windows(2) {
        assert_eq!(
            pair[0].body, pair[1].body,
            "every attempt sends the same body"
        );
    }
    let rows = origin::wait_outbox(&w, "ent_retry", Duration::from_secs(10), |rows| {
        rows.first().is_some_and(|o| o["status"] == "delivered")
    });
    assert_eq!(rows[0]["attempts"], 3, "{rows:?}");

    // 2. 429 with Retry-After: 3 (longer than the 1 s the schedule would wait).
    o.script([Reply::TooManyRequests(3)]);
    let (r, _) = origin::deliver(&w, "evt_throttled", "ent_throttle");
    assert_eq!(r.status, 200, "{r}");
    let reqs = o.wait_for(Duration::from_secs(20), |r| {
        for_key(r, "evt_throttled").len() >= 2
    });
    let tries = for_key(&reqs, "evt_throttled");
    assert_eq!(tries[0].reply, Reply::TooManyRequests(3));
    let gap = tries[1].at - tries[0].at;
    assert!(
        gap >= Duration::from_secs(3),
        "the retry came {gap:?} after a 429 with Retry-After: 3"
    );
    assert_eq!(tries[1].attempt(), 2);

    // 3. Retry-After: 1, as a provider-facing gateway most often sees it.
    o.script([Reply::TooManyRequests(1)]);
    let (r, _) = origin::deliver(&w, "evt_throttled_1s", "ent_throttle_1s");
    assert_eq!(r.status, 200, "{r}");
    let reqs = o.wait_for(Duration::from_secs(20), |r| {
        for_key(r, "evt_throttled_1s").len() >= 2
    });
    let tries = for_key(&reqs, "evt_throttled_1s");
    let gap = tries[1].at - tries[0].at;
    assert!(
        gap >= Duration::from_secs(1),
        "the retry came {gap:?} after a 429 with Retry-After: 1"
    );

    // 4. The origin hangs past timeout_secs (2 s): a failure, retried with the same key.
    o.script([Reply::Hang(Duration::from_secs(6))]);
    let (r, _) = origin::deliver(&w, "evt_slow", "ent_slow");
    assert_eq!(r.status, 200, "{r}");
    let reqs = o.wait_for(Duration::from_secs(20), |r| {
        for_key(r, "evt_slow").len() >= 2
    });
    let tries = for_key(&reqs, "evt_slow");
    assert!(matches!(tries[0].reply, Reply::Hang(_)));
    assert_eq!(tries[1].attempt(), 2);
    assert!(
        tries[1].at - tries[0].at >= Duration::from_secs(2),
        "retried before the timeout ran out"
    );
    let rows = origin::wait_outbox(&w, "ent_slow", Duration::from_secs(10), |rows| {
        rows.first().is_some_and(|o| o["status"] == "delivered")
    });
    assert_eq!(rows[0]["attempts"], 2, "{rows:?}");
}

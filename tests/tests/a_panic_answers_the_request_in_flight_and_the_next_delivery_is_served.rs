//! A panic inside hookonce is a bug; the provider's request in flight still gets an answer,
//! a `500` problem that says a retry is safe, rather than a connection left open until the
//! provider gives up. The next delivery is served as usual, and nothing of the interrupted
//! one was recorded. Runs the worker built with its panic probe (`make test` builds it).

use std::time::{Duration, Instant};

use hookonce_e2e::events::*;
use hookonce_e2e::{probe_bundle, Worker, PANIC_PROBE};

#[test]
fn a_panic_answers_the_request_in_flight_with_a_500_and_the_next_delivery_is_served() {
    let w = Worker::builder().config("main", probe_bundle()).start();
    let first = new_id("evt");
    let r = deliver(&w, &cardholder_created(&first, "ch_panic", &at(0), "Ada"));
    assert_eq!((r.status, outcome(&r)), (200, "applied".to_owned()), "{r}");

    let probe = format!("{}{PANIC_PROBE}", new_id("evt"));
    let started = Instant::now();
    let r = deliver(&w, &cardholder_created(&probe, "ch_panic", &at(1), "Grace"));
    let waited = started.elapsed();
    assert_eq!(r.status, 500, "{r}");
    assert!(
        waited < Duration::from_secs(10),
        "answered after {waited:?}: the request waited on a future the panic ended"
    );
    assert_eq!(
        r.header("content-type"),
        Some("application/problem+json"),
        "{r}"
    );
    let doc = r.json();
    assert_eq!(
        doc["type"], "https://hookonce.dev/problems/internal",
        "{doc}"
    );
    assert!(
        doc["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("safe to retry"),
        "{doc}"
    );

    let last = new_id("evt");
    let r = deliver(&w, &cardholder_created(&last, "ch_panic", &at(2), "Linus"));
    assert_eq!((r.status, outcome(&r)), (200, "applied".to_owned()), "{r}");
    let e = entity(&w, "ch_panic").json();
    let mut ids: Vec<&str> = e["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|ev| ev["event_id"].as_str())
        .collect();
    ids.sort_unstable();
    let mut want = vec![first.as_str(), last.as_str()];
    want.sort_unstable();
    assert_eq!(ids, want, "{e}");
    assert_eq!(e["state"]["name"], "Linus", "{e}");
}

//! 100 identical publishes at once: one 202 original and 99 replays of it, one message id,
//! and exactly one delivery at the origin.

use std::sync::Barrier;
use std::time::Duration;

use hookonce_e2e::origin::Origin;
use hookonce_e2e::publish;
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn concurrent_identical_publishes_make_one_message() {
    let o = Origin::start();
    let w = Worker::start();
    let body = publish::body(&o.url("/inbox"), "order.paid", json!({ "order": 100 }));
    let n = 100;
    let barrier = Barrier::new(n);
    let resps: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    publish::publish(&w, "concurrent-key", &body)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &resps {
        assert_eq!(r.status, 202, "{r}");
        assert_eq!(r.body, resps[0].body, "every answer is the one receipt");
    }
    let originals = resps
        .iter()
        .filter(|r| r.header("idempotent-replayed").is_none())
        .count();
    assert_eq!(originals, 1, "one original, {} replays", n - originals);
    let id = resps[0].json()["message_id"].as_str().unwrap().to_string();

    let settled = publish::wait_settled(
        &w,
        &publish::token(),
        &publish::sf_string("concurrent-key"),
        Duration::from_secs(20),
    );
    assert_eq!(settled["status"], "delivered", "{settled}");
    assert_eq!(settled["message_id"], id.as_str(), "{settled}");
    assert_eq!(settled["attempts"], 1, "{settled}");
    let reqs = o.requests();
    assert_eq!(reqs.len(), 1, "exactly one delivery");
    assert_eq!(reqs[0].must("webhook-id"), id);
}

//! Signature and parse failures appear in the feed as `rejected`, with the reason and
//! without the body or the signature; a flood of them is sampled (HOOKONCE_FEED's
//! `rejected_per_minute`), so it cannot fill the feed, and good deliveries still appear.

use hookonce_e2e::events::*;
use hookonce_e2e::{unix_now, Worker};

#[test]
fn a_flood_of_bad_requests_leaves_a_few_rejected_rows_and_the_good_ones() {
    let w = Worker::builder()
        .var(
            "HOOKONCE_FEED",
            serde_json::json!({ "rejected_per_minute": 3 }),
        )
        .start();
    let body = br#"{"id":"evt_secret_body","type":"t","data":{"object":{"id":"ch_x","pin":"SECRET-PIN"}}}"#;
    let wrong = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    for i in 0..30 {
        let r = deliver_raw(&w, COCKPIT, wrong, &format!("msg_{i}"), unix_now(), body);
        assert_problem(&r, 401, "invalid-signature");
    }
    // A verified body that is not an event: a parse failure.
    let r = deliver_raw(
        &w,
        COCKPIT,
        &cockpit_secret(),
        "msg_bad",
        unix_now(),
        b"[1,2]",
    );
    assert_problem(&r, 400, "invalid-event");
    let good = cardholder_created(&new_id("evt"), "ch_ok", &at(0), "Ada");
    assert_eq!(outcome(&deliver(&w, &good)), "applied");

    let rows = wait_feed(&w, COCKPIT, "", |rows| {
        rows.iter().any(|r| r["outcome"] == "applied")
    });
    std::thread::sleep(std::time::Duration::from_millis(500));
    let page = feed_of(&w, COCKPIT, "outcome=rejected").json();
    let rejected = page["events"].as_array().unwrap();
    assert!(
        !rejected.is_empty() && rejected.len() <= 3 * 2,
        "at most 3 a minute (a flood may straddle two): {rejected:#?}"
    );
    for r in rejected {
        assert_eq!(r["outcome"], "rejected");
        assert!(matches!(r["status"].as_u64(), Some(400 | 401)), "{r}");
        assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
        assert_eq!(r["event_id"], serde_json::Value::Null);
    }
    let text = feed_of(&w, COCKPIT, "limit=200").text();
    for secret in ["SECRET-PIN", "evt_secret_body", "v1,", wrong] {
        assert!(!text.contains(secret), "the feed leaks {secret}: {text}");
    }
    assert!(rows.len() <= 3 * 2 + 1, "{rows:#?}");
}

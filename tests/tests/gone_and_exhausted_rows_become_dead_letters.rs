//! Dead letters: a 410 is final at once; a destination that keeps failing is given up on
//! once the retry window is spent; the admin retry puts dead letters back in the queue and
//! they are delivered once the origin recovers. A dead head does not block later rows.

use std::time::Duration;

use hookonce_e2e::events::admin_post;
use hookonce_e2e::origin::{self, Origin, Reply};
use serde_json::json;

#[test]
fn gone_and_exhausted_rows_are_dead_until_an_admin_retries_them() {
    let o = Origin::start();
    let w = origin::worker(json!({
        "url": o.url("/hooks"),
        "schedule_secs": [1, 1, 2],
        "window_secs": 4,
        "timeout_secs": 2,
    }));

    // 410: dead after one attempt; the next event of the entity still goes out.
    o.script([Reply::Gone]);
    origin::deliver(&w, "evt_gone", "ent_gone");
    origin::deliver(&w, "evt_after_gone", "ent_gone");
    let rows = origin::wait_outbox(&w, "ent_gone", Duration::from_secs(15), |rows| {
        rows.len() == 2 && rows[1]["status"] == "delivered"
    });
    assert_eq!(rows[0]["status"], "dead", "{rows:#?}");
    assert_eq!(rows[0]["attempts"], 1, "{rows:#?}");
    assert!(
        rows[0]["last_result"].as_str().unwrap().contains("410"),
        "{rows:#?}"
    );
    let gone_tries = o
        .requests()
        .iter()
        .filter(|r| r.header("idempotency-key") == Some("evt_gone"))
        .count();
    assert_eq!(gone_tries, 1, "a 410 is not retried");

    // Always 500: dead once the 4 s window is spent.
    o.set_default(Reply::Status(500));
    origin::deliver(&w, "evt_exhausted", "ent_exhausted");
    let rows = origin::wait_outbox(&w, "ent_exhausted", Duration::from_secs(20), |rows| {
        rows.first().is_some_and(|r| r["status"] == "dead")
    });
    let tries: Vec<_> = o
        .requests()
        .into_iter()
        .filter(|r| r.header("idempotency-key") == Some("evt_exhausted"))
        .collect();
    assert!(tries.len() >= 2, "retried before giving up: {rows:#?}");
    assert_eq!(rows[0]["attempts"], tries.len() as u64, "{rows:#?}");
    let span = tries.last().unwrap().at - tries[0].at;
    assert!(
        // Last try at most a 2 s delay after the window opened; 1 s slack for a late alarm.
        span <= Duration::from_secs(7),
        "attempts went on for {span:?}, past the 4 s window"
    );
    assert!(rows[0]["last_result"].as_str().unwrap().contains("500"));

    // Nothing more arrives for dead rows: once no row of either entity is pending, the
    // alarm has nothing left to send, so the origin's count is final.
    let before = o.requests().len();
    for entity in ["ent_gone", "ent_exhausted"] {
        let rows = origin::outbox(&w, entity);
        assert!(
            rows.iter().all(|r| r["status"] != "pending"),
            "{entity}: {rows:#?}"
        );
    }
    assert_eq!(o.requests().len(), before, "dead letters are not retried");

    // The origin recovers; an admin requeues; both dead letters are delivered.
    o.set_default(Reply::OK);
    for entity in ["ent_gone", "ent_exhausted"] {
        let r = admin_post(&w, &format!("/admin/outbox/acme/{entity}/retry"));
        assert_eq!(r.status, 200, "{r}");
        assert_eq!(r.json()["requeued"], 1, "{r}");
    }
    let no_auth: &[(&str, &str)] = &[];
    let r = w.request(
        "POST",
        "/admin/outbox/acme/ent_gone/retry",
        no_auth,
        Some(b""),
    );
    assert_eq!(r.status, 401, "the admin retry needs the token: {r}");

    for (entity, key) in [("ent_gone", "evt_gone"), ("ent_exhausted", "evt_exhausted")] {
        let rows = origin::wait_outbox(&w, entity, Duration::from_secs(15), |rows| {
            rows.iter().all(|r| r["status"] == "delivered")
        });
        assert_eq!(rows[0]["event_id"], key);
        let last = o
            .requests()
            .into_iter()
            .rfind(|r| r.header("idempotency-key") == Some(key))
            .unwrap();
        assert_eq!(last.reply, Reply::OK);
        assert_eq!(last.attempt(), 1, "a requeued row starts counting again");
    }
}

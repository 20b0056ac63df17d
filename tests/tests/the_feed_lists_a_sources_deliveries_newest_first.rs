//! `GET /sources/{source}/events`: every delivery of the source, newest first, with what it
//! came to; filters by outcome and type; a cursor pages back; bad input is a 400 problem.

use hookonce_e2e::events::*;
use hookonce_e2e::shared_worker as worker;

#[test]
fn the_feed_shows_applied_duplicate_and_stale_deliveries_newest_first() {
    let w = worker();
    let (a, b) = (new_id("evt"), new_id("evt"));
    let newer = cardholder_updated(&a, "ch_feed", &at(60), "Ada");
    let older = cardholder_updated(&b, "ch_feed", &at(0), "Old");
    assert_eq!(outcome(&deliver(w, &newer)), "applied");
    assert_eq!(outcome(&deliver(w, &newer)), "duplicate");
    assert_eq!(outcome(&deliver(w, &older)), "stale");

    let rows = wait_feed(w, COCKPIT, "", |rows| {
        rows.iter().filter(|r| r["entity"] == "ch_feed").count() == 3
    });
    let mine: Vec<_> = rows.iter().filter(|r| r["entity"] == "ch_feed").collect();
    let got: Vec<(&str, &str, u64)> = mine
        .iter()
        .map(|r| {
            (
                r["event_id"].as_str().unwrap(),
                r["outcome"].as_str().unwrap(),
                r["rows_written"].as_u64().unwrap(),
            )
        })
        .collect();
    // Newest first; duplicates write nothing, stale events one row, an applied snapshot
    // three (body, id and state: the body has no index of its own).
    assert_eq!(
        got,
        [
            (b.as_str(), "stale", 1),
            (a.as_str(), "duplicate", 0),
            (a.as_str(), "applied", 3)
        ]
    );
    for r in &mine {
        assert_eq!(r["type"], "cardholder.updated");
        assert_eq!(r["entity_url"], "/entities/cockpit/ch_feed");
        assert!(r["received_at"].as_i64().is_some(), "{r}");
        assert!(r["cursor"].is_string(), "{r}");
    }

    // Filters.
    let dups = wait_feed(w, COCKPIT, "outcome=duplicate", |rows| !rows.is_empty());
    assert!(
        dups.iter().all(|r| r["outcome"] == "duplicate"),
        "{dups:#?}"
    );
    let typed = feed_of(w, COCKPIT, "type=cardholder.updated&outcome=stale").json();
    assert!(typed["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["event_id"] == b.as_str()));
    let none = feed_of(w, COCKPIT, "type=no.such.type").json();
    assert_eq!(none["events"], serde_json::json!([]));
    assert_eq!(none["cursor"], serde_json::Value::Null);

    // Paging: one row at a time reaches the same three rows, in the same order, and the
    // last page has no cursor.
    let mut paged = Vec::new();
    let mut query = "limit=1".to_owned();
    loop {
        let page = feed_of(w, COCKPIT, &query).json();
        let rows = page["events"].as_array().unwrap();
        assert_eq!(rows.len(), 1, "{page}");
        paged.push(rows[0]["event_id"].as_str().unwrap().to_owned());
        match page["cursor"].as_str() {
            Some(cursor) => query = format!("limit=1&before={cursor}"),
            None => break,
        }
    }
    assert_eq!(paged, [b.as_str(), a.as_str(), a.as_str()]);
}

#[test]
fn the_feed_needs_the_token_and_refuses_bad_input_with_a_problem() {
    let w = worker();
    let no_auth: &[(&str, &str)] = &[];
    let r = w.request("GET", "/sources/cockpit/events", no_auth, None);
    assert_problem(&r, 401, "unauthorized");
    let r = w.request("GET", "/sources/cockpit/dead", no_auth, None);
    assert_problem(&r, 401, "unauthorized");
    for (query, word) in [
        ("limit=0", "limit"),
        ("limit=1000", "limit"),
        ("limit=ten", "limit"),
        ("before=not-a-cursor", "before"),
        ("outcome=lost", "outcome"),
        ("type=", "type"),
    ] {
        let detail = assert_problem(&feed_of(w, COCKPIT, query), 400, "bad-request");
        assert!(detail.contains(word), "{query}: {detail}");
    }
    assert_problem(&feed_of(w, "nope", ""), 404, "unknown-source");
}

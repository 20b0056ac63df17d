//! The three 200 outcomes of a delivery (applied, duplicate, stale) and the ledger's
//! counting: deduplication is on the event id, never the body or the object id.

use hookonce_e2e::events::*;
use hookonce_e2e::Worker;
use std::sync::OnceLock;

/// One worker for the whole file (each test uses its own entities).
fn worker() -> &'static Worker {
    static W: OnceLock<Worker> = OnceLock::new();
    W.get_or_init(Worker::start)
}

#[test]
fn a_new_event_is_applied() {
    let w = worker();
    let id = new_id("evt");
    let r = deliver(w, &cardholder_created(&id, "ch_applied", &at(0), "Ada"));
    assert_eq!(outcome(&r), "applied");
    let body = r.json();
    assert_eq!(body["event_id"], id.as_str());
    assert_eq!(body["entity"], "ch_applied");
    assert!(body["rows_written"].as_u64().unwrap() >= 1, "{r}");

    let e = entity(w, "ch_applied").json();
    assert_eq!(e["state"]["name"], "Ada");
    assert_eq!(e["version"]["event_id"], id.as_str());
    assert_eq!(e["events"][0]["event_id"], id.as_str());
    assert_eq!(e["events"][0]["outcome"], "applied");
}

#[test]
fn a_second_copy_is_a_duplicate_that_writes_nothing() {
    let w = worker();
    let ev = cardholder_created(&new_id("evt"), "ch_dup", &at(0), "Ada");
    assert_eq!(outcome(&deliver(w, &ev)), "applied");
    let before = entity(w, "ch_dup").text();
    for _ in 0..3 {
        let r = deliver(w, &ev);
        assert_eq!(r.status, 200, "a duplicate is never an error: {r}");
        assert_eq!(outcome(&r), "duplicate");
        assert_eq!(r.json()["rows_written"], 0, "{r}");
    }
    assert_eq!(entity(w, "ch_dup").text(), before);
}

#[test]
fn an_older_event_after_a_newer_one_is_stale_and_the_newer_state_stays() {
    let w = worker();
    let newer = cardholder_updated(&new_id("evt"), "ch_stale", &at(120), "Newer");
    let older_id = new_id("evt");
    let older = cardholder_updated(&older_id, "ch_stale", &at(60), "Older");
    assert_eq!(outcome(&deliver(w, &newer)), "applied");
    let r = deliver(w, &older);
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(outcome(&r), "stale");

    let e = entity(w, "ch_stale").json();
    assert_eq!(e["state"]["name"], "Newer");
    assert_eq!(e["version"]["event_id"], newer["id"]);
    let rec = event_record(w, &older_id, "ch_stale");
    assert_eq!(rec.status, 200, "{rec}");
    assert_eq!(rec.json()["outcome"], "stale");

    // The stale event is remembered: its redelivery is a duplicate.
    let again = deliver(w, &older);
    assert_eq!(outcome(&again), "duplicate");
    assert_eq!(again.json()["rows_written"], 0);
}

#[test]
fn two_payments_add_up_and_a_duplicate_payment_does_not_double_count() {
    let w = worker();
    let p1 = payment_captured(&new_id("evt"), "acct_sum", &at(0), 1000);
    let p2 = payment_captured(&new_id("evt"), "acct_sum", &at(10), 250);
    assert_eq!(outcome(&deliver(w, &p1)), "applied");
    assert_eq!(outcome(&deliver(w, &p2)), "applied");
    let r = deliver(w, &p1);
    assert_eq!(outcome(&r), "duplicate");
    assert_eq!(r.json()["rows_written"], 0);

    let ledger = &entity(w, "acct_sum").json()["ledger"];
    assert_eq!(ledger["total"], 1250);
    assert_eq!(ledger["entries"], 2);
}

#[test]
fn identical_payloads_with_different_ids_are_both_counted() {
    let w = worker();
    // Same object, amount and created_at: only the event id differs. Deduplication is on
    // the event id, never a hash of the body.
    let a = payment_captured(&new_id("evt"), "acct_same", &at(0), 700);
    let mut b = a.clone();
    b["id"] = new_id("evt").into();
    assert_eq!(outcome(&deliver(w, &a)), "applied");
    assert_eq!(outcome(&deliver(w, &b)), "applied");
    let ledger = &entity(w, "acct_same").json()["ledger"];
    assert_eq!(ledger["total"], 1400);
    assert_eq!(ledger["entries"], 2);
}

#[test]
fn events_about_the_same_object_with_different_ids_both_apply() {
    let w = worker();
    let first = cardholder_created(&new_id("evt"), "ch_same_obj", &at(0), "One");
    let second = cardholder_updated(&new_id("evt"), "ch_same_obj", &at(30), "Two");
    assert_eq!(outcome(&deliver(w, &first)), "applied");
    assert_eq!(outcome(&deliver(w, &second)), "applied");
    let e = entity(w, "ch_same_obj").json();
    assert_eq!(e["state"]["name"], "Two");
    let ids: Vec<&str> = e["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["event_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{e}");
    assert!(ids.contains(&first["id"].as_str().unwrap()));
    assert!(ids.contains(&second["id"].as_str().unwrap()));
}

#[test]
fn a_ledger_total_beyond_javascripts_safe_integers_reads_exactly() {
    let w = worker();
    // Each amount is the largest one accepted (2^53 - 1); their sum is not a safe integer.
    let max = (1i64 << 53) - 1;
    for i in 0..3 {
        let p = payment_captured(&new_id("evt"), "acct_big", &at(i), max);
        assert_eq!(outcome(&deliver(w, &p)), "applied");
    }
    let r = entity(w, "acct_big");
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.json()["ledger"]["total"], 3 * max, "{r}");
    assert_eq!(r.json()["ledger"]["entries"], 3, "{r}");
}

#[test]
fn a_second_delivery_with_the_same_id_but_another_body_is_a_duplicate() {
    let w = worker();
    let id = new_id("evt");
    let first = payment_captured(&id, "acct_same_id", &at(0), 100);
    let changed = payment_captured(&id, "acct_same_id", &at(0), 999);
    assert_eq!(outcome(&deliver(w, &first)), "applied");
    let r = deliver(w, &changed);
    assert_eq!(outcome(&r), "duplicate");
    assert_eq!(r.json()["rows_written"], 0);
    let ledger = &entity(w, "acct_same_id").json()["ledger"];
    assert_eq!(ledger["total"], 100);
    assert_eq!(ledger["entries"], 1);
}

#[test]
fn events_created_in_the_same_second_are_ordered_by_fraction_then_id() {
    let w = worker();
    // Fractions of a second count.
    let later = event(
        &new_id("evt"),
        "cardholder.updated",
        "2026-10-06T01:00:00.500Z",
        serde_json::json!({ "id": "ch_frac", "name": "Later" }),
    );
    let earlier = event(
        &new_id("evt"),
        "cardholder.updated",
        "2026-10-06T01:00:00.250Z",
        serde_json::json!({ "id": "ch_frac", "name": "Earlier" }),
    );
    assert_eq!(outcome(&deliver(w, &later)), "applied");
    assert_eq!(outcome(&deliver(w, &earlier)), "stale");
    let e = entity(w, "ch_frac").json();
    assert_eq!(e["state"]["name"], "Later");
    assert_eq!(e["version"]["created_at_nanos"], 500_000_000);

    // The very same instant: the greater event id wins, in either delivery order.
    let base = new_id("evt");
    let orders = [
        ("ch_tie_ab", [("a", "applied"), ("b", "applied")]),
        ("ch_tie_ba", [("b", "applied"), ("a", "stale")]),
    ];
    for (entity_id, order) in orders {
        for (suffix, expected) in order {
            let ev = cardholder_updated(&format!("{base}_{suffix}"), entity_id, &at(0), suffix);
            assert_eq!(outcome(&deliver(w, &ev)), expected, "{entity_id} {suffix}");
        }
        let e = entity(w, entity_id).json();
        assert_eq!(e["state"]["name"], "b", "{entity_id}: {e}");
        assert_eq!(e["version"]["event_id"], format!("{base}_b"));
    }
}

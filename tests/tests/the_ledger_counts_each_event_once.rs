//! Ledger effects add once per event id: never twice for a copy, never once for two events
//! with identical payloads (deduplication is never on a hash of the body).

use hookonce_e2e::events::*;
use hookonce_e2e::shared_worker as worker;

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

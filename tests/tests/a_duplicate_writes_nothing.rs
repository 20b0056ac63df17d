//! A second copy of an event is a 200 duplicate that writes no row, whatever its body.

use hookonce_e2e::events::*;
use hookonce_e2e::shared_worker as worker;

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

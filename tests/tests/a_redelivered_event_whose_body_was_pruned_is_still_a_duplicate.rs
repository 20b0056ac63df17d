//! Pruning a body never forgets its event: the provider's redelivery, months later, is
//! still a duplicate that writes nothing.

use std::time::Duration;

use hookonce_e2e::events::*;

#[test]
fn a_redelivery_after_the_body_is_gone_is_a_duplicate_that_writes_nothing() {
    let w = worker_keeping_bodies_for(1);
    let id = new_id("evt");
    let ev = payment_captured(&id, "acct_pruned", &at(0), 250);
    assert_eq!(outcome(&deliver(&w, &ev)), "applied");
    wait_body_pruned(&w, &id, "acct_pruned", Duration::from_secs(30));

    let again = deliver(&w, &ev);
    assert_eq!(outcome(&again), "duplicate");
    assert_eq!(again.json()["rows_written"], 0, "{again}");
    let ledger = &entity(&w, "acct_pruned").json()["ledger"];
    assert_eq!(ledger["total"], 250, "{ledger}");
    assert_eq!(ledger["entries"], 1, "{ledger}");
}

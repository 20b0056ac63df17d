//! Durable Object SQLite state survives a wrangler restart on the same persist dir: the
//! processed ids are still there, so a redelivery after the restart is a duplicate.

use hookonce_e2e::events::*;
use hookonce_e2e::Worker;

#[test]
fn state_survives_a_restart() {
    let w = Worker::start();
    let created = cardholder_created(&new_id("evt"), "ch_restart", &at(0), "Ada");
    let updated = cardholder_updated(&new_id("evt"), "ch_restart", &at(60), "Ada L.");
    let paid = payment_captured(&new_id("evt"), "acct_restart", &at(0), 1250);
    for ev in [&created, &updated, &paid] {
        let r = deliver(&w, ev);
        assert_eq!(outcome(&r), "applied", "{r}");
    }
    let before = entity(&w, "ch_restart");
    assert_eq!(before.status, 200, "{before}");
    assert_eq!(before.json()["state"]["name"], "Ada L.", "{before}");
    let ledger_before = entity(&w, "acct_restart");
    assert_eq!(ledger_before.json()["ledger"]["total"], 1250);

    let w = w.restart();

    for ev in [&created, &updated, &paid] {
        let r = deliver(&w, ev);
        assert_eq!(outcome(&r), "duplicate", "after restart: {r}");
        assert_eq!(r.json()["rows_written"], 0, "{r}");
    }
    let after = entity(&w, "ch_restart");
    assert_eq!(after.status, 200, "{after}");
    assert_eq!(
        after.text(),
        before.text(),
        "entity reads the same after restart"
    );
    assert_eq!(entity(&w, "acct_restart").text(), ledger_before.text());
}

//! On workerd's own storage: an entity that only ever received snapshots holds no ledger,
//! claim or outbox, not even a view, after a restart too, and is still read as before (the
//! read makes views, which cost no page); its first ledger event makes the ledger table, and
//! nothing else.

use std::path::{Path, PathBuf};

use hookonce_e2e::events::{at, cardholder_created, cardholder_updated, payment_captured};
use hookonce_e2e::raw::first_column;
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::Resp;
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

fn post(w: &Workerd, event: &Value) -> Resp {
    w.deliver_cockpit(event)
}

fn entity_files(w: &Workerd) -> Vec<PathBuf> {
    w.entity_files()
}

/// `type name` of the ledger, the claim and the outbox (and its index), by name.
fn optional_tables(db: &Path) -> Vec<String> {
    let c = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.busy_timeout(std::time::Duration::from_secs(2)).unwrap();
    first_column(
        &c,
        "SELECT type || ' ' || name FROM sqlite_master WHERE name IN
           ('ledger', 'claim', 'outbox', 'outbox_by_status') ORDER BY name",
    )
}

#[test]
fn a_snapshot_entity_names_none_of_the_three_and_its_first_ledger_event_makes_the_ledger_table() {
    let w = Workerd::builder().start();
    let first = post(
        &w,
        &cardholder_created("evt_disk_1", "ch_disk", &at(0), "Ada"),
    );
    assert_eq!(first.status, 200, "{first}");
    let files = entity_files(&w);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(optional_tables(&files[0]), Vec::<String>::new());

    // A read makes the views: the entity API answers as it did with empty tables.
    let admin = [("authorization", "Bearer dev-admin-token")];
    let read = w.request("GET", "/entities/cockpit/ch_disk", &admin, None);
    assert_eq!(read.status, 200, "{read}");
    let entity = read.json();
    assert_eq!(entity["ledger"]["entries"], 0, "{entity}");
    assert_eq!(entity["outbox"], serde_json::json!([]), "{entity}");
    assert_eq!(entity["state"]["name"], "Ada", "{entity}");
    assert_eq!(
        optional_tables(&files[0]),
        ["view claim", "view ledger", "view outbox"]
    );

    // The same entity's first payment writes a ledger row: the ledger becomes a table.
    let paid = post(&w, &payment_captured("evt_disk_2", "ch_disk", &at(1), 250));
    assert_eq!(paid.status, 200, "{paid}");
    assert_eq!(paid.header("hookonce-outcome"), Some("applied"));
    assert_eq!(
        optional_tables(&files[0]),
        ["view claim", "table ledger", "view outbox"]
    );
    let entity = w
        .request("GET", "/entities/cockpit/ch_disk", &admin, None)
        .json();
    assert_eq!(entity["ledger"]["total"], 250, "{entity}");
    assert_eq!(entity["ledger"]["entries"], 1, "{entity}");
}

#[test]
fn a_snapshot_entity_woken_after_a_restart_still_names_none_of_the_three_and_goes_on() {
    let mut w = Workerd::builder().start();
    let created = cardholder_created("evt_wake_1", "ch_wake", &at(0), "Ada");
    assert_eq!(post(&w, &created).status, 200);
    let files = entity_files(&w);
    assert_eq!(optional_tables(&files[0]), Vec::<String>::new());

    // The woken object has no outbox table, so no row to re-arm for: it reads no outbox
    // and makes no view for that read, and takes events as before.
    w.kill9();
    w.start_again();
    let updated = post(
        &w,
        &cardholder_updated("evt_wake_2", "ch_wake", &at(60), "Ada L."),
    );
    assert_eq!(updated.status, 200, "{updated}");
    assert_eq!(updated.header("hookonce-outcome"), Some("applied"));
    assert_eq!(optional_tables(&files[0]), Vec::<String>::new());
    let again = post(&w, &created);
    assert_eq!(
        again.header("hookonce-outcome"),
        Some("duplicate"),
        "{again}"
    );
    let stale = post(
        &w,
        &cardholder_updated("evt_wake_0", "ch_wake", &at(30), "Ada B."),
    );
    assert_eq!(stale.header("hookonce-outcome"), Some("stale"), "{stale}");

    // Its first read makes them, and reads the entity as before.
    let admin = [("authorization", "Bearer dev-admin-token")];
    let entity = w
        .request("GET", "/entities/cockpit/ch_wake", &admin, None)
        .json();
    assert_eq!(entity["state"]["name"], "Ada L.", "{entity}");
    assert_eq!(entity["outbox"], serde_json::json!([]), "{entity}");
    assert_eq!(
        optional_tables(&files[0]),
        ["view claim", "view ledger", "view outbox"]
    );
}

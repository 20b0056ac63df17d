//! On workerd's own storage: a new entity object writes its first event's rows one statement
//! each, and makes the `event_rows` view and its trigger only before its second, so an
//! entity that only ever sees one event never pays for them; through the view, an applied
//! event still writes 3 rows, a copy none, and the entity reads as before, also after a
//! restart.

use std::path::Path;

use hookonce_e2e::events::{at, cardholder_created, cardholder_updated};
use hookonce_e2e::raw::first_column;
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::Resp;
use rusqlite::{Connection, OpenFlags};

/// `type name` of the view and its trigger, if the object holds them.
fn event_rows(db: &Path) -> Vec<String> {
    let c = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.busy_timeout(std::time::Duration::from_secs(2)).unwrap();
    first_column(
        &c,
        "SELECT type || ' ' || name FROM sqlite_master
         WHERE name IN ('event_rows', 'event_rows_write') ORDER BY name",
    )
}

fn assert_applied(resp: &Resp, rows: u64) {
    assert_eq!(resp.status, 200, "{resp}");
    assert_eq!(resp.header("hookonce-outcome"), Some("applied"), "{resp}");
    assert_eq!(resp.json()["rows_written"], rows, "{resp}");
}

#[test]
fn the_view_comes_with_the_second_event_and_writes_what_the_statements_wrote() {
    let mut w = Workerd::builder().start();
    let first = cardholder_created("evt_rows_1", "ch_rows", &at(0), "Ada");
    assert_applied(&w.deliver_cockpit(&first), 3);
    let files = w.entity_files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(event_rows(&files[0]), Vec::<String>::new());

    let second = cardholder_updated("evt_rows_2", "ch_rows", &at(60), "Ada L.");
    assert_applied(&w.deliver_cockpit(&second), 3);
    assert_eq!(
        event_rows(&files[0]),
        ["view event_rows", "trigger event_rows_write"]
    );
    let third = cardholder_updated("evt_rows_3", "ch_rows", &at(120), "Ada Lovelace");
    assert_applied(&w.deliver_cockpit(&third), 3);
    let copy = w.deliver_cockpit(&third);
    assert_eq!(copy.header("hookonce-outcome"), Some("duplicate"), "{copy}");
    assert_eq!(copy.json()["rows_written"], 0, "{copy}");

    // After a restart the object finds the view and writes through it at once.
    w.kill9();
    w.start_again();
    let fourth = cardholder_updated("evt_rows_4", "ch_rows", &at(180), "Countess");
    assert_applied(&w.deliver_cockpit(&fourth), 3);
    let admin = [("authorization", "Bearer dev-admin-token")];
    let entity = w
        .request("GET", "/entities/cockpit/ch_rows", &admin, None)
        .json();
    assert_eq!(entity["state"]["name"], "Countess", "{entity}");
    let events = entity["events"].as_array().expect("events");
    assert_eq!(events.len(), 4, "{entity}");
    let replay = w.request(
        "POST",
        "/admin/replay/cockpit/evt_rows_3?entity=ch_rows",
        &admin,
        Some(b""),
    );
    assert_eq!(
        replay.status, 200,
        "the body kept through the view: {replay}"
    );
    assert_eq!(replay.json()["outcome"], "duplicate", "{replay}");
}

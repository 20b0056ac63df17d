//! A provider's replay of an early event, after 1,000 newer ones: a duplicate that changes
//! nothing, the entity byte-for-byte the same.

use hookonce_e2e::events::*;
use hookonce_e2e::{unix_now, Worker};

#[test]
fn replaying_an_early_event_after_a_thousand_others_changes_nothing() {
    let w = Worker::start();
    let entity_id = "ch_replay";
    let early_id = new_id("evt");
    let early = cardholder_created(&early_id, entity_id, &at(0), "Early").to_string();
    let secret = cockpit_secret();
    // Signed afresh at each call, as the provider signs each delivery of the same event.
    let send_early = || {
        deliver_raw(
            &w,
            COCKPIT,
            &secret,
            &early_id,
            unix_now(),
            early.as_bytes(),
        )
    };
    let r = send_early();
    assert_eq!(outcome(&r), "applied");

    const N: u32 = 1000;
    const THREADS: u32 = 8;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let w = &w;
            s.spawn(move || {
                for i in (t..N).step_by(THREADS as usize) {
                    let ev = cardholder_updated(
                        &new_id("evt"),
                        entity_id,
                        &at(1 + i),
                        &format!("Update {i}"),
                    );
                    let r = deliver(w, &ev);
                    let o = outcome(&r);
                    // Concurrent threads may deliver newer before older: stale is fine.
                    assert!(o == "applied" || o == "stale", "{r}");
                }
            });
        }
    });

    let before = entity(&w, entity_id);
    assert_eq!(before.status, 200, "{before}");
    assert_eq!(before.json()["state"]["name"], format!("Update {}", N - 1));

    // Wait for the clock to move on a second so a rewritten timestamp would show.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    // The provider re-sends the same event id with a fresh timestamp and signature.
    let r = send_early();
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(outcome(&r), "duplicate");
    assert_eq!(r.json()["rows_written"], 0, "{r}");

    let after = entity(&w, entity_id);
    assert_eq!(after.status, 200, "{after}");
    assert!(
        after.body == before.body,
        "entity changed:\nbefore {before}\nafter  {after}"
    );
    let rec = event_record(&w, &early_id, entity_id).json();
    assert_eq!(rec["outcome"], "applied", "{rec}");
}

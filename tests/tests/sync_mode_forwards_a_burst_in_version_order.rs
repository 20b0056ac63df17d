//! Synchronous mode under a burst: many snapshots of one entity arrive at once, in
//! shuffled order, and the provider retries every 409. The application receives each
//! forwarded version after every older one, and never an event hookonce recorded as stale.

use std::collections::{BTreeMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hookonce_e2e::origin::{self, Origin, Reply};
use hookonce_e2e::unix_now;
use serde_json::json;

const EVENTS: usize = 60;
const SENDERS: usize = 12;

#[test]
fn a_concurrent_shuffled_burst_reaches_the_application_in_version_order() {
    let o = Origin::start();
    // A call takes a little while, so the burst overlaps it.
    o.set_default(Reply::Hang(Duration::from_millis(40)));
    let w = origin::worker(json!({
        "url": o.url("/sync"), "mode": "sync", "timeout_secs": 2, "lease_secs": 5,
    }));

    // Version i is created i seconds after the first; ids do not sort like versions.
    let base = unix_now() - 100;
    let bodies: Vec<(String, Vec<u8>)> = (0..EVENTS)
        .map(|i| {
            let id = format!("evt_burst_{:03}", (i * 37) % EVENTS);
            let body = origin::event_body(&id, "item.snapshot", "ent_burst", base + i as i64);
            (id, body)
        })
        .collect();
    let version: BTreeMap<String, usize> = bodies
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (id.clone(), i))
        .collect();
    // A fixed shuffle: each sender takes every SENDERS-th event of a permuted order.
    let mut order: Vec<usize> = (0..EVENTS).collect();
    for i in (1..EVENTS).rev() {
        order.swap(i, (i * 7919 + 13) % (i + 1));
    }

    let outcomes = Mutex::new(BTreeMap::new());
    let conflicts = Mutex::new(0usize);
    let deadline = Instant::now() + Duration::from_secs(120);
    std::thread::scope(|s| {
        for k in 0..SENDERS {
            let (order, bodies, outcomes, conflicts, w) =
                (&order, &bodies, &outcomes, &conflicts, &w);
            s.spawn(move || {
                for &i in order.iter().skip(k).step_by(SENDERS) {
                    let (id, body) = &bodies[i];
                    loop {
                        assert!(Instant::now() < deadline, "{id} never got an answer");
                        let r = origin::deliver_body(w, id, body);
                        match r.status {
                            200 => {
                                let outcome = r.json()["outcome"].as_str().unwrap().to_owned();
                                outcomes.lock().unwrap().insert(id.clone(), outcome);
                                break;
                            }
                            409 => {
                                assert!(r.header("retry-after").is_some(), "{r}");
                                *conflicts.lock().unwrap() += 1;
                                // A provider backs off; a short pause keeps the test quick.
                                std::thread::sleep(Duration::from_millis(50));
                            }
                            _ => panic!("{id}: {r}"),
                        }
                    }
                }
            });
        }
    });

    let outcomes = outcomes.into_inner().unwrap();
    assert_eq!(outcomes.len(), EVENTS, "every event got a 200");
    let stale: HashSet<&String> = outcomes
        .iter()
        .filter(|(_, o)| *o == "stale")
        .map(|(id, _)| id)
        .collect();
    let received: Vec<String> = o.keys();
    let mut last = None;
    for id in &received {
        assert!(
            !stale.contains(id),
            "stale event {id} was forwarded: {received:?}"
        );
        let v = version[id];
        assert!(
            last.is_none_or(|l| v >= l),
            "version {v} ({id}) forwarded after version {last:?}: {received:?}"
        );
        last = Some(v);
    }
    // The newest version always wins, and it was forwarded.
    let newest = &bodies[EVENTS - 1].0;
    assert_eq!(outcomes[newest], "applied");
    assert_eq!(received.last(), Some(newest));
    let state = origin::entity(&w, "ent_burst").json();
    assert_eq!(state["version"]["event_id"], newest.as_str(), "{state}");
    let conflicts = conflicts.into_inner().unwrap();
    eprintln!(
        "burst: {EVENTS} events, {} forwarded, {} stale, {conflicts} answered 409",
        received.len(),
        stale.len()
    );
    assert!(
        conflicts > 0,
        "the burst never overlapped a call; the test proves nothing"
    );
}

//! 100 copies of one event arriving at once: exactly one is applied, the other 99 are
//! duplicates, every copy gets 200, and the entity records the event once.

use hookonce_e2e::events::*;
use hookonce_e2e::Worker;

#[test]
fn one_hundred_concurrent_copies_apply_once() {
    let w = Worker::start();
    let id = new_id("evt");
    let ev = cardholder_created(&id, "ch_concurrent", &at(0), "Ada");
    let barrier = std::sync::Barrier::new(100);
    let outcomes: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..100)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    let r = deliver(&w, &ev);
                    assert_eq!(r.status, 200, "{r}");
                    outcome(&r)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let applied = outcomes.iter().filter(|o| *o == "applied").count();
    let duplicate = outcomes.iter().filter(|o| *o == "duplicate").count();
    assert_eq!((applied, duplicate), (1, 99), "{outcomes:?}");

    let e = entity(&w, "ch_concurrent").json();
    let events = e["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{e}");
    assert_eq!(events[0]["event_id"], id.as_str());
    assert_eq!(events[0]["outcome"], "applied");
    assert_eq!(e["state"]["name"], "Ada");
}

//! An admin replay needs the body: once it is pruned, the replay is a 404
//! `application/problem+json` that says the body is no longer kept, never a 500; an event
//! the entity never saw gets a 404 that says so.

use std::time::Duration;

use hookonce_e2e::events::*;

#[test]
fn a_replay_without_its_body_is_a_404_problem_saying_the_body_is_gone() {
    let w = worker_keeping_bodies_for(1);
    let id = new_id("evt");
    let ev = cardholder_created(&id, "ch_gone", &at(0), "Grace");
    assert_eq!(outcome(&deliver(&w, &ev)), "applied");

    let r = wait_body_pruned(&w, &id, "ch_gone", Duration::from_secs(30));
    let detail = assert_problem(&r, 404, "not-found");
    assert!(detail.contains("no longer kept"), "{detail}");
    assert!(detail.contains(&id), "{detail}");

    let never = replay(&w, "evt_never_sent", "ch_gone");
    let detail = assert_problem(&never, 404, "not-found");
    assert!(detail.contains("has not seen it"), "{detail}");
}

//! An entity told `Grant` computes its row's retry window start from the answer alone
//! (`gate::window_start` with the `healthy_since` the answer carries), and it is the
//! instant the guard itself gives (`Protect::window_start`) right after the grant: before
//! any outage, for the half-open probe, and after a recovery and a resume.

mod protect_support;

use hookonce_core::gate::{self, Answer, Call, Command, Gate, Request};
use hookonce_core::protect::{Ask, Settings};
use protect_support::*;

#[test]
fn the_window_start_from_the_answer_is_the_guards_own() {
    let s = Settings::builder().failure_threshold(1).build().unwrap();
    let mut p = protect(s);
    let check = |p: &mut hookonce_core::protect::Protect<u32>, entity, now| {
        let g = grant(p, entity, now);
        let healthy = p.durable().healthy_since;
        for first in [at(0), at(10), at(35), now] {
            assert_eq!(
                gate::window_start(&g, healthy, first, now),
                p.window_start(first, now),
                "grant {g:?} healthy since {healthy:?}, first attempt {first}"
            );
        }
        g
    };
    let g = check(&mut p, 1, at(0)); // closed, never recovered
    let _ = p.report(&1, g.lease, &down(), at(1)); // open; probe at 31
    let probe = check(&mut p, 2, at(31));
    assert!(probe.probe);
    let _ = p.report(&2, probe.lease, &ok(), at(32)); // closed: healthy since 32
    let g = check(&mut p, 3, at(40));
    assert!(!g.probe);
    let _ = p.report(&3, g.lease, &ok(), at(40));
    assert!(p.pause(at(50)) && p.resume(at(60))); // healthy since the resume
    check(&mut p, 4, at(61));
}

#[test]
fn the_gate_objects_grant_carries_the_instant_of_the_recovery() {
    let s = Settings::builder().failure_threshold(1).build().unwrap();
    let mut gate = Gate::new(None);
    let ask = |entity: &str| Call {
        settings: s,
        request: Request::Ask {
            entity: entity.into(),
            rows: 1,
        },
    };
    let answer = |commands: Vec<Command>| match commands.last() {
        Some(Command::Answer(a)) => a.clone(),
        other => panic!("no answer: {other:?}"),
    };
    let Answer::Ask {
        ask: Ask::Grant(g),
        healthy_since: None,
    } = answer(gate.handle("cockpit/default", ask("a"), at(0)))
    else {
        panic!("a first grant, never recovered");
    };
    let report = |lease, result| Call {
        settings: s,
        request: Request::Report {
            entity: "a".into(),
            lease,
            earlier: 0,
            result,
        },
    };
    let _ = gate.handle("cockpit/default", report(g.lease, down()), at(1));
    let Answer::Ask {
        ask: Ask::Grant(probe),
        ..
    } = answer(gate.handle("cockpit/default", ask("a"), at(31)))
    else {
        panic!("the probe");
    };
    let _ = gate.handle("cockpit/default", report(probe.lease, ok()), at(32));
    let next = answer(gate.handle("cockpit/default", ask("a"), at(33)));
    assert!(
        matches!(
            next,
            Answer::Ask {
                ask: Ask::Grant(_),
                healthy_since: Some(t),
            } if t == at(32)
        ),
        "{next:?}"
    );
}

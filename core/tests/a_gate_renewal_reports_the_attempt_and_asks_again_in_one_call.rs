//! A drain whose next row goes to the same destination reports its attempt and asks again
//! in one call (`Request::Renew`): the result counts as a report's would (the lease ends
//! as reported, not lost), and the answer is the ask's, so a backlog holds one slot and
//! pays one round trip per attempt.

use hookonce_core::gate::{Answer, Call, Command, Gate, Request};
use hookonce_core::protect::{Ask, Circuit, LeaseId, Settings, Status};
use hookonce_core::retry::AttemptResult;
use hookonce_core::time::UnixSeconds;

const NAME: &str = "cockpit/default";
const NOW: UnixSeconds = UnixSeconds(1_791_270_400);

fn answer(gate: &mut Gate, request: Request) -> Answer {
    let call = Call {
        settings: Settings::default(),
        request,
    };
    match gate.handle(NAME, call, NOW).pop() {
        Some(Command::Answer(a)) => a,
        other => panic!("the last command is the answer, not {other:?}"),
    }
}

fn lease_of(a: &Answer) -> LeaseId {
    match a {
        Answer::Ask {
            ask: Ask::Grant(g), ..
        } => g.lease,
        other => panic!("granted, not {other:?}"),
    }
}

fn renew(gate: &mut Gate, lease: LeaseId, result: AttemptResult) -> Answer {
    answer(
        gate,
        Request::Renew {
            entity: "ch_1".into(),
            lease,
            earlier: 0,
            result,
            rows: 1,
        },
    )
}

fn status(gate: &mut Gate) -> Status {
    match answer(gate, Request::Status) {
        Answer::Status { status, .. } => status,
        other => panic!("a status, not {other:?}"),
    }
}

#[test]
fn a_renewal_counts_the_result_frees_the_slot_and_grants_the_next_attempt() {
    let mut gate = Gate::new(None);
    let first = lease_of(&answer(
        &mut gate,
        Request::Ask {
            entity: "ch_1".into(),
            rows: 1,
        },
    ));
    let ok = AttemptResult::Status {
        code: 204,
        retry_after: None,
    };
    let second = lease_of(&renew(&mut gate, first, ok));
    assert_ne!(first, second);
    let s = status(&mut gate);
    assert_eq!(s.in_flight, 1, "one slot for the entity's backlog: {s:?}");
    assert_eq!(s.recent_attempts, 1, "the first attempt counted: {s:?}");
    assert_eq!(s.recent_failures, 0, "{s:?}");
}

#[test]
fn outage_results_reported_by_renewals_open_the_breaker() {
    let mut gate = Gate::new(None);
    let mut lease = lease_of(&answer(
        &mut gate,
        Request::Ask {
            entity: "ch_1".into(),
            rows: 1,
        },
    ));
    for _ in 1..Settings::FAILURE_THRESHOLD {
        lease = lease_of(&renew(&mut gate, lease, AttemptResult::Timeout));
    }
    let last = renew(&mut gate, lease, AttemptResult::Timeout);
    assert!(
        matches!(
            last,
            Answer::Ask {
                ask: Ask::Wait { .. },
                ..
            }
        ),
        "{last:?}"
    );
    assert_eq!(status(&mut gate).circuit, Circuit::Open);
}

//! One delivery's sequence through its entity's object (core's `Ingest`): what the adapter
//! is told to read, write, wait for and answer, step by step, as it would carry it out.

mod common;

use common::{cockpit, grant, parse_signed, snapshot, Signed, NOW};
use hookonce_core::decide::{Claim, Lease, Outcome, Plan, Said, Stored, Write};
use hookonce_core::entity::{Answer, Command, Guard, Ingest, Input, Known, Reads, Report};
use hookonce_core::feed::FeedOutcome;
use hookonce_core::protect::{Ask, LeaseId, WaitReason};
use hookonce_core::retry::AttemptResult;
use hookonce_core::time::{Seconds, UnixSeconds};
use serde_json::json;

/// The sample source, forwarding in `mode` ("async" or "sync").
fn forwarding(mode: &str) -> Signed {
    let source = json!({
        "scheme": "standard-webhooks",
        "secrets": ["COCKPIT_SECRET"],
        "effects": { "cardholder.updated": "snapshot" },
        "forward": { "url": "https://app.example/hooks", "mode": mode, "lease_secs": 30 },
    });
    let config = hookonce_core::config::SourceConfig::from_json("cockpit", &source).unwrap();
    parse_signed(&config, &snapshot("evt_1", "card_1", 0, "active")).unwrap()
}

const NEW: Known<'static> = Known {
    empty: true,
    version: Some(None),
};
const KNOWS_NOTHING: Known<'static> = Known {
    empty: false,
    version: None,
};

fn written(ingest: &mut Ingest<'_>, rows: usize) -> Command {
    ingest.handle(Input::Written(Some(rows)))
}

#[test]
fn a_new_object_decides_once_and_sets_its_alarm_before_its_writes() {
    let e = forwarding("async");
    let mut ingest = Ingest::new(
        e.delivery(),
        Plan::for_source(&e.source, e.kind().as_str()),
        NOW,
    );
    // An enqueued forward: the alarm fires at once, and is set before anything is written.
    assert_eq!(ingest.start(NEW), Command::SetAlarm(NOW));
    assert!(
        ingest.writes().is_empty(),
        "nothing to write while the alarm is set"
    );
    let write = ingest.handle(Input::AlarmSet(NEW));
    assert_eq!(
        write,
        Command::Write {
            guard: Guard::UnlessRecorded,
            now: NOW
        }
    );
    assert!(matches!(
        ingest.writes().last(),
        Some(Write::Enqueue { .. })
    ));
    let version = e.event.version();
    assert_eq!(written(&mut ingest, 5), Command::KeepVersion(version));
    // The alarm this delivery set already covers its writes: no second one.
    let report = Report {
        said: Said::Applied,
        rows_written: 5,
        feed: Some(FeedOutcome::Applied),
    };
    assert_eq!(ingest.handle(Input::Kept), Command::Report(report));
    let answer = ingest.handle(Input::Reported);
    assert_eq!(
        answer,
        Command::Answer(Answer::Decided {
            said: Said::Applied,
            rows_written: 5,
            retry_after: None
        })
    );
}

#[test]
fn a_new_object_written_to_while_its_alarm_was_set_reads_before_it_decides() {
    let e = forwarding("async");
    let mut ingest = Ingest::new(
        e.delivery(),
        Plan::for_source(&e.source, e.kind().as_str()),
        NOW,
    );
    assert_eq!(ingest.start(NEW), Command::SetAlarm(NOW));
    let reads = Reads {
        ledger: false,
        claim: false,
        version: true,
    };
    assert_eq!(
        ingest.handle(Input::AlarmSet(KNOWS_NOTHING)),
        Command::Read(reads)
    );
}

#[test]
fn a_guarded_record_that_finds_its_id_recorded_reads_and_answers_duplicate() {
    let e = forwarding("async");
    let mut ingest = Ingest::new(
        e.delivery(),
        Plan::for_source(&e.source, e.kind().as_str()),
        NOW,
    );
    let known = Known {
        empty: false,
        version: Some(None),
    };
    assert!(matches!(
        ingest.start(known),
        Command::Write {
            guard: Guard::UnlessRecorded,
            ..
        }
    ));
    assert!(matches!(
        ingest.handle(Input::Written(None)),
        Command::Read(_)
    ));
    let recorded = Stored {
        record: Some(Outcome::Applied),
        ..Stored::default()
    };
    let write = ingest.handle(Input::Stored(recorded));
    assert_eq!(
        write,
        Command::Write {
            guard: Guard::None,
            now: NOW
        }
    );
    assert!(ingest.writes().is_empty(), "a duplicate writes nothing");
    let report = Report {
        said: Said::Duplicate,
        rows_written: 0,
        feed: Some(FeedOutcome::Duplicate),
    };
    assert_eq!(written(&mut ingest, 0), Command::Report(report));
}

/// A synchronous delivery of `e` up to its call: the claim read, written and kept.
fn claimed(ingest: &mut Ingest<'_>) -> UnixSeconds {
    let reads = Reads {
        ledger: false,
        claim: true,
        version: true,
    };
    assert_eq!(ingest.start(KNOWS_NOTHING), Command::Read(reads));
    assert!(matches!(
        ingest.handle(Input::Stored(Stored::default())),
        Command::Write { .. }
    ));
    assert!(matches!(ingest.writes(), [Write::Claim(_)]));
    // The read found no snapshot: the object keeps that.
    assert_eq!(written(ingest, 1), Command::KeepVersion(None));
    assert_eq!(ingest.handle(Input::Kept), Command::AskGate);
    match ingest.handle(Input::Asked(Some(grant(4, NOW.plus(Seconds(30)))))) {
        Command::Send { until } => until,
        other => panic!("a granted claim is sent, not {other:?}"),
    }
}

/// The call came to `result` at `now`: its result is reported to the gate under the
/// grant's lease (when there is one to report), then the delivery goes on.
fn sent(ingest: &mut Ingest<'_>, result: Option<AttemptResult>, now: UnixSeconds) -> Command {
    let next = ingest.handle(Input::Sent {
        result: result.clone(),
        now,
    });
    match result {
        Some(r) => {
            assert_eq!(
                next,
                Command::ReportToGate {
                    lease: LeaseId(4),
                    result: r
                }
            );
            ingest.handle(Input::GateReported)
        }
        None => next,
    }
}

fn status(code: u16) -> Option<AttemptResult> {
    Some(AttemptResult::Status {
        code,
        retry_after: None,
    })
}

#[test]
fn a_synchronous_call_answered_2xx_commits_from_a_fresh_read() {
    let e = forwarding("sync");
    let mut ingest = Ingest::new(
        e.delivery(),
        Plan::for_source(&e.source, e.kind().as_str()),
        NOW,
    );
    let until = claimed(&mut ingest);
    assert_eq!(until, NOW.plus(Seconds(30)));
    let later = NOW.plus(Seconds(1));
    let read = sent(&mut ingest, status(204), later);
    assert!(matches!(read, Command::Read(Reads { claim: true, .. })));
    let held = Stored {
        claim: Some(Claim {
            holder: Some(Lease {
                event_id: e.event.id().clone(),
                until,
            }),
            newest: e.event.version(),
        }),
        ..Stored::default()
    };
    let write = ingest.handle(Input::Stored(held));
    assert_eq!(
        write,
        Command::Write {
            guard: Guard::None,
            now: later
        }
    );
    assert!(matches!(
        ingest.writes().last(),
        Some(Write::Release { .. })
    ));
    assert!(!ingest
        .writes()
        .iter()
        .any(|w| matches!(w, Write::Enqueue { .. })));
}

#[test]
fn a_synchronous_call_that_fails_gives_its_claim_back_and_answers_502_released() {
    for result in [status(500), status(302), None] {
        let e = forwarding("sync");
        let mut ingest = Ingest::new(
            e.delivery(),
            Plan::for_source(&e.source, e.kind().as_str()),
            NOW,
        );
        let until = claimed(&mut ingest);
        let read = sent(&mut ingest, result.clone(), NOW);
        assert_eq!(read, Command::ReadClaim);
        let claim = Claim {
            holder: Some(Lease {
                event_id: e.event.id().clone(),
                until,
            }),
            newest: None,
        };
        let write = ingest.handle(Input::Claim(Some(claim)));
        assert!(matches!(write, Command::Write { .. }));
        assert!(matches!(ingest.writes(), [Write::Release { .. }]));
        let Command::Answer(answer) = written(&mut ingest, 1) else {
            panic!("a released claim is answered");
        };
        assert_eq!(answer.status(), 502, "{result:?}");
        assert!(matches!(answer, Answer::Released { .. }));
    }
}

#[test]
fn a_destination_its_gate_holds_gets_nothing_and_the_claim_is_given_back_with_502_released() {
    let wait = Ask::Wait {
        until: NOW.plus(Seconds(20)),
        reason: WaitReason::Open,
    };
    for answer in [Some(wait), Some(Ask::Paused), None] {
        let e = forwarding("sync");
        let mut ingest = Ingest::new(
            e.delivery(),
            Plan::for_source(&e.source, e.kind().as_str()),
            NOW,
        );
        assert_eq!(
            ingest.start(KNOWS_NOTHING),
            Command::Read(Reads {
                ledger: false,
                claim: true,
                version: true,
            })
        );
        let _ = ingest.handle(Input::Stored(Stored::default()));
        let _ = written(&mut ingest, 1);
        assert_eq!(ingest.handle(Input::Kept), Command::AskGate);
        assert_eq!(
            ingest.handle(Input::Asked(answer)),
            Command::ReadClaim,
            "nothing is sent: {answer:?}"
        );
        let claim = Claim {
            holder: Some(Lease {
                event_id: e.event.id().clone(),
                until: NOW.plus(Seconds(30)),
            }),
            newest: None,
        };
        assert!(matches!(
            ingest.handle(Input::Claim(Some(claim))),
            Command::Write { .. }
        ));
        assert!(matches!(ingest.writes(), [Write::Release { .. }]));
        let Command::Answer(Answer::Released { detail }) = written(&mut ingest, 1) else {
            panic!("a held destination's claim is given back and answered");
        };
        assert!(detail.contains("nothing was sent"), "{detail}");
    }
}

#[test]
fn a_claim_taken_over_meanwhile_is_not_released() {
    let e = forwarding("sync");
    let mut ingest = Ingest::new(
        e.delivery(),
        Plan::for_source(&e.source, e.kind().as_str()),
        NOW,
    );
    claimed(&mut ingest);
    assert_eq!(sent(&mut ingest, status(503), NOW), Command::ReadClaim);
    let other = Claim {
        holder: Some(Lease {
            event_id: hookonce_core::event::EventId::new("evt_2").unwrap(),
            until: NOW.plus(Seconds(60)),
        }),
        newest: None,
    };
    let answer = ingest.handle(Input::Claim(Some(other)));
    assert!(matches!(answer, Command::Answer(Answer::Released { .. })));
}

#[test]
fn an_input_the_delivery_does_not_wait_for_answers_500() {
    let e = event_of_cockpit();
    let mut ingest = Ingest::new(
        e.delivery(),
        Plan::for_source(&e.source, e.kind().as_str()),
        NOW,
    );
    let _ = ingest.start(KNOWS_NOTHING);
    let answer = ingest.handle(Input::Reported);
    assert_eq!(answer, Command::Answer(Answer::OutOfStep));
    if let Command::Answer(a) = answer {
        assert_eq!(a.status(), 500);
    }
}

fn event_of_cockpit() -> Signed {
    parse_signed(&cockpit(), &snapshot("evt_1", "card_1", 0, "active")).unwrap()
}

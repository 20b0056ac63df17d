//! The admin requests an entity object serves as sequences (core's `Replay` and `Requeue`):
//! what the adapter is told to read, deliver, write and answer.

mod common;

use common::{event, snapshot, NOW, SECRET};
use hookonce_core::decide::Said;
use hookonce_core::entity::admin::{
    DeadCount, Replay, ReplayAnswer, ReplayCommand, ReplayInput, Requeue, RequeueCommand,
    RequeueInput, Requeued, Skipped, SKIPPED_REMOVED,
};
use hookonce_core::event::EventId;
use hookonce_core::feed::Note;
use hookonce_core::time::Seconds;
use hookonce_core::verify::{Scheme, Verifier};

#[test]
fn a_replay_signs_the_kept_body_afresh_and_says_whether_it_changed_anything() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let id = e.event.id().clone();
    let secret = Scheme::StandardWebhooks.parse_secret(SECRET).unwrap();
    let (mut replay, first) = Replay::start(&id);
    assert_eq!(first, ReplayCommand::ReadBody);
    let body = ReplayInput::Body(Some((None, e.body.clone())));
    assert_eq!(replay.handle(body), ReplayCommand::LoadSource);
    let later = NOW.plus(Seconds(3600));
    let source = ReplayInput::Source {
        scheme: &Scheme::StandardWebhooks,
        secret: &secret,
        now: later,
    };
    assert_eq!(replay.handle(source), ReplayCommand::Fingerprint);
    assert_eq!(
        replay.handle(ReplayInput::Fingerprint("1:5".to_owned())),
        ReplayCommand::Deliver
    );
    // The request verifies as a provider's would, an hour later, under the event's id.
    let (headers, sent) = replay.request();
    assert_eq!(sent, e.body.as_slice());
    let verifier = Verifier::new(Scheme::StandardWebhooks, vec![secret.clone()], Seconds(300));
    assert!(verifier.unwrap().verify(headers, sent, later).is_ok());
    let webhook_id = headers.iter().find(|(k, _)| k == "webhook-id");
    assert_eq!(webhook_id.map(|(_, v)| v.as_str()), Some("evt_1"));
    let delivered = ReplayInput::Delivered {
        status: 200,
        said: Some(Said::Duplicate),
    };
    assert_eq!(replay.handle(delivered), ReplayCommand::Fingerprint);
    let answer = replay.handle(ReplayInput::Fingerprint("1:5".to_owned()));
    assert_eq!(
        answer,
        ReplayCommand::Answer(ReplayAnswer::Replayed {
            said: Some(Said::Duplicate),
            status: 200,
            changed: false
        })
    );
}

#[test]
fn a_replay_with_no_body_says_whether_the_event_was_ever_seen() {
    let id = EventId::new("evt_9").unwrap();
    for (seen, says) in [
        (None, "this entity has not seen it"),
        (Some("stale".to_owned()), "it was stale here"),
    ] {
        let (mut replay, _) = Replay::start(&id);
        assert_eq!(
            replay.handle(ReplayInput::Body(None)),
            ReplayCommand::ReadOutcome
        );
        let ReplayCommand::Answer(ReplayAnswer::NoBody(detail)) =
            replay.handle(ReplayInput::Outcome(seen))
        else {
            panic!("no body is a 404");
        };
        assert!(detail.contains(says), "{detail}");
    }
}

#[test]
fn kept_headers_that_do_not_read_back_are_an_internal_error() {
    let id = EventId::new("evt_1").unwrap();
    let secret = Scheme::StandardWebhooks.parse_secret(SECRET).unwrap();
    let (mut replay, _) = Replay::start(&id);
    let body = ReplayInput::Body(Some((Some("not json".to_owned()), b"{}".to_vec())));
    assert_eq!(replay.handle(body), ReplayCommand::LoadSource);
    let source = ReplayInput::Source {
        scheme: &Scheme::StandardWebhooks,
        secret: &secret,
        now: NOW,
    };
    assert_eq!(
        replay.handle(source),
        ReplayCommand::Answer(ReplayAnswer::Unreadable)
    );
}

fn dead(destination: &str, rows: usize) -> DeadCount {
    DeadCount {
        destination: destination.into(),
        rows,
    }
}

/// Runs a requeue over `counts`, each destination's `UPDATE` putting back all its rows;
/// the commands it gave, and its answer.
fn run(only: Option<&str>, counts: Vec<DeadCount>) -> (Vec<String>, Requeued) {
    let configured = ["analytics", "billing", "default"];
    let rows = counts.clone();
    let (mut r, mut c) =
        Requeue::start(Some("stripe"), Some("cus_1"), true, NOW, only, &configured);
    let mut seen = Vec::new();
    loop {
        c = match c {
            RequeueCommand::ReadDead => r.handle(RequeueInput::Dead(counts.clone())),
            RequeueCommand::Requeue(name, at) => {
                assert_eq!(at, NOW);
                seen.push(format!("requeue {name}"));
                let n = rows.iter().find(|d| d.destination == name).unwrap().rows;
                r.handle(RequeueInput::Requeued(n))
            }
            RequeueCommand::SetAlarm(at) => {
                seen.push(format!("alarm {}", at.0 - NOW.0));
                r.handle(RequeueInput::AlarmSet)
            }
            RequeueCommand::Note { source, note } => {
                let Note::Requeued {
                    entity,
                    destination,
                } = note
                else {
                    panic!("{note:?}")
                };
                seen.push(format!("note {source} {entity} {}", destination.unwrap()));
                r.handle(RequeueInput::Noted)
            }
            RequeueCommand::Answer(a) => return (seen, a),
        }
    }
}

#[test]
fn a_requeue_of_one_destination_puts_back_only_its_rows_and_tells_the_feed_so() {
    let (seen, answer) = run(
        Some("billing"),
        vec![dead("analytics", 2), dead("billing", 3)],
    );
    assert_eq!(
        seen,
        ["requeue billing", "alarm 0", "note stripe cus_1 billing"]
    );
    assert_eq!(
        answer,
        Requeued {
            requeued: 3,
            skipped: vec![]
        }
    );
}

#[test]
fn a_requeue_of_all_skips_a_removed_destination_and_says_why() {
    let (seen, answer) = run(
        None,
        vec![dead("analytics", 1), dead("gone", 4), dead("default", 2)],
    );
    assert_eq!(
        seen,
        [
            "requeue analytics",
            "requeue default",
            "alarm 0",
            "note stripe cus_1 analytics",
            "note stripe cus_1 default"
        ]
    );
    assert_eq!(answer.requeued, 3);
    assert_eq!(
        answer.skipped,
        [Skipped {
            destination: "gone".into(),
            rows: 4,
            reason: SKIPPED_REMOVED
        }]
    );
}

#[test]
fn a_requeue_with_nothing_dead_sets_no_alarm_and_tells_no_feed() {
    assert_eq!(run(None, vec![]), (vec![], Requeued::default()));
    assert_eq!(
        run(Some("billing"), vec![dead("analytics", 2)]),
        (vec![], Requeued::default())
    );
    let (r, c) = Requeue::start(None, None, false, NOW, None, &[]);
    drop(r);
    assert_eq!(c, RequeueCommand::Answer(Requeued::default()));
}

//! The admin requests an entity object serves as sequences (core's `Replay`):
//! what the adapter is told to read, deliver, write and answer.

mod common;

use common::{event, snapshot, NOW, SECRET};
use hookonce_core::decide::Said;
use hookonce_core::entity::admin::{Replay, ReplayAnswer, ReplayCommand, ReplayInput};
use hookonce_core::event::EventId;
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

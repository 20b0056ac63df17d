//! What an entity object's alarm does after its outbox run (core's `Upkeep`): the notes, the
//! prunes and the report to the feed it asks for, in order, as the adapter carries them out.

use hookonce_core::entity::upkeep::{Command, Input, Object, Upkeep};
use hookonce_core::feed::{DeadLetter, Note};
use hookonce_core::log::failure;
use hookonce_core::metrics::{Count, DestinationRows, OutboxSnapshot, ATTEMPTS};
use hookonce_core::retention::{Kept, Lifetimes, Prune, PRUNE_BATCH};
use hookonce_core::time::{Seconds, UnixSeconds};

const STARTED: UnixSeconds = UnixSeconds(1_791_270_000);
const NOW: UnixSeconds = UnixSeconds(1_791_270_005);

fn object(lifetimes: Option<Lifetimes>, reported: Option<&OutboxSnapshot>) -> Object<'_> {
    Object {
        source: Some("cockpit"),
        entity: Some("card_1"),
        lifetimes,
        reported,
    }
}

fn dead(id: &str) -> DeadLetter {
    DeadLetter {
        entity: None,
        event_id: id.to_owned(),
        destination: "default".to_owned(),
        attempts: 7,
        last_result: "HTTP 500".to_owned(),
        at: NOW.0,
    }
}

fn attempts(label: &str, by: u64) -> Vec<Count> {
    vec![Count {
        family: ATTEMPTS.to_owned(),
        label: label.to_owned(),
        by,
    }]
}

/// Carries `pass` from `command` to its report of the outbox, answering each note; returns
/// the notes it asked for.
fn to_report<'a>(pass: &mut Upkeep<'a>, mut command: Command<'a>, kept: Kept) -> Vec<Note> {
    let mut notes = Vec::new();
    loop {
        command = match command {
            Command::Note { source, note } => {
                assert_eq!(source, "cockpit");
                notes.push(note);
                pass.handle(Input::Noted)
            }
            Command::ReadKept => pass.handle(Input::Kept(kept)),
            Command::ReadOutbox => return notes,
            other => panic!("unexpected {other:?}"),
        };
    }
}

#[test]
fn rows_that_died_and_the_runs_attempts_are_noted_with_the_objects_entity() {
    let lifetimes = Lifetimes::default();
    let mut pass = Upkeep::new(
        object(Some(lifetimes), None),
        STARTED,
        NOW,
        attempts("2xx", 3),
    );
    assert_eq!(pass.start(), Command::ReadDead { since: STARTED });
    let first = pass.handle(Input::Dead(vec![dead("evt_1")]));
    let notes = to_report(&mut pass, first, Kept::default());
    assert_eq!(
        notes,
        vec![
            Note::Dead(DeadLetter {
                entity: Some("card_1".to_owned()),
                ..dead("evt_1")
            }),
            Note::Attempts {
                result: "2xx".to_owned(),
                count: 3
            },
        ]
    );
}

#[test]
fn a_source_no_longer_configured_gets_its_dead_letters_noted_and_nothing_else() {
    let mut pass = Upkeep::new(object(None, None), STARTED, NOW, attempts("5xx", 1));
    assert_eq!(pass.start(), Command::ReadDead { since: STARTED });
    let note = pass.handle(Input::Dead(vec![dead("evt_1")]));
    assert!(matches!(
        note,
        Command::Note {
            note: Note::Dead(_),
            ..
        }
    ));
    assert_eq!(pass.handle(Input::Noted), Command::Done);
}

#[test]
fn a_full_batch_of_bodies_re_arms_the_alarm_at_once() {
    let lifetimes = Lifetimes::default();
    let mut pass = Upkeep::new(object(Some(lifetimes), None), STARTED, NOW, Vec::new());
    let _ = pass.start();
    assert_eq!(pass.handle(Input::Dead(Vec::new())), Command::ReadKept);
    // A body kept long before its lifetime ran out.
    let old = Kept {
        oldest_body: Some(UnixSeconds(1)),
        ..Kept::default()
    };
    let Command::Prune(prune @ Prune::Bodies { .. }) = pass.handle(Input::Kept(old)) else {
        panic!("an expired body is pruned");
    };
    assert_eq!(prune.limit(), PRUNE_BATCH);
    // The batch was full: more may be due, read again, and come back at once.
    let again = pass.handle(Input::Pruned(PRUNE_BATCH as usize));
    assert_eq!(again, Command::ReadKept);
    assert_eq!(pass.handle(Input::Kept(old)), Command::SetAlarm(NOW));
    assert_eq!(pass.handle(Input::AlarmSet), Command::ReadOutbox);
}

/// A pass of an object that last told the feed `reported`, run up to reading its outbox.
fn at_the_outbox(reported: Option<&OutboxSnapshot>) -> Upkeep<'_> {
    let object = object(Some(Lifetimes::default()), reported);
    let mut pass = Upkeep::new(object, STARTED, NOW, Vec::new());
    let _ = pass.start();
    let first = pass.handle(Input::Dead(Vec::new()));
    to_report(&mut pass, first, Kept::default());
    pass
}

#[test]
fn the_feed_is_told_of_the_outbox_until_it_has_taken_it() {
    let rows = OutboxSnapshot {
        destinations: vec![DestinationRows {
            destination: "billing".into(),
            pending: 1,
            oldest_pending_at: Some(NOW.0),
            dead: 0,
        }],
    };
    // Told already: nothing to do.
    let mut told = at_the_outbox(Some(&rows));
    let input = Input::Outbox {
        rows: rows.clone(),
        table: true,
    };
    assert_eq!(told.handle(input.clone()), Command::Done);

    // Not told: tell, and remember once the feed took it.
    let mut pass = at_the_outbox(None);
    let tell = pass.handle(input.clone());
    assert_eq!(
        tell,
        Command::TellFeed {
            source: "cockpit",
            rows: rows.clone()
        }
    );
    assert_eq!(pass.handle(Input::Told(Ok(204))), Command::Remember(rows));
    assert_eq!(pass.handle(Input::Remembered), Command::Done);

    // The feed refused or was not reached: logged with why, and the alarm comes back within
    // a minute to tell it again.
    for (answer, error) in [
        (Ok(500), "the feed answered 500"),
        (Ok(199), "the feed answered 199"),
        (Ok(300), "the feed answered 300"),
        (Err("connection reset".to_owned()), "connection reset"),
    ] {
        let mut failed = at_the_outbox(None);
        let _ = failed.handle(input.clone());
        assert_eq!(
            failed.handle(Input::Told(answer)),
            Command::Log(failure("feed_write_failed", "cockpit", error))
        );
        assert_eq!(
            failed.handle(Input::Logged),
            Command::SetAlarm(NOW.plus(Seconds::MINUTE))
        );
    }
}

#[test]
fn an_object_that_never_queued_a_row_has_nothing_to_tell_after_a_restart() {
    let mut pass = Upkeep::new(
        object(Some(Lifetimes::default()), None),
        STARTED,
        NOW,
        Vec::new(),
    );
    let _ = pass.start();
    let first = pass.handle(Input::Dead(Vec::new()));
    to_report(&mut pass, first, Kept::default());
    let none = Input::Outbox {
        rows: OutboxSnapshot::default(),
        table: false,
    };
    assert_eq!(pass.handle(none), Command::Done);
}

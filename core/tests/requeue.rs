//! A requeue of an entity's dead letters (core's `Requeue`) with its filter, and the sums
//! of a page of them: which rows go back, what the feed is told, what is answered.

use hookonce_core::entity::requeue::{
    DeadCount, DeadFilter, DeadRow, Requeue, RequeueCommand, RequeueInput, Requeued, Skipped,
    SKIPPED_REMOVED,
};
use hookonce_core::feed::Note;
use hookonce_core::page::QueryError;
use hookonce_core::sweep::{Candidates, Tally};
use hookonce_core::time::UnixSeconds;

const NOW: UnixSeconds = UnixSeconds(1_791_270_400);

/// A dead row: `seq`, destination, type, reason, died at.
fn row(seq: i64, destination: &str, kind: &str, reason: &str, died_at: i64) -> DeadRow {
    DeadRow {
        seq,
        event_id: format!("evt_{seq}"),
        destination: destination.into(),
        event_type: kind.into(),
        reason: reason.into(),
        died_at: Some(died_at),
    }
}

fn dead(destination: &str, rows: usize) -> DeadCount {
    DeadCount {
        destination: destination.into(),
        rows,
    }
}

/// Runs a requeue over `rows`, each `UPDATE` putting back all the rows it names; the
/// commands it gave, and its answer.
fn run(filter: &DeadFilter, dry_run: bool, rows: Vec<DeadRow>) -> (Vec<String>, Requeued) {
    let configured = ["analytics", "billing", "default"];
    let (mut r, mut c) = Requeue::start(
        Some("stripe"),
        Some("cus_1"),
        true,
        NOW,
        filter,
        dry_run,
        &configured,
    );
    let mut seen = Vec::new();
    loop {
        c = match c {
            RequeueCommand::ReadDead => r.handle(RequeueInput::Dead(rows.clone())),
            RequeueCommand::Requeue {
                destination,
                seqs,
                at,
            } => {
                assert_eq!(at, NOW);
                seen.push(format!("requeue {destination} {seqs:?}"));
                r.handle(RequeueInput::Requeued(seqs.len()))
            }
            RequeueCommand::SetAlarm(at) => {
                seen.push(format!("alarm {}", at.0 - NOW.0));
                r.handle(RequeueInput::AlarmSet)
            }
            RequeueCommand::Note { source, note } => {
                let Note::Requeued {
                    entity,
                    destination,
                    events,
                } = note
                else {
                    panic!("{note:?}")
                };
                let d = destination.unwrap();
                seen.push(format!("note {source} {entity} {d} {events:?}"));
                r.handle(RequeueInput::Noted)
            }
            RequeueCommand::Answer(a) => return (seen, a),
        }
    }
}

fn filter(query: &str) -> DeadFilter {
    DeadFilter::parse(query).unwrap()
}

#[test]
fn a_requeue_of_one_destination_puts_back_only_its_rows_and_tells_the_feed_so() {
    let rows = vec![
        row(1, "analytics", "a.b", "503", 10),
        row(2, "billing", "a.b", "503", 10),
        row(4, "billing", "a.c", "410", 11),
    ];
    let (seen, answer) = run(&DeadFilter::of(Some("billing".into())), false, rows);
    assert_eq!(
        seen,
        [
            "requeue billing [2, 4]",
            "alarm 0",
            "note stripe cus_1 billing []"
        ]
    );
    assert_eq!(
        answer,
        Requeued {
            requeued: 2,
            matched: vec![dead("billing", 2)],
            skipped: vec![]
        }
    );
}

#[test]
fn a_requeue_of_all_skips_a_removed_destination_and_says_why() {
    let rows = vec![
        row(1, "analytics", "a", "x", 1),
        row(2, "gone", "a", "x", 1),
        row(3, "default", "a", "x", 1),
        row(5, "gone", "a", "x", 1),
        row(6, "default", "a", "x", 1),
    ];
    let (seen, answer) = run(&DeadFilter::default(), false, rows);
    assert_eq!(
        seen,
        [
            "requeue analytics [1]",
            "requeue default [3, 6]",
            "alarm 0",
            "note stripe cus_1 analytics []",
            "note stripe cus_1 default []"
        ]
    );
    assert_eq!(answer.requeued, 3);
    assert_eq!(answer.matched, [dead("analytics", 1), dead("default", 2)]);
    assert_eq!(
        answer.skipped,
        [Skipped {
            destination: "gone".into(),
            rows: 2,
            reason: SKIPPED_REMOVED.into()
        }]
    );
}

#[test]
fn a_requeue_with_nothing_dead_sets_no_alarm_and_tells_no_feed() {
    assert_eq!(
        run(&DeadFilter::default(), false, vec![]),
        (vec![], Requeued::default())
    );
    let analytics = vec![row(1, "analytics", "a", "x", 1)];
    assert_eq!(
        run(&DeadFilter::of(Some("billing".into())), false, analytics),
        (vec![], Requeued::default())
    );
    let all = DeadFilter::default();
    let (r, c) = Requeue::start(None, None, false, NOW, &all, false, &[]);
    drop(r);
    assert_eq!(c, RequeueCommand::Answer(Requeued::default()));
}

#[test]
fn a_filtered_requeue_puts_back_exactly_the_rows_of_its_types_time_and_reason() {
    let rows = vec![
        row(1, "billing", "invoice.paid", "HTTP 503", 100),
        row(2, "billing", "invoice.upcoming", "HTTP 503", 100),
        row(3, "billing", "customer.created", "HTTP 503", 100),
        row(4, "billing", "invoice.payment.failed", "HTTP 503", 99),
        row(5, "billing", "invoice.paid", "HTTP 503", 201),
        row(6, "billing", "invoice.paid", "HTTP 410 gone", 150),
        row(7, "analytics", "invoice.paid", "HTTP 503", 150),
        row(8, "billing", "invoice.voided", "HTTP 503", 200),
    ];
    let f = filter(
        "destination=billing&type=invoice.*,!invoice.upcoming&since=100&until=200&reason=503",
    );
    let (seen, answer) = run(&f, false, rows);
    assert_eq!(
        seen,
        [
            "requeue billing [1, 8]",
            "alarm 0",
            "note stripe cus_1 billing [\"evt_1\", \"evt_8\"]"
        ],
        "only the rows it names go back, and only their letters leave the feed's list"
    );
    assert_eq!(answer.requeued, 2);
}

#[test]
fn a_dry_run_counts_what_would_go_back_and_changes_nothing() {
    let rows = vec![
        row(1, "billing", "a", "x", 1),
        row(2, "analytics", "a", "x", 1),
        row(3, "billing", "a", "x", 1),
        row(4, "gone", "a", "x", 1),
    ];
    let (seen, answer) = run(&DeadFilter::default(), true, rows);
    assert_eq!(seen, Vec::<String>::new(), "no write, no alarm, no note");
    assert_eq!(answer.requeued, 0);
    assert_eq!(answer.matched, [dead("analytics", 1), dead("billing", 2)]);
    assert_eq!(answer.matched_rows(), 3);
    assert_eq!(answer.skipped[0].rows, 1);
}

#[test]
fn a_row_with_no_time_of_death_is_outside_any_time_range() {
    let mut r = row(1, "billing", "a", "x", 1);
    r.died_at = None;
    assert!(DeadFilter::default().admits(&r));
    assert!(!filter("since=0").admits(&r));
    assert!(!filter("until=5").admits(&r));
}

#[test]
fn a_filter_refuses_a_bad_range_time_or_pattern_and_round_trips_a_good_one() {
    for (bad, e) in [
        ("since=10&until=9", QueryError::Range),
        ("since=2h", QueryError::Time("since")),
        ("until=-1", QueryError::Time("until")),
        ("until=9007199254740992", QueryError::Time("until")),
        ("destination=", QueryError::Required("destination")),
        ("since=%zz", QueryError::Escape),
    ] {
        assert_eq!(DeadFilter::parse(bad), Err(e), "{bad}");
    }
    for bad in ["type=inv*", "type=", "type=a..b", "type=!*"] {
        assert!(
            matches!(DeadFilter::parse(bad), Err(QueryError::Pattern(_))),
            "{bad}"
        );
    }
    let long = "r".repeat(201);
    assert_eq!(
        DeadFilter::parse(&format!("reason={long}")),
        Err(QueryError::TooLong("reason", 200))
    );
    let f = filter("destination=bill%20ing&type=a.*,!a.b&since=5&until=5&reason=HTTP%20503");
    assert_eq!(DeadFilter::parse(&f.to_query()), Ok(f.clone()));
    assert!(f.narrows());
    assert!(!DeadFilter::of(Some("x".into())).narrows());
    assert_eq!(
        f.candidates(),
        Candidates::Dead {
            destination: Some("bill ing".into()),
            since: Some(UnixSeconds(5)),
            until: Some(UnixSeconds(5)),
        }
    );
}

#[test]
fn a_pages_answers_sum_per_destination() {
    let mut total = Requeued::default();
    let skipped = |rows| Skipped {
        destination: "gone".into(),
        rows,
        reason: SKIPPED_REMOVED.into(),
    };
    total.add(Requeued {
        requeued: 3,
        matched: vec![dead("billing", 3)],
        skipped: vec![skipped(1)],
    });
    total.add(Requeued {
        requeued: 2,
        matched: vec![dead("analytics", 1), dead("billing", 1)],
        skipped: vec![skipped(2)],
    });
    assert_eq!(
        total,
        Requeued {
            requeued: 5,
            matched: vec![dead("analytics", 1), dead("billing", 4)],
            skipped: vec![skipped(3)],
        }
    );
}

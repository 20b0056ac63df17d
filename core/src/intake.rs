//! What a source's feed object writes, as commands: for a batch of notes, the feed's rows
//! ([`crate::feed::admit_batch`]), `/metrics`' counters ([`crate::metrics::counts`]) and
//! the inspector's per-minute tallies ([`crate::activity::tally`]), in that order, all in
//! one transaction; for an entity object's report, its outbox rows.
//! The object runs each [`IntakeWrite`] as one statement.

use crate::activity::{self, Tally};
use crate::feed::{self, FeedPolicy, FeedState, FeedWrite, Note};
use crate::metrics::{self, Count, OutboxSnapshot};
use crate::time::UnixSeconds;

/// One statement of a feed object's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntakeWrite {
    /// A write to the feed or its dead letters.
    Feed(FeedWrite),
    /// An addition to a counter.
    Count(Count),
    /// Add to a minute's tally of an outcome.
    Tally(Tally),
    /// Forget the tallies of minutes before this one (the hour's first).
    ForgetMinutes {
        /// The oldest minute kept.
        before: i64,
    },
    /// Keep what an entity object counted of its outbox rows (replacing its last report).
    KeepOutbox {
        /// The entity object's name.
        object: String,
        /// What it counted.
        snapshot: OutboxSnapshot,
    },
    /// Forget an entity object's outbox report: it holds no pending row and no dead letter,
    /// so a source's objects that are done cost the feed nothing.
    ForgetOutbox {
        /// The entity object's name.
        object: String,
    },
}

/// The writes for a batch of `notes`, given what the feed holds, at `now`.
#[must_use]
pub fn batch(
    notes: &[Note],
    state: &FeedState,
    policy: FeedPolicy,
    now: UnixSeconds,
) -> Vec<IntakeWrite> {
    let feed = feed::admit_batch(notes, state, policy, now);
    let counts = metrics::counts(notes);
    let tallies = activity::tally(notes, now);
    let mut out = Vec::with_capacity(feed.len() + counts.len() + tallies.len() + 1);
    out.extend(feed.into_iter().map(IntakeWrite::Feed));
    out.extend(counts.into_iter().map(IntakeWrite::Count));
    out.extend(tallies.into_iter().map(IntakeWrite::Tally));
    out.push(IntakeWrite::ForgetMinutes {
        before: activity::first_minute(now),
    });
    out
}

/// The write for `object`'s report of its outbox rows.
#[must_use]
pub fn report(object: &str, snapshot: OutboxSnapshot) -> IntakeWrite {
    let object = object.to_owned();
    match snapshot.pending == 0 && snapshot.dead == 0 {
        true => IntakeWrite::ForgetOutbox { object },
        false => IntakeWrite::KeepOutbox { object, snapshot },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feed::{FeedOutcome, RejectWindow};

    fn delivery(id: &str, outcome: FeedOutcome) -> Note {
        Note::Delivery {
            event_id: id.into(),
            event_type: "t".into(),
            entity: Some("e".into()),
            outcome,
            rows_written: 1,
            received_at: 100,
        }
    }

    #[test]
    fn a_batch_writes_the_feeds_rows_then_the_counters_and_minutes_they_add_to() {
        let notes = [
            delivery("a", FeedOutcome::Applied),
            delivery("b", FeedOutcome::Duplicate),
            delivery("c", FeedOutcome::Applied),
        ];
        let state = FeedState {
            last_seq: 0,
            window: RejectWindow::default(),
        };
        let policy = FeedPolicy::default();
        let now = UnixSeconds(100);
        let writes = batch(&notes, &state, policy, now);
        let feed: Vec<_> = feed::admit_batch(&notes, &state, policy, now)
            .into_iter()
            .map(IntakeWrite::Feed)
            .collect();
        assert_eq!(writes[..feed.len()], feed[..]);
        let rest = &writes[feed.len()..];
        let minute = activity::minute_of(100);
        let tally = |outcome, count| {
            IntakeWrite::Tally(Tally {
                minute,
                outcome,
                count,
            })
        };
        let count = |label: &str, by| {
            IntakeWrite::Count(Count {
                family: metrics::DELIVERIES.into(),
                label: label.into(),
                by,
            })
        };
        assert_eq!(
            rest,
            [
                count("applied", 2),
                count("duplicate", 1),
                tally(FeedOutcome::Applied, 2),
                tally(FeedOutcome::Duplicate, 1),
                IntakeWrite::ForgetMinutes {
                    before: activity::first_minute(now)
                },
            ]
        );
    }

    #[test]
    fn an_object_with_nothing_pending_and_no_dead_letter_is_forgotten() {
        let idle = OutboxSnapshot::default();
        assert_eq!(
            report("s/e/a", idle),
            IntakeWrite::ForgetOutbox {
                object: "s/e/a".into()
            }
        );
        for snapshot in [
            OutboxSnapshot {
                pending: 1,
                oldest_pending_at: Some(5),
                dead: 0,
            },
            OutboxSnapshot { dead: 2, ..idle },
        ] {
            assert_eq!(
                report("s/e/a", snapshot),
                IntakeWrite::KeepOutbox {
                    object: "s/e/a".into(),
                    snapshot
                }
            );
        }
    }
}

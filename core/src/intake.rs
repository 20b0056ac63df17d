//! What a source's feed object writes, as commands: for a batch of notes, the feed's rows
//! ([`crate::feed::admit_batch`]), `/metrics`' counters ([`crate::metrics::counts`]) and
//! the inspector's per-minute tallies ([`crate::activity::tally`]), in that order, all in
//! one transaction; for an entity object's report, its outbox rows.
//! The object runs each [`IntakeWrite`] as one statement.

use crate::activity::{self, Tally};
use crate::feed::{self, FeedPolicy, FeedState, FeedWrite, Note};
use crate::metrics::{self, Count, DestinationRows, OutboxSnapshot};
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
    /// Keep what an entity object counted of one destination's outbox rows.
    KeepOutbox {
        /// The entity object's name.
        object: String,
        /// What it counted.
        rows: DestinationRows,
    },
    /// Forget an entity object's last outbox report, before its new one is kept: a
    /// destination with no pending row and no dead letter is not kept, so a source's
    /// objects that are done cost the feed nothing.
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

/// The writes, in one transaction, for `object`'s report of its outbox rows: forget its
/// last report, then keep each destination that has a row pending or dead.
#[must_use]
pub fn report(object: &str, snapshot: OutboxSnapshot) -> Vec<IntakeWrite> {
    let forget = IntakeWrite::ForgetOutbox {
        object: object.to_owned(),
    };
    let keep = snapshot
        .destinations
        .into_iter()
        .filter(|d| d.pending > 0 || d.dead > 0)
        .map(|rows| IntakeWrite::KeepOutbox {
            object: object.to_owned(),
            rows,
        });
    std::iter::once(forget).chain(keep).collect()
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
    fn an_objects_report_replaces_its_last_and_keeps_only_destinations_with_rows() {
        let forget = IntakeWrite::ForgetOutbox {
            object: "s/e/a".into(),
        };
        assert_eq!(
            report("s/e/a", OutboxSnapshot::default()),
            std::slice::from_ref(&forget)
        );
        let rows = |destination: &str, pending, dead| DestinationRows {
            destination: destination.into(),
            pending,
            oldest_pending_at: (pending > 0).then_some(5),
            dead,
        };
        let snapshot = OutboxSnapshot {
            destinations: vec![rows("a", 1, 0), rows("b", 0, 0), rows("c", 0, 2)],
        };
        let keep = |rows| IntakeWrite::KeepOutbox {
            object: "s/e/a".into(),
            rows,
        };
        assert_eq!(
            report("s/e/a", snapshot),
            [forget, keep(rows("a", 1, 0)), keep(rows("c", 0, 2))]
        );
    }
}

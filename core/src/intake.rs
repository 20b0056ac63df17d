//! What a source's feed object writes, as commands: for a batch of notes, the feed's rows
//! ([`crate::feed::admit_batch`]) and `/metrics`' counters ([`crate::metrics::counts`]),
//! in that order, all in one transaction; for an entity object's report, its outbox rows.
//! The object runs each [`IntakeWrite`] as one statement.

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
    let mut out = Vec::with_capacity(feed.len() + counts.len());
    out.extend(feed.into_iter().map(IntakeWrite::Feed));
    out.extend(counts.into_iter().map(IntakeWrite::Count));
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
    fn a_batch_writes_the_feeds_rows_and_then_the_counters_they_add_to() {
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
        let counts: Vec<(&str, u64)> = writes[feed.len()..]
            .iter()
            .map(|w| match w {
                IntakeWrite::Count(c) => (c.label.as_str(), c.by),
                other => panic!("counters after the feed's rows, not {other:?}"),
            })
            .collect();
        assert_eq!(counts, [("applied", 2), ("duplicate", 1)]);
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

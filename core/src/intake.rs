//! What a source's feed object writes, as commands: for a batch of notes, the feed's rows
//! ([`crate::feed::admit_batch`]), `/metrics`' counters ([`crate::metrics::counts`]) and
//! the inspector's per-minute tallies ([`crate::activity::tally`]), in that order, all in
//! one transaction; for an entity object's report, its outbox rows.
//! The object runs each [`IntakeWrite`] as one statement.

use crate::activity::{self, Tally};
use crate::feed::{self, FeedPolicy, FeedState, FeedWrite, Note};
use crate::metrics::{self, Count, DestinationRows, OutboxSnapshot};
use crate::time::{Seconds, UnixSeconds};

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
    /// Keep, for each entity, the latest time an event about it was noted (the registry a
    /// source-wide backfill pages through: `sweep::Candidates::Recorded`).
    Seen(Vec<SeenEntity>),
    /// Forget the entities last noted before this instant: their bodies are no longer
    /// kept, so a backfill has nothing of theirs to send.
    ForgetEntities {
        /// The oldest time kept.
        before: UnixSeconds,
    },
}

/// An entity of the registry, and when an event about it was last noted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenEntity {
    /// The entity's key.
    pub entity: String,
    /// Unix seconds.
    pub at: i64,
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

/// The registry's writes for a batch of `notes`, at `now`, of a source whose bodies are
/// kept `bodies` (`None`: not kept): each entity with the latest time an event about it
/// was delivered, then the entities last seen before the oldest body that may be kept.
/// With no bodies kept there is nothing to backfill, and the registry forgets everything.
#[must_use]
pub fn remember(notes: &[Note], bodies: Option<Seconds>, now: UnixSeconds) -> Vec<IntakeWrite> {
    let mut seen: Vec<SeenEntity> = Vec::new();
    let Some(keep) = bodies else {
        return vec![IntakeWrite::ForgetEntities {
            before: UnixSeconds(i64::MAX),
        }];
    };
    for note in notes {
        let Note::Delivery {
            entity: Some(entity),
            received_at,
            ..
        } = note
        else {
            continue;
        };
        match seen.iter_mut().find(|s| s.entity == *entity) {
            Some(s) => s.at = s.at.max(*received_at),
            None => seen.push(SeenEntity {
                entity: entity.clone(),
                at: *received_at,
            }),
        }
    }
    let forget = IntakeWrite::ForgetEntities {
        before: now.minus(keep),
    };
    match seen.is_empty() {
        true => vec![forget],
        false => vec![IntakeWrite::Seen(seen), forget],
    }
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
    fn the_registry_keeps_each_entitys_latest_delivery_and_forgets_those_past_the_bodies() {
        let at = |id: &str, entity: Option<&str>, received_at| Note::Delivery {
            event_id: id.into(),
            event_type: "t".into(),
            entity: entity.map(Into::into),
            outcome: FeedOutcome::Applied,
            rows_written: 1,
            received_at,
        };
        let notes = [
            at("a", Some("e1"), 90),
            at("b", None, 95),
            at("c", Some("e2"), 80),
            at("d", Some("e1"), 70),
            Note::Attempts {
                result: "ok".into(),
                count: 1,
            },
        ];
        let seen = |entity: &str, at| SeenEntity {
            entity: entity.into(),
            at,
        };
        let now = UnixSeconds(1_000);
        assert_eq!(
            remember(&notes, Some(Seconds(100)), now),
            [
                IntakeWrite::Seen(vec![seen("e1", 90), seen("e2", 80)]),
                IntakeWrite::ForgetEntities {
                    before: UnixSeconds(900)
                },
            ]
        );
        assert_eq!(
            remember(&notes[4..], Some(Seconds(100)), now),
            [IntakeWrite::ForgetEntities {
                before: UnixSeconds(900)
            }]
        );
        assert_eq!(
            remember(&notes, None, now),
            [IntakeWrite::ForgetEntities {
                before: UnixSeconds(i64::MAX)
            }]
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

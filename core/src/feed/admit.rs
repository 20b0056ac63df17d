//! Which rows the feed store writes and prunes for a note ([`admit`], [`admit_batch`]), and
//! how rejected requests are sampled ([`RejectWindow`]).

use super::note::{DeadLetter, FeedOutcome, FeedRow, Note};
use super::policy::{FeedPolicy, MAX_REASON, PRUNE_EVERY};
use crate::time::UnixSeconds;

/// What the feed store holds that bears on a note: its newest row and this minute's
/// rejected-request window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeedState {
    /// The newest row's `seq` (0 when empty).
    pub last_seq: i64,
    /// The rejected-request window.
    pub window: RejectWindow,
}

/// Rejected requests in the current minute: how many were recorded, and how many were
/// not recorded, ever.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RejectWindow {
    /// The minute (unix seconds / 60) the count is for.
    pub minute: i64,
    /// Rejected rows recorded in that minute.
    pub recorded: u32,
    /// Rejected requests counted and not stored, since the feed began.
    pub suppressed: u64,
}

impl RejectWindow {
    /// Whether one more rejected request at `now` may be recorded under `per_minute`,
    /// and the window after it. Used by the feed store (authoritative) and by each Worker
    /// isolate (so a flood does not even cost requests to the store).
    pub fn admit(self, now: UnixSeconds, per_minute: u32, skipped: u32) -> (bool, RejectWindow) {
        let minute = now.0.div_euclid(60);
        let recorded = if minute == self.minute {
            self.recorded
        } else {
            0
        };
        let suppressed = self.suppressed + u64::from(skipped);
        if recorded < per_minute {
            let w = RejectWindow {
                minute,
                recorded: recorded + 1,
                suppressed,
            };
            (true, w)
        } else {
            let w = RejectWindow {
                minute,
                recorded,
                suppressed: suppressed + 1,
            };
            (false, w)
        }
    }
}

/// One statement the feed store runs.
#[derive(Clone, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum FeedWrite {
    /// Append these rows, in order: one statement for a run of deliveries, since a
    /// statement per row costs the feed object most of its time under load.
    Append(Vec<FeedRow>),
    /// Store the rejected-request window.
    Window(RejectWindow),
    /// Delete rows with `seq <= through`, then, from the oldest left, the rows received
    /// before `before` up to the first that was not. Rows arrive nearly in time order, so
    /// this reads only the rows it deletes; an old row behind a newer one goes at a later
    /// prune, seconds later.
    Prune {
        /// The newest `seq` that no longer fits in `keep`.
        through: i64,
        /// The age cutoff, if any.
        before: Option<UnixSeconds>,
    },
    /// Keep the `keep` newest dead letters only.
    PruneDead {
        /// How many to keep.
        keep: u32,
    },
    /// Record (or refresh) a dead letter, keyed by (entity, event id).
    Dead(DeadLetter),
    /// Forget an entity's dead letters (they were requeued).
    Requeued {
        /// The entity.
        entity: String,
        /// Only this destination's; `None`: all of them.
        destination: Option<String>,
        /// Only these events'; empty: all of them.
        events: Vec<String>,
    },
}

/// Cuts `s` to at most `max` bytes, on a character boundary.
fn cut(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// What the feed store writes for `note`, given what it holds and `now`.
pub fn admit(
    note: &Note,
    state: &FeedState,
    policy: FeedPolicy,
    now: UnixSeconds,
) -> Vec<FeedWrite> {
    let seq = state.last_seq + 1;
    let mut writes = Vec::new();
    match note {
        Note::Delivery {
            event_id,
            event_type,
            entity,
            outcome,
            rows_written,
            received_at,
        } => writes.push(FeedWrite::Append(vec![FeedRow {
            seq,
            received_at: *received_at,
            outcome: *outcome,
            event_id: Some(event_id.clone()),
            event_type: Some(event_type.clone()),
            entity: entity.clone(),
            rows_written: *rows_written,
            status: None,
            reason: None,
        }])),
        Note::Rejected {
            status,
            reason,
            received_at,
            skipped,
        } => {
            let (record, window) = state.window.admit(
                UnixSeconds(*received_at),
                policy.rejected_per_minute,
                *skipped,
            );
            writes.push(FeedWrite::Window(window));
            if !record {
                return writes;
            }
            writes.push(FeedWrite::Append(vec![FeedRow {
                seq,
                received_at: *received_at,
                outcome: FeedOutcome::Rejected,
                event_id: None,
                event_type: None,
                entity: None,
                rows_written: 0,
                status: Some(*status),
                reason: Some(cut(reason, MAX_REASON)),
            }]));
        }
        Note::Dead(d) => {
            let kept = DeadLetter {
                last_result: cut(&d.last_result, MAX_REASON),
                ..d.clone()
            };
            return vec![
                FeedWrite::Dead(kept),
                FeedWrite::PruneDead { keep: policy.keep },
            ];
        }
        Note::Requeued {
            entity,
            destination,
            events,
        } => {
            return vec![FeedWrite::Requeued {
                entity: entity.clone(),
                destination: destination.clone(),
                events: events.clone(),
            }]
        }
        Note::Attempts { .. } | Note::Superseded { .. } => return Vec::new(),
    }
    if seq % PRUNE_EVERY == 0 {
        writes.push(FeedWrite::Prune {
            through: seq - i64::from(policy.keep),
            before: policy.max_age.map(|age| now.minus(age)),
        });
    }
    writes
}

/// What the feed store writes for `notes`: the store ends up as it would one note at a
/// time, each note seeing the sequence number and rejected-request window the ones before
/// it left. Rows appended back to back are one [`FeedWrite::Append`], and the batch prunes
/// once, where its last prune falls: each prune deletes every row an earlier one would
/// (its `through` is larger, its age bound the same, and what it deletes is a prefix of
/// the rows by `seq`). A batch of 500 notes prunes once, where one note at a time
/// would prune 15 times.
pub fn admit_batch(
    notes: &[Note],
    state: &FeedState,
    policy: FeedPolicy,
    now: UnixSeconds,
) -> Vec<FeedWrite> {
    let mut state = *state;
    let mut writes: Vec<FeedWrite> = Vec::new();
    for note in notes {
        for w in admit(note, &state, policy, now) {
            match &w {
                FeedWrite::Append(rows) => {
                    state.last_seq = rows.last().map_or(state.last_seq, |r| r.seq);
                }
                FeedWrite::Window(window) => state.window = *window,
                FeedWrite::Prune { .. }
                | FeedWrite::PruneDead { .. }
                | FeedWrite::Dead(_)
                | FeedWrite::Requeued { .. } => {}
            }
            writes.push(w);
        }
    }
    let last_prune = writes
        .iter()
        .rposition(|w| matches!(w, FeedWrite::Prune { .. }));
    let mut out: Vec<FeedWrite> = Vec::with_capacity(writes.len());
    for (i, w) in writes.into_iter().enumerate() {
        match w {
            FeedWrite::Prune { .. } if Some(i) != last_prune => {}
            FeedWrite::Append(rows) => match out.last_mut() {
                Some(FeedWrite::Append(run)) => run.extend(rows),
                _ => out.push(FeedWrite::Append(rows)),
            },
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::feed::policy::{DEFAULT_KEEP, DEFAULT_MAX_AGE};

    pub(crate) const NOW: UnixSeconds = UnixSeconds(1_791_244_800);

    pub(crate) fn delivery(n: u32) -> Note {
        Note::Delivery {
            event_id: format!("evt_{n}"),
            event_type: "t".into(),
            entity: Some("ch_1".into()),
            outcome: FeedOutcome::Applied,
            rows_written: 3,
            received_at: NOW.0,
        }
    }

    fn old_delivery(n: u32) -> Note {
        let mut note = delivery(n);
        if let Note::Delivery { received_at, .. } = &mut note {
            *received_at = NOW.minus(DEFAULT_MAX_AGE).0 - 1;
        }
        note
    }

    pub(crate) fn rejected(at: i64) -> Note {
        Note::Rejected {
            status: 401,
            reason: "no signature matches".into(),
            received_at: at,
            skipped: 0,
        }
    }

    fn apply(rows: &mut Vec<FeedRow>, w: &FeedWrite) {
        match w {
            FeedWrite::Append(appended) => rows.extend(appended.iter().cloned()),
            FeedWrite::Prune { through, before } => {
                rows.retain(|r| r.seq > *through);
                let old = |r: &FeedRow| before.is_some_and(|b| r.received_at < b.0);
                let first_kept = rows.iter().position(|r| !old(r)).unwrap_or(rows.len());
                rows.drain(..first_kept);
            }
            _ => {}
        }
    }

    fn run_from(
        notes: &[Note],
        start: FeedState,
        policy: FeedPolicy,
    ) -> (Vec<FeedRow>, FeedState, Vec<FeedWrite>) {
        let mut rows: Vec<FeedRow> = Vec::new();
        let mut state = start;
        let mut writes = Vec::new();
        for note in notes {
            for w in admit(note, &state, policy, NOW) {
                apply(&mut rows, &w);
                match &w {
                    FeedWrite::Append(appended) => {
                        state.last_seq = appended.last().map_or(state.last_seq, |r| r.seq)
                    }
                    FeedWrite::Window(win) => state.window = *win,
                    _ => {}
                }
                writes.push(w);
            }
        }
        (rows, state, writes)
    }

    fn run(notes: &[Note], policy: FeedPolicy) -> (Vec<FeedRow>, FeedState) {
        let (rows, state, _) = run_from(notes, FeedState::default(), policy);
        (rows, state)
    }

    #[test]
    fn a_batch_leaves_the_feed_as_its_notes_one_at_a_time_would() {
        let policy = FeedPolicy {
            keep: 20,
            rejected_per_minute: 3,
            ..FeedPolicy::default()
        };
        // Deliveries and rejections, enough of both to cross several prunes and the sample
        // limit; some received before the age cutoff.
        let notes: Vec<Note> = (0..300)
            .map(|n| match n % 4 {
                0 => rejected(NOW.0),
                1 if n < 40 => old_delivery(n),
                _ => delivery(n),
            })
            .collect();
        let start = FeedState {
            last_seq: 7,
            ..FeedState::default()
        };
        let (rows, state, one_at_a_time) = run_from(&notes, start, policy);
        let batch = admit_batch(&notes, &start, policy, NOW);
        let mut batch_rows = Vec::new();
        for w in &batch {
            apply(&mut batch_rows, w);
        }
        assert_eq!(batch_rows, rows);
        let window = batch.iter().rev().find_map(|w| match w {
            FeedWrite::Window(win) => Some(*win),
            _ => None,
        });
        assert_eq!(window, Some(state.window));
        let prunes = |ws: &[FeedWrite]| {
            ws.iter()
                .filter(|w| matches!(w, FeedWrite::Prune { .. }))
                .count()
        };
        assert!(prunes(&one_at_a_time) > 1, "the notes cross several prunes");
        assert_eq!(prunes(&batch), 1);
        let apart = batch
            .windows(2)
            .all(|p| !matches!(p, [FeedWrite::Append(_), FeedWrite::Append(_)]));
        assert!(apart, "rows appended back to back are one write");
        // 225 deliveries, and 3 of the 75 rejections (one minute's sample).
        let inserted: usize = batch
            .iter()
            .map(|w| match w {
                FeedWrite::Append(rows) => rows.len(),
                _ => 0,
            })
            .sum();
        assert_eq!(inserted, 225 + 3);
    }

    #[test]
    fn a_batch_appends_its_rows_around_one_prune() {
        let notes: Vec<Note> = (1..=100).map(delivery).collect();
        let w = admit_batch(&notes, &FeedState::default(), FeedPolicy::default(), NOW);
        let shape: Vec<String> = w
            .iter()
            .map(|w| match w {
                FeedWrite::Append(rows) => format!("{}..{}", rows[0].seq, rows[rows.len() - 1].seq),
                FeedWrite::Prune { through, .. } => format!("prune through {through}"),
                other => format!("{other:?}"),
            })
            .collect();
        let through = 96 - i64::from(DEFAULT_KEEP);
        assert_eq!(
            shape,
            ["1..96", &format!("prune through {through}"), "97..100"]
        );
    }

    #[test]
    fn a_delivery_becomes_one_row_with_what_it_came_to() {
        let w = admit(
            &delivery(1),
            &FeedState::default(),
            FeedPolicy::default(),
            NOW,
        );
        assert_eq!(w.len(), 1);
        let [FeedWrite::Append(rows)] = &w[..] else {
            panic!("{w:?}")
        };
        let [row] = &rows[..] else { panic!("{rows:?}") };
        assert_eq!(row.seq, 1);
        assert_eq!(row.event_id.as_deref(), Some("evt_1"));
        assert_eq!(row.outcome, FeedOutcome::Applied);
        assert_eq!(row.rows_written, 3);
    }

    #[test]
    fn the_feed_keeps_at_most_keep_rows_plus_one_prune_interval() {
        let policy = FeedPolicy {
            keep: 50,
            ..FeedPolicy::default()
        };
        let notes: Vec<Note> = (0..1_000).map(delivery).collect();
        let (rows, _) = run(&notes, policy);
        assert!(rows.len() <= 50 + PRUNE_EVERY as usize, "{}", rows.len());
        assert!(rows.len() >= 50);
        assert_eq!(rows.last().unwrap().event_id.as_deref(), Some("evt_999"));
    }

    #[test]
    fn old_rows_are_pruned_by_age() {
        let w = admit(
            &delivery(1),
            &FeedState {
                last_seq: PRUNE_EVERY - 1,
                ..FeedState::default()
            },
            FeedPolicy::default(),
            NOW,
        );
        assert!(w.contains(&FeedWrite::Prune {
            through: PRUNE_EVERY - i64::from(DEFAULT_KEEP),
            before: Some(NOW.minus(DEFAULT_MAX_AGE)),
        }));
    }

    #[test]
    fn a_flood_of_rejected_requests_records_a_few_per_minute_and_counts_the_rest() {
        let policy = FeedPolicy::default();
        let notes: Vec<Note> = (0..10_000).map(|i| rejected(NOW.0 + i / 100)).collect();
        let (rows, state) = run(&notes, policy);
        // 10,000 requests over 100 s: two minutes, 10 rows each at most.
        assert!(rows.len() <= 20 + 10, "{}", rows.len());
        assert_eq!(rows.len() as u64 + state.window.suppressed, 10_000);
        assert!(rows.iter().all(|r| r.outcome == FeedOutcome::Rejected));
        // A delivery still gets in.
        let (rows, _) = run(&[notes, vec![delivery(1)]].concat(), policy);
        assert_eq!(rows.last().unwrap().outcome, FeedOutcome::Applied);
    }

    #[test]
    fn a_senders_skipped_requests_are_counted_and_a_reason_is_cut() {
        let note = Note::Rejected {
            status: 400,
            reason: "é".repeat(300),
            received_at: NOW.0,
            skipped: 7,
        };
        let (rows, state) = run(&[note], FeedPolicy::default());
        assert_eq!(state.window.suppressed, 7);
        assert!(rows[0].reason.as_ref().unwrap().len() <= MAX_REASON);
        let none = FeedPolicy {
            rejected_per_minute: 0,
            ..FeedPolicy::default()
        };
        assert!(run(&[rejected(NOW.0)], none).0.is_empty());
    }

    #[test]
    fn dead_letters_are_kept_by_entity_and_forgotten_when_requeued() {
        let dead = Note::Dead(DeadLetter {
            entity: None,
            event_id: "evt_1".into(),
            destination: "default".into(),
            attempts: 3,
            last_result: "x".repeat(500),
            at: NOW.0,
        });
        let w = admit(&dead, &FeedState::default(), FeedPolicy::default(), NOW);
        assert!(matches!(&w[0], FeedWrite::Dead(d) if d.last_result.len() == MAX_REASON));
        assert_eq!(w[1], FeedWrite::PruneDead { keep: DEFAULT_KEEP });
        let requeued = Note::Requeued {
            entity: "ch_1".into(),
            destination: Some("billing".into()),
            events: vec!["evt_1".into()],
        };
        assert_eq!(
            admit(&requeued, &FeedState::default(), FeedPolicy::default(), NOW),
            vec![FeedWrite::Requeued {
                entity: "ch_1".into(),
                destination: Some("billing".into()),
                events: vec!["evt_1".into()],
            }]
        );
    }
}

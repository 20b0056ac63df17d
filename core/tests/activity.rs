//! Property: a feed object that carries out `intake::batch`'s tallies and forgets, batch
//! after batch as time goes on, holds at most 60 minutes × 4 outcomes of rows whatever
//! it is sent, and its chart counts exactly the hour's notes, each in its own minute (or
//! the batch's, for a note stamped after it arrived), as an independent count of the notes
//! says.

use std::collections::BTreeMap;

use hookonce_core::activity::{self, Tally, MINUTES, OUTCOMES};
use hookonce_core::feed::{FeedOutcome, FeedPolicy, FeedState, Note};
use hookonce_core::intake::{self, IntakeWrite};
use hookonce_core::time::UnixSeconds;
use proptest::prelude::*;

const START: i64 = 1_791_270_000;

/// One batch: seconds since the last one, then its notes as (outcome index, seconds
/// before the batch's now: negative for a clock ahead, skipped rejected requests).
type Batch = (i64, Vec<(usize, i64, u32)>);

fn note((kind, before, skipped): (usize, i64, u32), now: i64) -> Note {
    let received_at = now - before;
    match OUTCOMES[kind] {
        FeedOutcome::Rejected => Note::Rejected {
            status: 401,
            reason: "signature".into(),
            received_at,
            skipped,
        },
        outcome => Note::Delivery {
            event_id: "e".into(),
            event_type: "t".into(),
            entity: None,
            outcome,
            rows_written: 1,
            received_at,
        },
    }
}

fn batches() -> impl Strategy<Value = Vec<Batch>> {
    let one = (0usize..4, -600i64..7_200, 0u32..3);
    prop::collection::vec((0i64..900, prop::collection::vec(one, 0..40)), 1..80)
}

proptest! {
    #[test]
    fn the_tallies_stay_bounded_and_the_chart_counts_the_hours_notes(batches in batches()) {
        let mut rows: BTreeMap<(i64, usize), u64> = BTreeMap::new();
        // The oracle: every note's (minute it counts in, outcome, count), from the notes.
        let mut sent: Vec<(i64, usize, u64)> = Vec::new();
        let state = FeedState { last_seq: 0, window: Default::default() };
        let mut now = START;
        for (wait, notes) in &batches {
            now += wait;
            for &(kind, before, skipped) in notes {
                let minute = (now - before).div_euclid(60).min(now.div_euclid(60));
                let rejected = OUTCOMES[kind] == FeedOutcome::Rejected;
                let count = 1 + if rejected { u64::from(skipped) } else { 0 };
                sent.push((minute, kind, count));
            }
            let notes: Vec<Note> = notes.iter().map(|n| note(*n, now)).collect();
            for w in intake::batch(&notes, &state, FeedPolicy::default(), UnixSeconds(now)) {
                match w {
                    IntakeWrite::Tally(t) => {
                        let kind = OUTCOMES.iter().position(|o| *o == t.outcome).unwrap();
                        *rows.entry((t.minute, kind)).or_default() += t.count;
                    }
                    IntakeWrite::ForgetMinutes { before } => rows.retain(|(m, _), _| *m >= before),
                    IntakeWrite::Feed(_) | IntakeWrite::Count(_) | IntakeWrite::KeepOutbox { .. }
                    | IntakeWrite::ForgetOutbox { .. } | IntakeWrite::Seen(_)
                    | IntakeWrite::ForgetEntities { .. } => {}
                }
            }
            prop_assert!(rows.len() <= (MINUTES as usize) * 4, "{} rows", rows.len());
        }
        let tallies: Vec<Tally> = rows
            .iter()
            .map(|(&(minute, kind), &count)| Tally { minute, outcome: OUTCOMES[kind], count })
            .collect();
        let chart = activity::chart(&tallies, UnixSeconds(now));
        let first = now.div_euclid(60) - (MINUTES - 1);
        let mut expected = vec![[0u64; 4]; MINUTES as usize];
        for (minute, kind, count) in sent {
            if minute >= first {
                expected[(minute - first) as usize][kind] += count;
            }
        }
        prop_assert_eq!(chart.counts, expected);
    }
}

//! Property: deciding without reading the event's own row (`decide_unread`, its first
//! write guarded) answers and writes exactly what reading it first does, whatever the
//! order, the duplicates, the processed ids a retention pass forgot, and the restarts
//! that make an object forget the version it kept.

mod common;

use common::model::Model;
use common::*;
use hookonce_core::decide::Plan;
use hookonce_core::event::Version;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    /// A provider (re)sends event `i`.
    Deliver(usize),
    /// A retention pass forgets every processed id; the state stays.
    Forget,
    /// The object restarts: it no longer knows its version without a read.
    Restart,
}

#[derive(Clone, Debug)]
enum Kind {
    Snapshot,
    Payment,
    Notify,
}

fn scenario() -> impl Strategy<Value = (Vec<(i64, Kind)>, Vec<Step>, bool)> {
    let kind = prop_oneof![
        3 => Just(Kind::Snapshot),
        1 => Just(Kind::Payment),
        1 => Just(Kind::Notify)
    ];
    // Few distinct times, so ties and stale events are common.
    prop::collection::vec((0i64..5, kind), 1..10).prop_flat_map(|spec| {
        let n = spec.len();
        let step = prop_oneof![
            8 => (0..n).prop_map(Step::Deliver),
            1 => Just(Step::Forget),
            1 => Just(Step::Restart),
        ];
        (
            Just(spec),
            prop::collection::vec(step, 1..40),
            any::<bool>(),
        )
    })
}

fn build(spec: &[(i64, Kind)]) -> Vec<Signed> {
    spec.iter()
        .enumerate()
        .map(|(i, (secs, kind))| {
            let id = format!("evt_{i:02}");
            event(&match kind {
                Kind::Snapshot => snapshot(&id, "card_1", *secs, &format!("s{i}")),
                Kind::Payment => payment(&id, "card_1", *secs, 100 + i as i64),
                Kind::Notify => {
                    let mut body = snapshot(&id, "card_1", *secs, "n");
                    body["type"] = "card.notified".into();
                    body
                }
            })
        })
        .collect()
}

proptest! {
    #[test]
    fn deciding_without_reading_the_id_matches_reading_it((spec, steps, forward) in scenario()) {
        let events = build(&spec);
        let plan = Plan::Apply { forward };
        let (mut read, mut unread) = (Model::default(), Model::default());
        // A new object knows it has no snapshot.
        let mut known: Option<Option<Version>> = Some(None);
        for step in &steps {
            match step {
                Step::Deliver(i) => {
                    let e = &events[*i];
                    let want = read.run(e, plan, NOW);
                    let got = unread.run_unread(e, plan, NOW, &mut known);
                    prop_assert_eq!(got, want, "{}", e.id());
                    prop_assert_eq!(&unread, &read);
                }
                Step::Forget => {
                    read.records.clear();
                    unread.records.clear();
                }
                Step::Restart => known = None,
            }
        }
    }
}

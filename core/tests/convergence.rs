//! Property: whatever the network does to deliveries (duplicates, replays, any order,
//! a cleared processed-ids table), the store ends where applying each distinct event
//! once, in version order, would leave it.

mod common;

use std::collections::HashMap;

use common::model::Model;
use common::*;
use hookonce_core::decide::Plan;
use hookonce_core::event::EntityKey;
use proptest::prelude::*;

const ASYNC: Plan = Plan::Apply { forward: true };

/// Every entity's store, each the model of one Durable Object.
#[derive(Default)]
struct Store(HashMap<EntityKey, Model>);

impl Store {
    /// Reads, decides and writes as one unit; returns the rows written.
    fn deliver(&mut self, e: &Signed) -> usize {
        let entity = e.entity().expect("generated events have entities").clone();
        self.0.entry(entity).or_default().run(e, ASYNC, NOW).rows
    }

    fn states(&self) -> HashMap<&EntityKey, Option<&String>> {
        self.0
            .iter()
            .map(|(k, m)| (k, m.snapshot.as_ref().map(|(s, _)| s)))
            .collect()
    }

    fn total(&self, entity: &EntityKey) -> i64 {
        self.0.get(entity).map_or(0, Model::total)
    }

    fn records(&self) -> usize {
        self.0.values().map(|m| m.records.len()).sum()
    }

    fn clear_records(&mut self) {
        self.0.values_mut().for_each(|m| m.records.clear());
    }
}

#[derive(Clone, Debug)]
enum Kind {
    Snapshot(u8),
    Payment(i64),
}

fn events() -> impl Strategy<Value = Vec<(u8, i64, Kind)>> {
    let kind = prop_oneof![
        (0u8..4).prop_map(Kind::Snapshot),
        (-1_000i64..1_000).prop_map(Kind::Payment)
    ];
    // Few entities and few distinct times, so collisions and ties are common.
    prop::collection::vec((0u8..3, 0i64..6, kind), 1..16)
}

fn build(spec: &[(u8, i64, Kind)]) -> Vec<Signed> {
    spec.iter()
        .enumerate()
        .map(|(i, (card, secs, kind))| {
            let id = format!("evt_{i:03}");
            let card = format!("card_{card}");
            match kind {
                Kind::Snapshot(s) => event(&snapshot(&id, &card, *secs, &format!("s{s}"))),
                Kind::Payment(amount) => event(&payment(&id, &card, *secs, *amount)),
            }
        })
        .collect()
}

/// Applying each distinct event once, in version order.
fn reference(events: &[Signed]) -> Store {
    let mut sorted: Vec<&Signed> = events.iter().collect();
    sorted.sort_by_key(|e| (e.created_at(), e.id().clone()));
    let mut store = Store::default();
    for e in sorted {
        store.deliver(e);
    }
    store
}

/// Every event at least once, plus duplicates, in an arbitrary order.
fn deliveries(n: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..n, 0..2 * n).prop_flat_map(move |extra| {
        let mut all: Vec<usize> = (0..n).collect();
        all.extend(extra);
        Just(all).prop_shuffle()
    })
}

fn scenario() -> impl Strategy<Value = (Vec<(u8, i64, Kind)>, Vec<usize>, usize)> {
    events().prop_flat_map(|spec| {
        let n = spec.len();
        (Just(spec), deliveries(n), 0..3 * n)
    })
}

proptest! {
    #[test]
    fn any_delivery_order_converges_on_the_same_state((spec, order, _) in scenario()) {
        let events = build(&spec);
        let want = reference(&events);
        let mut got = Store::default();
        for &i in &order {
            got.deliver(&events[i]);
        }
        prop_assert_eq!(got.states(), want.states());
        for card in want.0.keys() {
            prop_assert_eq!(got.total(card), want.total(card));
        }
        // Every event was handled once: recorded, and never enqueued twice.
        prop_assert_eq!(got.records(), events.len());
        for model in got.0.values() {
            let mut enqueued: Vec<_> = model.outbox.iter().map(|r| r.event_id.clone()).collect();
            enqueued.sort();
            enqueued.dedup();
            prop_assert_eq!(enqueued.len(), model.outbox.len());
        }
    }

    #[test]
    fn a_duplicate_never_writes((spec, order, _) in scenario()) {
        let events = build(&spec);
        let mut store = Store::default();
        let mut seen = std::collections::HashSet::new();
        for &i in &order {
            let rows = store.deliver(&events[i]);
            if !seen.insert(i) {
                prop_assert_eq!(rows, 0, "duplicate of {} wrote rows", events[i].id());
            }
        }
    }

    #[test]
    fn a_cleared_ids_table_never_double_counts_the_ledger((spec, order, cut) in scenario()) {
        let events = build(&spec);
        let want = reference(&events);
        let mut got = Store::default();
        for (n, &i) in order.iter().enumerate() {
            if n == cut.min(order.len() - 1) {
                // A migration truncates processed_events; the state tables remain.
                got.clear_records();
            }
            got.deliver(&events[i]);
        }
        // Replay everything once more after the wipe, as a provider's dashboard might.
        got.clear_records();
        for e in &events {
            got.deliver(e);
        }
        for card in want.0.keys() {
            prop_assert_eq!(got.total(card), want.total(card));
        }
        prop_assert_eq!(got.states(), want.states());
    }
}

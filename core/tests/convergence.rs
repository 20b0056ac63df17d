//! Property: whatever the network does to deliveries (duplicates, replays, any order,
//! a cleared processed-ids table), the store ends where applying each distinct event
//! once, in version order, would leave it.

mod common;

use std::collections::{BTreeMap, HashMap};

use common::*;
use hookonce_core::decide::{decide, Decision, Outcome, Plan, Record, Stored};
use hookonce_core::event::{EntityKey, Event, EventId, Version};
use proptest::prelude::*;

/// A model of one entity store: the same tables the Durable Object keeps.
#[derive(Default)]
struct Store {
    records: HashMap<EventId, Record>,
    version: HashMap<EntityKey, Version>,
    state: HashMap<EntityKey, String>,
    ledger: HashMap<EntityKey, BTreeMap<EventId, i64>>,
    outbox: Vec<EventId>,
}

impl Store {
    /// Reads, decides and writes as one unit; returns the rows written.
    fn deliver(&mut self, e: &Event) -> usize {
        let entity = e.entity().expect("generated events have entities").clone();
        let stored = Stored {
            record: self.records.get(e.id()).copied(),
            version: self.version.get(&entity).cloned(),
            ledger_has_event: self
                .ledger
                .get(&entity)
                .is_some_and(|l| l.contains_key(e.id())),
        };
        match decide(e, &stored, Plan::Apply { forward: true }, NOW) {
            Decision::Apply(apply) => {
                let mut rows = 1;
                self.records
                    .insert(apply.event_id.clone(), Record::Done(Outcome::Applied));
                if let Some((state, version)) = apply.snapshot {
                    self.state.insert(entity.clone(), state.to_owned());
                    self.version.insert(entity.clone(), version);
                    rows += 1;
                }
                if let Some(amount) = apply.ledger {
                    let prev = self
                        .ledger
                        .entry(entity)
                        .or_default()
                        .insert(apply.event_id.clone(), amount);
                    assert!(prev.is_none(), "unique ledger row violated");
                    rows += 1;
                }
                if apply.enqueue {
                    self.outbox.push(apply.event_id.clone());
                    rows += 1;
                }
                rows
            }
            Decision::Stale => {
                self.records
                    .insert(e.id().clone(), Record::Done(Outcome::Stale));
                1
            }
            Decision::Duplicate(_) => 0,
            other => panic!("no claims in async mode, got {other:?}"),
        }
    }

    fn total(&self, entity: &EntityKey) -> i64 {
        self.ledger.get(entity).map_or(0, |l| l.values().sum())
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

fn build(spec: &[(u8, i64, Kind)]) -> Vec<Event> {
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
fn reference(events: &[Event]) -> Store {
    let mut sorted: Vec<&Event> = events.iter().collect();
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
        prop_assert_eq!(&got.state, &want.state);
        for card in want.ledger.keys() {
            prop_assert_eq!(got.total(card), want.total(card));
        }
        // Every event was handled once: recorded, and never enqueued twice.
        prop_assert_eq!(got.records.len(), events.len());
        let mut enqueued = got.outbox.clone();
        enqueued.sort();
        enqueued.dedup();
        prop_assert_eq!(enqueued.len(), got.outbox.len());
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
                got.records.clear();
            }
            got.deliver(&events[i]);
        }
        // Replay everything once more after the wipe, as a provider's dashboard might.
        got.records.clear();
        for e in &events {
            got.deliver(e);
        }
        for card in want.ledger.keys() {
            prop_assert_eq!(got.total(card), want.total(card));
        }
        prop_assert_eq!(&got.state, &want.state);
    }
}

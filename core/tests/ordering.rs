//! Property: in synchronous mode, whatever interleaving of deliveries, commits, failed
//! calls, lease expiries and restarts happens, no stale event is ever claimed, and the
//! application never receives an older version of an entity after a newer one.

mod common;

use common::model::Model;
use common::*;
use hookonce_core::decide::{release, Plan};
use hookonce_core::event::Version;
use hookonce_core::time::{Seconds, UnixSeconds};
use proptest::prelude::*;

const LEASE: Seconds = Seconds(30);
const SYNC: Plan = Plan::Claim { lease: LEASE };

#[derive(Clone, Debug)]
enum Step {
    /// A provider (re)sends event `i`.
    Deliver(usize),
    /// The oldest call in flight finishes: the destination said 2xx (commit) or not.
    Finish { ok: bool },
    /// Time passes.
    Wait(u64),
    /// The runtime dies: every call in flight is lost; storage stays.
    Restart,
}

fn steps(n: usize) -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        4 => (0..n).prop_map(Step::Deliver),
        3 => any::<bool>().prop_map(|ok| Step::Finish { ok }),
        1 => (1u64..40).prop_map(Step::Wait),
        1 => Just(Step::Restart),
    ];
    prop::collection::vec(step, 1..60)
}

fn scenario() -> impl Strategy<Value = (Vec<i64>, Vec<Step>)> {
    timed_script(steps)
}

/// The application behind hookonce: every version it was sent, in order.
#[derive(Default)]
struct App {
    received: Vec<Version>,
}

impl App {
    fn receive(&mut self, v: Version) -> Result<(), TestCaseError> {
        if let Some(last) = self.received.last() {
            prop_assert!(&v >= last, "older version {v:?} forwarded after {last:?}");
        }
        self.received.push(v);
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn no_stale_claim_and_no_older_forward_after_a_newer_one((times, script) in scenario()) {
        let events = snapshots(&times);
        let mut store = Model::default();
        let mut app = App::default();
        let mut in_flight: Vec<(usize, UnixSeconds)> = Vec::new();
        let mut now = NOW;
        for step in script {
            match step {
                Step::Deliver(i) => {
                    let before = store.clone();
                    let ran = store.run(&events[i], SYNC, now);
                    if let Some(until) = ran.claim {
                        let v = events[i].version().unwrap();
                        let applied = before.snapshot.as_ref().map(|(_, v)| v);
                        prop_assert!(applied.is_none_or(|a| &v > a), "claimed stale {v:?} over {applied:?}");
                        // The call starts at once and ends within the lease (timeout < lease),
                        // so the application has it before anyone could take the claim over.
                        app.receive(v)?;
                        in_flight.push((i, until));
                    }
                }
                Step::Finish { ok } => {
                    if in_flight.is_empty() {
                        continue;
                    }
                    let (i, until) = in_flight.remove(0);
                    if now >= until {
                        // Past its lease the call has timed out: it can only fail.
                        continue;
                    }
                    if ok {
                        store.run(&events[i], Plan::Commit, now);
                    } else if let Some(w) = release(store.claim.as_ref(), &events[i], until) {
                        store.execute(&w);
                    }
                }
                Step::Wait(secs) => now = now.plus(Seconds(secs)),
                Step::Restart => in_flight.clear(),
            }
        }

        // Providers keep retrying until they get an answer; every call now succeeds.
        now = now.plus(LEASE);
        for _round in 0..events.len() + 1 {
            for e in &events {
                let ran = store.run(e, SYNC, now);
                if ran.claim.is_some() {
                    app.receive(e.version().unwrap())?;
                    store.run(e, Plan::Commit, now);
                }
            }
        }
        let newest = events.iter().filter_map(|e| e.version()).max();
        prop_assert_eq!(store.snapshot.map(|(_, v)| v), newest);
        prop_assert_eq!(store.claim.and_then(|c| c.holder), None);
        prop_assert_eq!(store.records.len(), events.len());
    }
}

//! Property: in asynchronous mode, with one destination or two, whatever interleaving of
//! deliveries, alarm invocations (overlapping ones, repeated ones and retries of failed
//! ones included), failed, timed out and successful attempts, re-arms and restarts
//! happens, a row answered 2xx is never sent again (unless a restart lost the answer
//! before it was made durable), no row is sent to a destination after a newer snapshot of
//! the entity was, and in the end every row is delivered, first deliveries in order at
//! each destination, and each destination received each applied event it takes, keyed by
//! the event id.
//!
//! With the gate in play (the last property), the destinations' gate objects grant (one
//! attempt or a batch of three), say wait, say paused, or cannot be reached, changing at
//! random: a held destination spends nothing (no row's attempts or next attempt change),
//! every lease granted is reported at most once and with no more attempts than it covers,
//! and the same end holds once the gates grant again.
//!
//! The runtime here is adversarial: it may start an alarm invocation at any time, while
//! others run, and interleaves their steps freely. Only what a Durable Object really
//! promises holds: an invocation ends within the runtime's limit on an alarm handler
//! (`RUN_LIMIT`), a restart keeps what was made durable, and a request leaves only once
//! every earlier write is durable (the output gate).

mod common;

use std::collections::BTreeSet;

use common::model::{Model, OutboxRow};
use common::*;
use hookonce_core::config::{DestinationConfig, SourceConfig};
use hookonce_core::decide::{Outcome, Plan};
use hookonce_core::drain::{self, Drain, RUN_LIMIT};
use hookonce_core::event::Version;
use hookonce_core::forward::forwarded_key;
use hookonce_core::outbox::{Order, OutboxStatus, Transition};
use hookonce_core::protect::{Ask, WaitReason};
use hookonce_core::retry::{AttemptResult, Schedule};
use hookonce_core::time::{Seconds, UnixSeconds};
use proptest::prelude::*;
use serde_json::json;

const ASYNC: Plan = Plan::Apply { forward: true };

#[derive(Clone, Copy, Debug)]
enum Answer {
    Ok,
    Fail,
    /// Our side gave up; the application acted on it anyway.
    Timeout,
}

/// What the gates answer an ask, until a [`Step::Gate`] changes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GateSays {
    Grant,
    /// A grant covering three attempts.
    Batch,
    Wait,
    Paused,
    /// The call failed.
    Unreachable,
}

#[derive(Clone, Debug)]
enum Step {
    /// The gates answer so from now on.
    Gate(GateSays),
    /// A provider (re)sends event `i`; the object sets the alarm for now.
    Deliver(usize),
    /// The alarm is due (time jumps to it if it is later): an invocation starts.
    Alarm,
    /// An invocation starts although the alarm was not due: a repeat or a retry.
    Spurious,
    /// Invocation `k` (modulo how many run) carries out its command; an attempt among
    /// them is answered so.
    Advance(usize, Answer),
    /// Invocation `k`'s storage call fails: it ends in an error; the runtime retries.
    Fail(usize),
    /// Time passes.
    Wait(u64),
    /// The runtime dies: invocations are lost, and writes not made durable.
    Restart,
}

fn steps(n: usize) -> impl Strategy<Value = Vec<Step>> {
    steps_with(n, 0)
}

/// [`steps`], with a gate whose answer changes at weight `gate`.
fn steps_with(n: usize, gate: u32) -> impl Strategy<Value = Vec<Step>> {
    let says = prop_oneof![
        Just(GateSays::Grant),
        Just(GateSays::Batch),
        Just(GateSays::Wait),
        Just(GateSays::Paused),
        Just(GateSays::Unreachable),
    ];
    let answer = prop_oneof![
        3 => Just(Answer::Ok),
        2 => Just(Answer::Fail),
        1 => Just(Answer::Timeout),
    ];
    let step = prop_oneof![
        3 => (0..n).prop_map(Step::Deliver),
        2 => Just(Step::Alarm),
        2 => Just(Step::Spurious),
        10 => (0..4usize, answer).prop_map(|(k, a)| Step::Advance(k, a)),
        1 => (0..4usize).prop_map(Step::Fail),
        1 => (1u64..400).prop_map(Step::Wait),
        1 => Just(Step::Restart),
        gate => says.prop_map(Step::Gate),
    ];
    prop::collection::vec(step, 1..120)
}

fn scenario() -> impl Strategy<Value = (Vec<i64>, Vec<Step>)> {
    timed_script(steps)
}

fn gated_scenario() -> impl Strategy<Value = (Vec<i64>, Vec<Step>)> {
    timed_script(|n| steps_with(n, 2))
}

/// One alarm invocation: its handle, the command it carries out next, when it started.
struct Invocation {
    run: drain::Run,
    next: drain::Command<usize>,
    started: UnixSeconds,
}

/// One object, its storage, the runtime's alarm, and the application behind it.
struct World {
    events: Vec<Signed>,
    store: Model,
    /// The outbox as last made durable (an event's rows are durable before its answer).
    durable: Vec<OutboxRow>,
    drain: Drain,
    alarm: Option<UnixSeconds>,
    running: Vec<Invocation>,
    now: UnixSeconds,
    schedule: Schedule,
    /// Rows the application answered 2xx, but for a restart that lost the answer.
    answered: BTreeSet<usize>,
    /// What the destinations received: (row, destination, Idempotency-Key, version), in order.
    received: Vec<(usize, String, String, Version)>,
    /// What the gates answer now.
    gate: GateSays,
    /// Leases granted and not yet reported; the last lease's number.
    /// The leases granted and not yet reported, with the attempts each covers.
    leases: std::collections::BTreeMap<u64, u32>,
    last_lease: u64,
}

impl World {
    fn new(events: Vec<Signed>) -> World {
        World {
            events,
            store: Model::default(),
            durable: Vec::new(),
            drain: Drain::default(),
            alarm: None,
            running: Vec::new(),
            now: NOW,
            schedule: Schedule::new(vec![Seconds(1), Seconds(5)], Schedule::MAX_WINDOW).unwrap(),
            answered: BTreeSet::new(),
            received: Vec::new(),
            gate: GateSays::Grant,
            leases: Default::default(),
            last_lease: 0,
        }
    }

    /// Makes sure the alarm fires no later than `at`.
    fn arm(&mut self, at: UnixSeconds) {
        self.alarm = Some(self.alarm.map_or(at, |a| a.min(at)));
    }

    fn deliver(&mut self, i: usize) {
        let before = self.store.outbox.len();
        self.store.run(&self.events[i], ASYNC, self.now);
        self.durable
            .extend_from_slice(&self.store.outbox[before.min(self.store.outbox.len())..]);
        if self.store.outbox.len() > before {
            self.arm(self.now);
        }
    }

    fn start(&mut self) {
        let (run, next) = self.drain.alarm(self.now, Order::HeadOfLine);
        self.running.push(Invocation {
            run,
            next,
            started: self.now,
        });
    }

    fn fire_alarm(&mut self) {
        if let Some(at) = self.alarm.take() {
            self.now = self.now.max(at);
            self.start();
        }
    }

    /// Carries out invocation `k`'s command, as the adapter does.
    fn advance(&mut self, k: usize, answer: Answer) -> Result<(), TestCaseError> {
        let inv = &mut self.running[k];
        let run = inv.run;
        let input = match std::mem::replace(&mut inv.next, drain::Command::Done) {
            drain::Command::ReadHead(read) => {
                let head = self.store.read(read, self.now);
                drain::Input::Head {
                    gated: head.as_ref().map(|h| self.store.gated(h)),
                    row: head.map(|h| (h.clone(), Ok(h.seq as usize - 1))),
                    now: self.now,
                }
            }
            drain::Command::ReadEarliest { order, held } => {
                drain::Input::Earliest(self.store.earliest_due_except(order, &held))
            }
            drain::Command::ReadSuccessor { .. } => {
                return Err(TestCaseError::fail(
                    "no destination here is deliver = \"latest\"",
                ))
            }
            drain::Command::Ask {
                via: row, renew, ..
            } => {
                if let Some(owed) = renew {
                    self.reported(owed.lease.0, owed.earlier)?;
                }
                let answer = match self.gate {
                    GateSays::Grant | GateSays::Batch => {
                        let rows = if self.gate == GateSays::Batch { 3 } else { 1 };
                        self.last_lease += 1;
                        self.leases.insert(self.last_lease, rows);
                        Some(grant_rows(
                            self.last_lease,
                            self.now.plus(Seconds(30)),
                            rows,
                        ))
                    }
                    GateSays::Wait => Some(Ask::Wait {
                        until: self.now.plus(Seconds(3)),
                        reason: WaitReason::Open,
                    }),
                    GateSays::Paused => Some(Ask::Paused),
                    GateSays::Unreachable => None,
                };
                let granted = matches!(self.gate, GateSays::Grant | GateSays::Batch);
                let before = self.store.outbox[row].clone();
                let next = self.drain.handle(
                    run,
                    drain::Input::Asked {
                        answer,
                        healthy_since: None,
                        via: row,
                        now: self.now,
                    },
                );
                if !granted {
                    // Held: nothing spent, nothing sent, nothing written.
                    prop_assert!(
                        matches!(next, drain::Command::ReadHead(_) | drain::Command::Done),
                        "a held row went on to {next:?}"
                    );
                    prop_assert_eq!(&self.store.outbox[row], &before);
                }
                self.running[k].next = next;
                return Ok(());
            }
            drain::Command::Report { lease, earlier, .. } => {
                self.reported(lease.0, earlier)?;
                drain::Input::Reported
            }
            drain::Command::Send { via: row, .. } => {
                // The output gate: a request leaves only once every earlier write is durable.
                self.durable = self.store.outbox.clone();
                self.receive(row)?;
                let result = match answer {
                    Answer::Ok => {
                        self.answered.insert(row);
                        AttemptResult::Status {
                            code: 200,
                            retry_after: None,
                        }
                    }
                    Answer::Fail => AttemptResult::Status {
                        code: 503,
                        retry_after: None,
                    },
                    Answer::Timeout => AttemptResult::Timeout,
                };
                drain::Input::Sent {
                    result,
                    schedule: &self.schedule,
                    now: self.now,
                    jitter: 500,
                }
            }
            drain::Command::Write {
                transition,
                if_attempts,
            } => drain::Input::Written {
                applied: self.store.transition(&transition, if_attempts),
            },
            drain::Command::Sync => {
                self.durable = self.store.outbox.clone();
                drain::Input::Synced
            }
            drain::Command::SetAlarm(at) => {
                self.arm(at);
                drain::Input::AlarmSet
            }
            drain::Command::Done => {
                self.running.remove(k);
                return Ok(());
            }
        };
        let next = self.drain.handle(run, input);
        self.running[k].next = next;
        Ok(())
    }

    /// Lease `lease` is reported with `earlier` attempts before its last: once, and with
    /// no more attempts than it covered.
    fn reported(&mut self, lease: u64, earlier: u32) -> Result<(), TestCaseError> {
        let rows = self.leases.remove(&lease);
        prop_assert!(
            rows.is_some(),
            "lease {lease} reported twice or never granted"
        );
        prop_assert!(
            earlier < rows.unwrap_or(0),
            "lease {lease} of {rows:?} rows reported with {earlier} before its last"
        );
        Ok(())
    }

    /// Row `row`'s destination receives it, with the event id as its Idempotency-Key.
    fn receive(&mut self, row: usize) -> Result<(), TestCaseError> {
        prop_assert!(
            !self.answered.contains(&row),
            "row {row} sent again after a 2xx; received {:?}",
            self.received
        );
        let OutboxRow {
            event_id,
            destination,
            ..
        } = &self.store.outbox[row];
        let version = self
            .events
            .iter()
            .find(|e| e.id() == event_id)
            .and_then(|e| e.version())
            .unwrap();
        let last = self.received.iter().rev().find(|r| &r.1 == destination);
        if let Some((last_row, _, _, last)) = last {
            prop_assert!(
                &version >= last,
                "row {row} ({version:?}) sent to {destination} after newer row {last_row} ({last:?})"
            );
        }
        let key = forwarded_key(event_id.as_str());
        self.received.push((row, destination.clone(), key, version));
        Ok(())
    }

    /// The invocation fails (a storage error): the adapter abandons its run, and the
    /// runtime retries the alarm.
    fn fail(&mut self, k: usize) {
        let inv = self.running.remove(k);
        self.lose(&inv);
        self.drain.abandon(inv.run);
        self.arm(self.now.plus(Seconds(2)));
    }

    /// The runtime ends an alarm handler that ran past its limit, and retries it.
    fn enforce_limit(&mut self) {
        let now = self.now;
        let (over, within): (Vec<_>, Vec<_>) = std::mem::take(&mut self.running)
            .into_iter()
            .partition(|inv| now >= inv.started.plus(RUN_LIMIT));
        self.running = within;
        for inv in &over {
            self.lose(inv);
        }
        if !over.is_empty() {
            self.arm(now);
        }
    }

    /// An invocation ends before writing the 2xx it got: hookonce cannot know of it.
    fn lose(&mut self, inv: &Invocation) {
        if let drain::Command::Write {
            transition: Transition::Finish { seq, status, .. },
            ..
        } = &inv.next
        {
            if *status == OutboxStatus::Delivered {
                self.answered.remove(&(*seq as usize - 1));
            }
        }
    }

    fn restart(&mut self) {
        self.running.clear();
        self.drain = Drain::default();
        self.store.outbox = self.durable.clone();
        // A 2xx that hookonce did not make durable, it cannot know of: that row goes again.
        self.answered = (0..self.durable.len())
            .filter(|&seq| self.durable[seq].status == OutboxStatus::Delivered)
            .collect();
        // The constructor re-arms for the first pending row.
        if let Some(at) = self.store.earliest_due(Order::HeadOfLine) {
            self.arm(at);
        }
    }
}

/// Runs `script` over `events`, then lets every delivery and alarm finish with 2xx
/// answers, and checks what each destination received.
fn check(events: Vec<Signed>, script: Vec<Step>) -> Result<(), TestCaseError> {
    let n = events.len();
    let mut w = World::new(events);
    for step in script {
        match step {
            Step::Deliver(i) => w.deliver(i),
            Step::Alarm => w.fire_alarm(),
            Step::Spurious => w.start(),
            Step::Advance(k, answer) if !w.running.is_empty() => {
                let k = k % w.running.len();
                w.advance(k, answer)?;
            }
            Step::Fail(k) if !w.running.is_empty() => {
                let k = k % w.running.len();
                w.fail(k);
            }
            Step::Advance(..) | Step::Fail(_) => {}
            Step::Wait(secs) => {
                w.now = w.now.plus(Seconds(secs));
                w.enforce_limit();
            }
            Step::Restart => w.restart(),
            Step::Gate(says) => w.gate = says,
        }
    }
    w.gate = GateSays::Grant;

    // Every provider delivery arrives; then the runtime behaves and the application
    // answers 2xx: every invocation runs to its end, and the alarm fires when due.
    for i in 0..n {
        w.deliver(i);
    }
    for _ in 0..100_000 {
        if let Some(k) = w.running.len().checked_sub(1) {
            w.advance(k, Answer::Ok)?;
        } else if w.alarm.is_some() {
            w.fire_alarm();
        } else {
            break;
        }
    }
    prop_assert!(w.running.is_empty(), "invocations still running");
    for (seq, row) in w.store.outbox.iter().enumerate() {
        prop_assert_eq!(
            row.status,
            OutboxStatus::Delivered,
            "row {} never delivered",
            seq
        );
    }
    // Each destination got each applied event it takes, under its id as the key.
    let source = &w.events[0].source;
    let mut expected = BTreeSet::new();
    for e in &w.events {
        if w.store.records.get(e.id()) == Some(&Outcome::Applied) {
            for d in source
                .destinations
                .iter()
                .filter(|d| takes(d, e.kind().as_str()))
            {
                expected.insert((d.name.clone(), forwarded_key(e.id().as_str())));
            }
        }
    }
    let got: BTreeSet<_> = w
        .received
        .iter()
        .map(|r| (r.1.clone(), r.2.clone()))
        .collect();
    prop_assert_eq!(got, expected);
    // First deliveries come in row order at each destination.
    for d in &source.destinations {
        let mut firsts = Vec::new();
        for (row, _, _, _) in w.received.iter().filter(|r| r.1 == d.name) {
            if !firsts.contains(row) {
                firsts.push(*row);
            }
        }
        let rows = (0..w.store.outbox.len()).filter(|&r| w.store.outbox[r].destination == d.name);
        prop_assert_eq!(firsts, rows.collect::<Vec<_>>());
    }
    Ok(())
}

/// Whether destination `d` takes events of type `kind`: the oracle, independent of the
/// code under test, for the patterns these tests use (`*`, exact, `prefix.*`).
fn takes(d: &DestinationConfig, kind: &str) -> bool {
    d.types.iter().any(|t| match t.strip_suffix(".*") {
        _ if t == "*" || t == kind => true,
        Some(prefix) => kind
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.')),
        None => false,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn a_row_answered_2xx_is_never_sent_again_and_no_older_snapshot_follows_a_newer_one(
        (times, script) in scenario()
    ) {
        check(snapshots(&times), script)?;
    }

    #[test]
    fn each_destination_gets_each_event_its_filter_takes_in_order_whatever_the_others_do(
        (times, script) in scenario()
    ) {
        let source = SourceConfig::from_json("cockpit", &json!({
            "scheme": "standard-webhooks",
            "secrets": ["COCKPIT_SECRET"],
            "effects": { "cardholder.updated": "snapshot", "cardholder.frozen": "snapshot" },
            "destinations": {
                "app": { "url": "https://app.example/hooks", "types": ["cardholder.*"] },
                "audit": { "queue": "AUDIT", "types": ["cardholder.frozen"] },
            },
        })).unwrap();
        let events = times.iter().enumerate().map(|(i, t)| {
            let mut body = snapshot(&format!("evt_{i}"), "card_1", *t, &format!("s{i}"));
            if i % 3 == 0 {
                body["type"] = json!("cardholder.frozen");
            }
            parse_signed(&source, &body).unwrap()
        });
        check(events.collect(), script)?;
    }

    #[test]
    fn a_gate_that_says_wait_or_paused_at_random_spends_nothing_loses_nothing_and_keeps_order(
        (times, script) in gated_scenario()
    ) {
        let source = SourceConfig::from_json("cockpit", &json!({
            "scheme": "standard-webhooks",
            "secrets": ["COCKPIT_SECRET"],
            "effects": { "cardholder.updated": "snapshot" },
            "destinations": {
                "app": { "url": "https://app.example/hooks" },
                "audit": { "queue": "AUDIT" },
            },
        })).unwrap();
        let events = times.iter().enumerate().map(|(i, t)| {
            parse_signed(&source, &snapshot(&format!("evt_{i}"), "card_1", *t, "s")).unwrap()
        });
        check(events.collect(), script)?;
    }
}

/// A gate's grant of lease `lease` until `until`, covering `rows` attempts, as the gate
/// object's answer carries it.
fn grant_rows(lease: u64, until: UnixSeconds, rows: u32) -> Ask {
    let wire = json!({
        "answer": "grant", "lease": lease, "until": until.0, "probe": false,
        "rows": rows, "rows_until": until.0, "healthy_since": null,
    });
    match hookonce_core::gate::Answer::decode(wire.to_string().as_bytes()) {
        Some(hookonce_core::gate::Answer::Ask { ask, .. }) => ask,
        other => panic!("a grant's wire decoded to {other:?}"),
    }
}

//! One entity's store, in memory: it reads what the adapter reads and interprets the same
//! `Write` commands the adapter executes, and a delivery runs through core's `Ingest` as
//! the adapter runs it, so tests exercise the real decisions, writes and their sequence.

use std::collections::{BTreeMap, HashMap};

use hookonce_core::decide::{Claim, Outcome, Plan, Said, Stored, Write};
use hookonce_core::drain::{Gated, Read};
use hookonce_core::entity::{Answer, Command, Guard, Ingest, Input, Known, Reads};
use hookonce_core::event::{EventId, Version};
use hookonce_core::outbox::{Head, Order, OutboxStatus, Transition};
use hookonce_core::time::{Seconds, UnixSeconds};

use super::Signed;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    pub records: HashMap<EventId, Outcome>,
    pub snapshot: Option<(String, Version)>,
    pub ledger: BTreeMap<EventId, i64>,
    /// Bodies a replay can find: linked from their record, as the adapter links them.
    pub bodies: HashMap<EventId, Vec<u8>>,
    /// The newest body row: the one a record or outbox row written next points at.
    pub newest_body: Option<(EventId, Vec<u8>)>,
    /// The outbox, in `seq` order: a row's `seq` is its index plus 1, as SQLite's first
    /// rowid is 1.
    pub outbox: Vec<OutboxRow>,
    pub claim: Option<Claim>,
}

/// One outbox row, as the adapter's table holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct OutboxRow {
    pub event_id: EventId,
    /// The destination it goes to.
    pub destination: String,
    pub status: OutboxStatus,
    pub attempts: u32,
    pub first_attempt_at: Option<UnixSeconds>,
    pub next_attempt_at: UnixSeconds,
}

impl Model {
    /// The point read the adapter makes for `s`: what `reads` names.
    pub fn stored(&self, s: &Signed, reads: Reads) -> Stored {
        let e = &s.event;
        let record = self.records.get(e.id()).copied();
        if record.is_some() {
            return Stored {
                record,
                ..Stored::default()
            };
        }
        Stored {
            record,
            version: reads
                .version
                .then(|| self.snapshot.as_ref().map(|(_, v)| v.clone()))
                .flatten(),
            claim: reads.claim.then(|| self.claim.clone()).flatten(),
            ledger_has_event: reads.ledger && self.ledger.contains_key(e.id()),
        }
    }

    /// Carries out a decision's writes as one unit, as the adapter's store does: with
    /// `Guard::UnlessRecorded`, nothing at all if the record's id is recorded (`None`).
    pub fn write(&mut self, writes: &[Write<'_>], guard: Guard) -> Option<usize> {
        let before = (guard == Guard::UnlessRecorded).then(|| self.clone());
        let mut rows = 0;
        for w in writes {
            if let (Some(before), Write::Record { event_id, .. }) = (&before, w) {
                if self.records.contains_key(*event_id) {
                    *self = before.clone();
                    return None;
                }
            }
            rows += self.execute(w);
        }
        Some(rows)
    }

    /// Carries out one write; returns the rows it wrote.
    pub fn execute(&mut self, w: &Write<'_>) -> usize {
        match w {
            Write::Record {
                event_id, outcome, ..
            } => {
                self.records.insert((*event_id).clone(), *outcome);
                if let Some((id, body)) = &self.newest_body {
                    if id == *event_id {
                        self.bodies.insert(id.clone(), body.clone());
                    }
                }
            }
            Write::Snapshot { state, version } => {
                self.snapshot = Some(((*state).to_owned(), version.clone()));
            }
            Write::Ledger { event_id, amount } => {
                let prev = self.ledger.insert((*event_id).clone(), *amount);
                assert!(prev.is_none(), "unique ledger row violated");
            }
            Write::Body { event_id, body, .. } => {
                let bytes = hookonce_core::packing::unpack(body.codec.code(), &body.bytes).unwrap();
                self.newest_body = Some(((*event_id).clone(), bytes.into_owned()));
            }
            Write::Enqueue {
                event_id,
                destination,
                ..
            } => {
                let newest = self.newest_body.as_ref().map(|(id, _)| id);
                assert_eq!(newest, Some(*event_id), "an outbox row must find its body");
                self.outbox.push(OutboxRow {
                    event_id: (*event_id).clone(),
                    destination: (*destination).to_owned(),
                    status: OutboxStatus::Pending,
                    attempts: 0,
                    first_attempt_at: None,
                    // Due at once.
                    next_attempt_at: UnixSeconds(0),
                });
            }
            Write::Claim(claim) => self.claim = Some(claim.clone()),
            Write::Release { event_id, until } => {
                let Some(claim) = self.claim.as_mut() else {
                    return 0;
                };
                let held = claim.holder.as_ref();
                if !held.is_some_and(|l| &l.event_id == *event_id && l.until == *until) {
                    return 0;
                }
                claim.holder = None;
            }
        }
        1
    }

    /// One delivery through core's `Ingest`, as the adapter runs it, with nothing kept of
    /// the snapshot version between deliveries. A claim stops at the synchronous call: the
    /// test plays the call, then commits (`Plan::Commit`) or releases.
    pub fn run(&mut self, s: &Signed, plan: Plan, now: UnixSeconds) -> Ran {
        self.run_unread(s, plan, now, &mut None)
    }

    /// [`Model::run`] with the snapshot version kept in `known`, as an object keeps it:
    /// core decides without a read when it can (`decide_unread`), the record guarded.
    pub fn run_unread(
        &mut self,
        s: &Signed,
        plan: Plan,
        now: UnixSeconds,
        known: &mut Option<Option<Version>>,
    ) -> Ran {
        let mut ingest = Ingest::new(s.delivery(), plan, now);
        let mut command = ingest.start(Known {
            empty: false,
            version: known.as_ref().map(Option::as_ref),
        });
        let mut rows = 0;
        loop {
            command = match command {
                Command::Read(reads) => ingest.handle(Input::Stored(self.stored(s, reads))),
                Command::Write { guard, .. } => {
                    let written = self.write(ingest.writes(), guard);
                    rows = written.unwrap_or(0);
                    ingest.handle(Input::Written(written))
                }
                Command::KeepVersion(version) => {
                    *known = Some(version);
                    ingest.handle(Input::Kept)
                }
                Command::SetAlarm(_) => ingest.handle(Input::AlarmSet(Known {
                    empty: false,
                    version: known.as_ref().map(Option::as_ref),
                })),
                // The gate grants; the model's deliveries stop at the call.
                Command::AskGate => {
                    ingest.handle(Input::Asked(Some(super::grant(1, now.plus(Seconds(30))))))
                }
                Command::ReportToGate { .. } => ingest.handle(Input::GateReported),
                Command::Send { until } => {
                    return Ran {
                        label: Said::Claimed.as_str(),
                        rows,
                        claim: Some(until),
                    }
                }
                Command::ReadClaim => ingest.handle(Input::Claim(self.claim.clone())),
                Command::Report(_) => ingest.handle(Input::Reported),
                Command::Answer(Answer::Decided {
                    said, rows_written, ..
                }) => {
                    return Ran {
                        label: said.as_str(),
                        rows: rows_written,
                        claim: None,
                    }
                }
                Command::Answer(other) => panic!("a delivery answered {other:?}"),
            };
        }
    }

    /// Whether row `seq` is its destination's first pending row.
    fn is_head(&self, seq: usize) -> bool {
        let row = &self.outbox[seq];
        row.status == OutboxStatus::Pending
            && !self.outbox[..seq]
                .iter()
                .any(|r| r.status == OutboxStatus::Pending && r.destination == row.destination)
    }

    fn head_of(&self, seq: usize) -> Head {
        let row = &self.outbox[seq];
        Head {
            seq: seq as i64 + 1,
            attempts: row.attempts,
            first_attempt_at: row.first_attempt_at,
            next_attempt_at: row.next_attempt_at,
        }
    }

    /// The first pending row of each destination, as the constructor re-arms for them.
    pub fn heads(&self) -> impl Iterator<Item = Head> + '_ {
        (0..self.outbox.len())
            .filter(|&seq| self.is_head(seq))
            .map(|seq| self.head_of(seq))
    }

    /// What the adapter reads for `read` at `now`: the first due pending row after a
    /// `seq`; for an entity, only one that is its destination's first pending row.
    pub fn read(&self, read: Read, now: UnixSeconds) -> Option<Head> {
        let (after, heads_only) = match read {
            Read::HeadAfter(after) => (after, true),
            Read::DueAfter(after) => (after, false),
        };
        let seq = (0..self.outbox.len()).find(|&seq| {
            let r = &self.outbox[seq];
            r.status == OutboxStatus::Pending
                && seq as i64 + 1 > after
                && r.next_attempt_at <= now
                && (!heads_only || self.is_head(seq))
        })?;
        Some(self.head_of(seq))
    }

    /// When the first pending row `order` lets go next is due, if any is.
    pub fn earliest_due(&self, order: Order) -> Option<UnixSeconds> {
        self.earliest_due_except(order, &[])
    }

    /// [`Model::earliest_due`] among the rows bound for destinations not in `held`.
    pub fn earliest_due_except(&self, order: Order, held: &[String]) -> Option<UnixSeconds> {
        (0..self.outbox.len())
            .filter(|&seq| match order {
                Order::HeadOfLine => self.is_head(seq),
                Order::EachDue => self.outbox[seq].status == OutboxStatus::Pending,
            })
            .filter(|&seq| !held.contains(&self.outbox[seq].destination))
            .map(|seq| self.outbox[seq].next_attempt_at)
            .min()
    }

    /// The gate `head`'s row asks before it is sent: its destination's, for this entity.
    pub fn gated(&self, head: &Head) -> Gated {
        Gated {
            destination: self.outbox[head.seq as usize - 1].destination.clone(),
            entity: "card_1".to_owned(),
            latest: false,
            timeout: hookonce_core::time::Seconds(10),
        }
    }

    /// Carries out a row's change of state as the adapter's `UPDATE` does: only while the
    /// row is still pending with `if_attempts` attempts made. Returns whether it applied.
    pub fn transition(&mut self, t: &Transition, if_attempts: u32) -> bool {
        let seq = match t {
            Transition::Finish { seq, .. }
            | Transition::Retry { seq, .. }
            | Transition::Supersede { seq, .. } => *seq,
        };
        let Some(row) = usize::try_from(seq - 1)
            .ok()
            .and_then(|i| self.outbox.get_mut(i))
        else {
            return false;
        };
        if row.status != OutboxStatus::Pending || row.attempts != if_attempts {
            return false;
        }
        match t {
            Transition::Finish {
                status,
                attempts,
                first_attempt_at,
                ..
            } => {
                row.status = *status;
                row.attempts = *attempts;
                row.first_attempt_at = Some(*first_attempt_at);
            }
            Transition::Retry {
                attempts,
                first_attempt_at,
                next_attempt_at,
                ..
            } => {
                row.attempts = *attempts;
                row.first_attempt_at = Some(*first_attempt_at);
                row.next_attempt_at = *next_attempt_at;
            }
            Transition::Supersede { .. } => row.status = OutboxStatus::Superseded,
        }
        true
    }

    pub fn total(&self) -> i64 {
        self.ledger.values().sum()
    }
}

/// What one [`Model::run`] came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ran {
    /// The decision's label: applied, claimed, duplicate, stale or in_flight.
    pub label: &'static str,
    /// Rows written.
    pub rows: usize,
    /// The lease, when the decision took the claim.
    pub claim: Option<UnixSeconds>,
}

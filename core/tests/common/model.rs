//! One entity's store, in memory: it reads what the adapter reads and interprets the same
//! `Write` commands the adapter executes, so tests exercise the real decisions and writes.

use std::collections::{BTreeMap, HashMap};

use hookonce_core::drain::Read;
use hookonce_core::{
    decide_unread, Claim, Decision, Effect, EventId, Head, OutboxStatus, Outcome, Plan, Stored,
    Transition, UnixSeconds, Version, Write,
};

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
    /// The outbox, in `seq` order: a row's `seq` is its index.
    pub outbox: Vec<OutboxRow>,
    pub claim: Option<Claim>,
}

/// One outbox row, as the adapter's table holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct OutboxRow {
    pub event_id: EventId,
    pub status: OutboxStatus,
    pub attempts: u32,
    pub first_attempt_at: Option<UnixSeconds>,
    pub next_attempt_at: UnixSeconds,
}

impl Model {
    /// The point reads the adapter makes for `s`.
    pub fn stored(&self, s: &Signed) -> Stored {
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
            version: self.snapshot.as_ref().map(|(_, v)| v.clone()),
            claim: self.claim.clone(),
            ledger_has_event: matches!(e.effect(), Effect::Ledger { .. })
                && self.ledger.contains_key(e.id()),
        }
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
                let bytes = hookonce_core::unpack(body.codec.code(), &body.bytes).unwrap();
                self.newest_body = Some(((*event_id).clone(), bytes.into_owned()));
            }
            Write::Enqueue { event_id, .. } => {
                let newest = self.newest_body.as_ref().map(|(id, _)| id);
                assert_eq!(newest, Some(*event_id), "an outbox row must find its body");
                self.outbox.push(OutboxRow {
                    event_id: (*event_id).clone(),
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

    /// Read, decide and write as one unit.
    pub fn run(&mut self, s: &Signed, plan: Plan, now: UnixSeconds) -> Ran {
        let stored = self.stored(s);
        let decision = s.decide(&stored, plan, now);
        let rows = decision.writes().iter().map(|w| self.execute(w)).sum();
        Ran {
            label: decision.label(),
            rows,
            claim: match decision {
                Decision::Claim { until, .. } => Some(until),
                _ => None,
            },
        }
    }

    /// The adapter's path when it can skip the read (`decide_unread`): decide from the
    /// version it keeps in `known` and write, the record guarded (it writes nothing if the
    /// id is recorded); if it writes nothing, undo the unit and read and decide in full,
    /// as when the decision needs a read. Keeps `known` as the adapter does.
    pub fn run_unread(
        &mut self,
        s: &Signed,
        plan: Plan,
        now: UnixSeconds,
        known: &mut Option<Option<Version>>,
    ) -> Ran {
        let unread = decide_unread(s.delivery(), known.as_ref().map(Option::as_ref), plan, now);
        let decided = unread.and_then(|d| {
            let before = self.clone();
            let mut rows = 0;
            for w in d.writes() {
                if matches!(w, Write::Record { .. }) && self.records.contains_key(s.event.id()) {
                    *self = before;
                    return None;
                }
                rows += self.execute(w);
            }
            Some((d, rows, None))
        });
        let (decision, rows, read) = decided.unwrap_or_else(|| {
            let stored = self.stored(s);
            let read = stored.record.is_none().then(|| stored.version.clone());
            let d = s.decide(&stored, plan, now);
            let rows = d.writes().iter().map(|w| self.execute(w)).sum();
            (d, rows, read)
        });
        if let Some(v) = decision.snapshot().cloned().map(Some).or(read) {
            *known = Some(v);
        }
        Ran {
            label: decision.label(),
            rows,
            claim: None,
        }
    }

    /// The first pending row, as the adapter's `store::outbox::head` reads it.
    pub fn head(&self) -> Option<Head> {
        let (seq, row) = self
            .outbox
            .iter()
            .enumerate()
            .find(|(_, r)| r.status == OutboxStatus::Pending)?;
        Some(Head {
            seq: seq as i64,
            attempts: row.attempts,
            first_attempt_at: row.first_attempt_at,
            next_attempt_at: row.next_attempt_at,
        })
    }

    /// What the adapter reads for `read` at `now`: the first pending row, or a bucket's first
    /// due pending row after a `seq`.
    pub fn read(&self, read: Read, now: UnixSeconds) -> Option<Head> {
        let after = match read {
            Read::Head => return self.head(),
            Read::DueAfter(after) => after,
        };
        let (seq, row) = self.outbox.iter().enumerate().find(|(seq, r)| {
            r.status == OutboxStatus::Pending && *seq as i64 > after && r.next_attempt_at <= now
        })?;
        Some(Head {
            seq: seq as i64,
            attempts: row.attempts,
            first_attempt_at: row.first_attempt_at,
            next_attempt_at: row.next_attempt_at,
        })
    }

    /// When the first pending row is due, if any is.
    pub fn earliest_due(&self) -> Option<UnixSeconds> {
        self.outbox
            .iter()
            .filter(|r| r.status == OutboxStatus::Pending)
            .map(|r| r.next_attempt_at)
            .min()
    }

    /// Carries out a row's change of state as the adapter's `UPDATE` does: only while the
    /// row is still pending with `if_attempts` attempts made. Returns whether it applied.
    pub fn transition(&mut self, t: &Transition, if_attempts: u32) -> bool {
        let seq = match t {
            Transition::Finish { seq, .. } | Transition::Retry { seq, .. } => *seq,
        };
        let Some(row) = usize::try_from(seq)
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

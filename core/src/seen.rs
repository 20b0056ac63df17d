//! Event ids a Worker isolate has seen its entity objects record, so that a copy of a
//! recorded event is answered `duplicate` at the edge without waking the object; and the
//! deliveries it has with an object right now, so that a copy arriving meanwhile waits for
//! that answer instead of making a second trip ([`SeenIds::check`]).
//!
//! Sound because a record is never undone while the entry lives: the object answered
//! only after the id was durable (its output gate); only answers that recorded the id just
//! then are remembered, ids are kept at least [`MIN_RETENTION`](crate::retention::MIN_RETENTION) (a
//! day) and an entry lives [`SEEN_TTL`]; and an entry is keyed by the object and the id, as
//! the object dedupes. Bounded: at most
//! [`SEEN_MAX`] entries, the oldest forgotten first; forgetting only costs a trip to the
//! object, which answers the same.

use std::collections::{HashMap, VecDeque};

use crate::decide::{Plan, Said, APPLIED, STALE};
use crate::event::EventId;
use crate::time::{Seconds, UnixSeconds};

/// How long an isolate trusts what it saw: far below the shortest id retention.
pub const SEEN_TTL: Seconds = Seconds(600);
/// The most ids an isolate remembers (about 1 MB at 100 bytes each).
pub const SEEN_MAX: usize = 10_000;

/// How long a copy waits before it looks again at the delivery in flight, in ms: a trip
/// to the object takes a few ms, and a look costs one timer.
pub(crate) const COPY_POLL_MS: u64 = 2;
/// How long a delivery counts as in flight, in ms. A call whose answer never came (its
/// request cancelled) stops holding its copies back after this; they then call the object,
/// which answers them correctly anyway.
pub(crate) const IN_FLIGHT_MS: u64 = 2_000;

/// What the Worker does with a delivery, from what its isolate saw ([`SeenIds::check`]).
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum CopyCheck {
    /// Answer it so, as the object would: a copy of a recorded event.
    Answer(Said),
    /// Another delivery of the event is with its object: check again in this many ms.
    Wait(u64),
    /// Call the object; this delivery is now the one in flight.
    Call,
}

/// The answer labels of decisions that recorded the id just now. Not `duplicate`: that
/// record may be old, and close to the end of a retention period.
const RECORDED: [&str; 2] = [APPLIED, STALE];

/// Ids recorded by entity objects, as one isolate saw them answer.
#[derive(Debug, Default)]
pub struct SeenIds {
    at: HashMap<String, UnixSeconds>,
    order: VecDeque<String>,
    /// Deliveries with their object, and when (unix ms) the call began.
    calling: HashMap<String, u64>,
}

impl SeenIds {
    /// Whether a delivery of `id` to `object` at `now` is a copy of a recorded event, and
    /// can be answered `duplicate` without the object.
    #[must_use]
    pub fn is_recorded(&self, object: &str, id: &EventId, now: UnixSeconds) -> bool {
        self.recorded(&key(object, id), now)
    }

    fn recorded(&self, key: &str, now: UnixSeconds) -> bool {
        self.at
            .get(key)
            .is_some_and(|&seen| now < seen.plus(SEEN_TTL))
    }

    /// What to do with a delivery of `id` to `object` at `now_ms` (unix ms), which its
    /// source handles by `plan`: answer it, wait for another delivery of it that is with
    /// the object, or call the object. On [`CopyCheck::Call`] the caller must report the
    /// call's end, [`SeenIds::answered`] or [`SeenIds::abandoned`].
    ///
    /// Under [`Plan::Claim`] a copy is never held back: the object answers it at once with
    /// `409` and `Retry-After` while the destination is called, which can take seconds.
    pub fn check(&mut self, object: &str, id: &EventId, plan: Plan, now_ms: u64) -> CopyCheck {
        let now = UnixSeconds(i64::try_from(now_ms / 1000).unwrap_or(i64::MAX));
        let key = key(object, id);
        if self.recorded(&key, now) {
            // `Decision::Duplicate`'s label, as the object would answer.
            return CopyCheck::Answer(Said::Duplicate);
        }
        if matches!(plan, Plan::Claim { .. }) {
            return CopyCheck::Call;
        }
        match self.calling.get(&key) {
            Some(&began) if now_ms < began.saturating_add(IN_FLIGHT_MS) => {
                CopyCheck::Wait(COPY_POLL_MS)
            }
            _ => {
                if self.calling.len() >= SEEN_MAX {
                    self.calling
                        .retain(|_, began| now_ms < began.saturating_add(IN_FLIGHT_MS));
                }
                self.calling.insert(key, now_ms);
                CopyCheck::Call
            }
        }
    }

    /// A call that [`SeenIds::check`] let through ended without an answer.
    pub fn abandoned(&mut self, object: &str, id: &EventId) {
        self.calling.remove(&key(object, id));
    }

    /// Notes the object's answer to a delivery of `id`: its status and outcome label.
    pub fn answered(
        &mut self,
        object: &str,
        id: &EventId,
        status: u16,
        outcome: &str,
        now: UnixSeconds,
    ) {
        let key = key(object, id);
        self.calling.remove(&key);
        if status != 200 || !RECORDED.contains(&outcome) {
            return;
        }
        if self.at.insert(key.clone(), now).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > SEEN_MAX {
            if let Some(old) = self.order.pop_front() {
                self.at.remove(&old);
            }
        }
    }

    /// How many ids are remembered.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }
}

fn key(object: &str, id: &EventId) -> String {
    // The object name cannot contain a NUL (names are percent-encoded).
    format!("{object}\0{}", id.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> EventId {
        EventId::new(s).unwrap()
    }

    const T: UnixSeconds = UnixSeconds(1_791_270_400);

    #[test]
    fn only_a_recorded_answer_lets_the_edge_answer_a_copy() {
        let mut s = SeenIds::default();
        for (status, outcome) in [
            (409, "in_flight"),
            (502, "released"),
            (200, "claimed"),
            (200, "duplicate"),
            (503, ""),
        ] {
            s.answered("cockpit/e/ch_1", &id("evt_1"), status, outcome, T);
            assert!(
                !s.is_recorded("cockpit/e/ch_1", &id("evt_1"), T),
                "{status} {outcome}"
            );
        }
        for outcome in ["applied", "stale"] {
            let e = id(&format!("evt_{outcome}"));
            s.answered("cockpit/e/ch_1", &e, 200, outcome, T);
            assert!(s.is_recorded("cockpit/e/ch_1", &e, T), "{outcome}");
        }
    }

    #[test]
    fn an_id_is_recorded_per_object_and_for_a_while() {
        let mut s = SeenIds::default();
        s.answered("cockpit/e/ch_1", &id("evt_1"), 200, "applied", T);
        assert!(
            !s.is_recorded("cockpit/e/ch_2", &id("evt_1"), T),
            "another entity's object"
        );
        assert!(
            !s.is_recorded("other/e/ch_1", &id("evt_1"), T),
            "another source"
        );
        assert!(s.is_recorded("cockpit/e/ch_1", &id("evt_1"), T.plus(Seconds(599))));
        assert!(!s.is_recorded("cockpit/e/ch_1", &id("evt_1"), T.plus(SEEN_TTL)));
    }

    #[test]
    fn the_oldest_ids_are_forgotten_beyond_the_bound() {
        let mut s = SeenIds::default();
        for n in 0..SEEN_MAX + 5 {
            s.answered("o", &id(&format!("evt_{n}")), 200, "applied", T);
        }
        // Answering again does not add an entry.
        s.answered("o", &id("evt_9"), 200, "applied", T);
        assert_eq!(s.len(), SEEN_MAX);
        assert!(!s.is_recorded("o", &id("evt_4"), T));
        assert!(s.is_recorded("o", &id("evt_5"), T));
        assert!(s.is_recorded("o", &id(&format!("evt_{}", SEEN_MAX + 4)), T));
    }

    const MS: u64 = T.0 as u64 * 1000;
    const APPLY: Plan = Plan::Apply { forward: true };

    #[test]
    fn a_copy_of_a_synchronously_forwarded_event_is_never_held_back() {
        let mut s = SeenIds::default();
        let (o, e) = ("cockpit/e/ch_1", id("evt_1"));
        let claim = Plan::Claim { lease: Seconds(30) };
        assert_eq!(s.check(o, &e, claim, MS), CopyCheck::Call);
        assert_eq!(s.check(o, &e, claim, MS + 1), CopyCheck::Call);
        s.answered(o, &e, 200, "applied", T);
        assert_eq!(
            s.check(o, &e, claim, MS + 2),
            CopyCheck::Answer(Said::Duplicate)
        );
    }

    #[test]
    fn a_copy_arriving_while_its_twin_is_with_the_object_waits_then_is_answered() {
        let mut s = SeenIds::default();
        let (o, e) = ("cockpit/e/ch_1", id("evt_1"));
        assert_eq!(s.check(o, &e, APPLY, MS), CopyCheck::Call);
        assert_eq!(s.check(o, &e, APPLY, MS + 1), CopyCheck::Wait(COPY_POLL_MS));
        assert_eq!(
            s.check(o, &id("evt_2"), APPLY, MS + 1),
            CopyCheck::Call,
            "another event"
        );
        assert_eq!(
            s.check("cockpit/e/ch_2", &e, APPLY, MS + 1),
            CopyCheck::Call,
            "another object"
        );
        s.answered(o, &e, 200, "applied", T);
        assert_eq!(
            s.check(o, &e, APPLY, MS + 3),
            CopyCheck::Answer(Said::Duplicate)
        );
    }

    #[test]
    fn a_copy_calls_the_object_itself_when_its_twin_got_no_recorded_answer() {
        let mut s = SeenIds::default();
        let (o, e) = ("cockpit/e/ch_1", id("evt_1"));
        assert_eq!(s.check(o, &e, APPLY, MS), CopyCheck::Call);
        s.answered(o, &e, 409, "in_flight", T);
        assert_eq!(s.check(o, &e, APPLY, MS + 2), CopyCheck::Call);
        assert_eq!(
            s.check(o, &e, APPLY, MS + 3),
            CopyCheck::Wait(COPY_POLL_MS),
            "the new call holds back the next copy"
        );
        s.abandoned(o, &e);
        assert_eq!(s.check(o, &e, APPLY, MS + 4), CopyCheck::Call);
    }

    #[test]
    fn a_call_whose_answer_never_came_stops_holding_copies_back() {
        let mut s = SeenIds::default();
        let (o, e) = ("cockpit/e/ch_1", id("evt_1"));
        assert_eq!(s.check(o, &e, APPLY, MS), CopyCheck::Call);
        assert_eq!(
            s.check(o, &e, APPLY, MS + IN_FLIGHT_MS - 1),
            CopyCheck::Wait(COPY_POLL_MS)
        );
        assert_eq!(s.check(o, &e, APPLY, MS + IN_FLIGHT_MS), CopyCheck::Call);
    }

    #[test]
    fn calls_whose_answers_never_came_are_forgotten_beyond_the_bound() {
        let mut s = SeenIds::default();
        for n in 0..SEEN_MAX {
            assert_eq!(
                s.check("o", &id(&format!("evt_{n}")), APPLY, MS),
                CopyCheck::Call
            );
        }
        let later = MS + IN_FLIGHT_MS;
        assert_eq!(s.check("o", &id("evt_new"), APPLY, later), CopyCheck::Call);
        assert_eq!(s.calling.len(), 1, "the expired calls were dropped");
    }
}

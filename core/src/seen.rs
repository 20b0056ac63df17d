//! Event ids a Worker isolate has seen its entity objects record, so that a copy of a
//! recorded event is answered `duplicate` at the edge without waking the object.
//!
//! Sound because a record is never undone while the entry lives: the object answered
//! only after the id was durable (its output gate); only answers that recorded the id just
//! then are remembered, ids are kept at least [`MIN_RETENTION`](crate::MIN_RETENTION) (a
//! day) and an entry lives [`SEEN_TTL`]; and an entry is keyed by the object and the id, as
//! the object dedupes. Bounded: at most
//! [`SEEN_MAX`] entries, the oldest forgotten first; forgetting only costs a trip to the
//! object, which answers the same.

use std::collections::{HashMap, VecDeque};

use crate::decide::{APPLIED, DUPLICATE, STALE};
use crate::event::EventId;
use crate::time::{Seconds, UnixSeconds};

/// How long an isolate trusts what it saw: far below the shortest id retention.
pub const SEEN_TTL: Seconds = Seconds(600);
/// The most ids an isolate remembers (about 1 MB at 100 bytes each).
pub const SEEN_MAX: usize = 10_000;

/// The answer labels of decisions that recorded the id just now. Not `duplicate`: that
/// record may be old, and close to the end of a retention period.
const RECORDED: [&str; 2] = [APPLIED, STALE];

/// Ids recorded by entity objects, as one isolate saw them answer.
#[derive(Debug, Default)]
pub struct SeenIds {
    at: HashMap<String, UnixSeconds>,
    order: VecDeque<String>,
}

impl SeenIds {
    /// Whether a delivery of `id` to `object` at `now` is a copy of a recorded event, and
    /// can be answered `duplicate` without the object.
    #[must_use]
    pub fn is_recorded(&self, object: &str, id: &EventId, now: UnixSeconds) -> bool {
        self.at
            .get(&key(object, id))
            .is_some_and(|&seen| now < seen.plus(SEEN_TTL))
    }

    /// The answer label for a delivery of `id` to `object` at `now` that the edge can give
    /// itself (`Decision::Duplicate`'s), or `None` when the object must decide.
    #[must_use]
    pub fn answer_copy(
        &self,
        object: &str,
        id: &EventId,
        now: UnixSeconds,
    ) -> Option<&'static str> {
        self.is_recorded(object, id, now).then_some(DUPLICATE)
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
        if status != 200 || !RECORDED.contains(&outcome) {
            return;
        }
        let key = key(object, id);
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
}

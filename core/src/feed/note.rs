//! What the feed is told and what its rows say.

use serde::{Deserialize, Serialize};

/// What a feed row reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FeedOutcome {
    /// A new event, applied.
    Applied,
    /// A copy of an event seen before; nothing written.
    Duplicate,
    /// Older than the entity's state; recorded, not applied.
    Stale,
    /// Refused before it reached an entity: signature, parse or size.
    Rejected,
}

impl FeedOutcome {
    /// The stored and reported name.
    pub fn as_str(self) -> &'static str {
        match self {
            FeedOutcome::Applied => "applied",
            FeedOutcome::Duplicate => "duplicate",
            FeedOutcome::Stale => "stale",
            FeedOutcome::Rejected => "rejected",
        }
    }

    /// Reads a name back.
    pub fn parse(s: &str) -> Option<FeedOutcome> {
        [
            FeedOutcome::Applied,
            FeedOutcome::Duplicate,
            FeedOutcome::Stale,
            FeedOutcome::Rejected,
        ]
        .into_iter()
        .find(|o| o.as_str() == s)
    }
}

/// What an entity object or the Worker tells a source's feed, after it has answered.
///
/// On the wire it is externally tagged (`{"delivery": {…}}`): an internally tagged enum
/// is read through serde's buffering `Content` deserializer, a second copy of every
/// field's deserializer (15.7 KB of wasm, 5.5 KB gzipped).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Note {
    /// A delivery reached a decision.
    Delivery {
        /// The event id.
        event_id: String,
        /// The event type.
        event_type: String,
        /// The entity, if the event has one.
        entity: Option<String>,
        /// Applied, duplicate or stale.
        outcome: FeedOutcome,
        /// Rows the decision wrote.
        rows_written: u32,
        /// When it arrived, unix seconds.
        received_at: i64,
    },
    /// A delivery refused before any entity saw it. Never its body or its signature.
    Rejected {
        /// The status answered (400, 401, 413).
        status: u16,
        /// Why, as answered.
        reason: String,
        /// When it arrived, unix seconds.
        received_at: i64,
        /// Rejected requests the sender did not pass on before this one.
        skipped: u32,
    },
    /// An outbox row became a dead letter.
    Dead(DeadLetter),
    /// An admin put an entity's dead letters back in the queue.
    Requeued {
        /// The entity.
        entity: String,
        /// Only this destination's letters; `None`: all of the entity's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        destination: Option<String>,
        /// Only these events' letters; empty: all of them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        events: Vec<String>,
    },
    /// An alarm pass made forward attempts that came to this result (`/metrics` counts
    /// them; the feed keeps no row).
    Attempts {
        /// `metrics::attempt_result`'s label.
        result: String,
        /// How many.
        count: u32,
    },
    /// An alarm pass superseded this many of a destination's rows (`/metrics` counts
    /// them; the feed keeps no row).
    Superseded {
        /// The source's destination.
        destination: String,
        /// How many.
        count: u32,
    },
}

/// A dead letter, as noted and as kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadLetter {
    /// The entity, if the event has one.
    pub entity: Option<String>,
    /// The event id.
    pub event_id: String,
    /// The destination its row went to (`default` in a note from before names).
    #[serde(default = "default_destination")]
    pub destination: String,
    /// Attempts made.
    pub attempts: u32,
    /// The last attempt's result (cut to [`MAX_REASON`](super::MAX_REASON) bytes when kept).
    pub last_result: String,
    /// When it died, unix seconds.
    pub at: i64,
}

fn default_destination() -> String {
    crate::config::DEFAULT_DESTINATION.to_owned()
}

/// One row of the feed, as stored and as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedRow {
    /// Its position: newer rows have larger numbers.
    pub seq: i64,
    /// When the delivery arrived, unix seconds.
    pub received_at: i64,
    /// What came of it.
    pub outcome: FeedOutcome,
    /// The event id (absent for a rejected request).
    pub event_id: Option<String>,
    /// The event type (absent for a rejected request).
    pub event_type: Option<String>,
    /// The entity.
    pub entity: Option<String>,
    /// Rows the decision wrote.
    pub rows_written: u32,
    /// A rejected request's status.
    pub status: Option<u16>,
    /// A rejected request's reason.
    pub reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feed::admit::tests::{delivery, rejected, NOW};

    #[test]
    fn notes_travel_as_json() {
        for note in [delivery(1), rejected(1)] {
            let text = serde_json::to_string(&note).unwrap();
            assert_eq!(serde_json::from_str::<Note>(&text).unwrap(), note);
        }
        assert!(serde_json::to_string(&delivery(1))
            .unwrap()
            .starts_with(r#"{"delivery":{"event_id":"#));
        let dead = Note::Dead(DeadLetter {
            entity: None,
            event_id: "evt_1".into(),
            destination: "billing".into(),
            attempts: 3,
            last_result: "503".into(),
            at: NOW.0,
        });
        let text = serde_json::to_string(&dead).unwrap();
        assert!(text.starts_with(r#"{"dead":{"entity":null,"#), "{text}");
        assert_eq!(serde_json::from_str::<Note>(&text).unwrap(), dead);
        // A note without a destination is the default's.
        let older = text.replace(r#""destination":"billing","#, "");
        let Note::Dead(d) = serde_json::from_str::<Note>(&older).unwrap() else {
            panic!("a dead letter");
        };
        assert_eq!(d.destination, "default");
    }
}

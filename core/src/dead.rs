//! Which dead letters an operator puts back in the queue: [`DeadFilter`], read from a
//! requeue's query and applied exactly to each [`DeadRow`] an entity object holds
//! (`entity::requeue`); the feed is asked only for the entities that may hold some
//! ([`DeadFilter::candidates`]).

use crate::filter::Filter;
use crate::page::{unix_param, QueryError};
use crate::percent::{encode_component, query_param};
use crate::sweep::Candidates;
use crate::time::UnixSeconds;

/// The longest `reason` a filter takes, in bytes.
pub const MAX_REASON_FILTER: usize = 200;

/// A dead row of an entity's outbox, as a requeue reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadRow {
    /// Its place in the queue.
    pub seq: i64,
    /// The event it sends.
    pub event_id: String,
    /// Its destination (`default` for rows that name none).
    pub destination: String,
    /// The event's type (empty if the event is not recorded).
    pub event_type: String,
    /// Its last attempt's result.
    pub reason: String,
    /// When it died, unix seconds.
    pub died_at: Option<i64>,
}

/// Which dead letters a requeue puts back: all of them by default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeadFilter {
    /// Only this destination's.
    pub destination: Option<String>,
    /// Only events of these types: `type`'s comma-separated patterns, as given.
    pub types: Option<String>,
    filter: Option<Filter>,
    /// Only rows that died at or after this.
    pub since: Option<UnixSeconds>,
    /// Only rows that died at or before this.
    pub until: Option<UnixSeconds>,
    /// Only rows whose last result contains this text.
    pub reason: Option<String>,
}

impl DeadFilter {
    /// Every dead letter of `destination`, or of every destination.
    #[must_use]
    pub fn of(destination: Option<String>) -> DeadFilter {
        DeadFilter {
            destination,
            ..DeadFilter::default()
        }
    }

    /// Reads `destination`, `type` (patterns as a destination's `types` takes them,
    /// comma-separated), `since` and `until` (unix seconds, `since` not after `until`) and
    /// `reason` (at most [`MAX_REASON_FILTER`] bytes).
    pub fn parse(query: &str) -> Result<DeadFilter, QueryError> {
        let get = |k| {
            query_param(query, k)
                .transpose()
                .map_err(|_| QueryError::Escape)
        };
        let destination = get("destination")?;
        if destination.as_deref() == Some("") {
            return Err(QueryError::Required("destination"));
        }
        let types = get("type")?;
        let filter = match &types {
            Some(t) => {
                Some(Filter::parse(t.split(',')).map_err(|e| QueryError::Pattern(e.to_string()))?)
            }
            None => None,
        };
        let (since, until) = (unix_param(query, "since")?, unix_param(query, "until")?);
        if let (Some(s), Some(u)) = (since, until) {
            if s > u {
                return Err(QueryError::Range);
            }
        }
        let reason = get("reason")?.filter(|r| !r.is_empty());
        if reason.as_ref().is_some_and(|r| r.len() > MAX_REASON_FILTER) {
            return Err(QueryError::TooLong("reason", MAX_REASON_FILTER));
        }
        Ok(DeadFilter {
            destination,
            types,
            filter,
            since,
            until,
            reason,
        })
    }

    /// The query string [`DeadFilter::parse`] reads back as `self`.
    #[must_use]
    pub fn to_query(&self) -> String {
        let since = self.since.map(|s| s.0.to_string());
        let until = self.until.map(|s| s.0.to_string());
        let params = [
            ("destination", self.destination.as_deref()),
            ("type", self.types.as_deref()),
            ("since", since.as_deref()),
            ("until", until.as_deref()),
            ("reason", self.reason.as_deref()),
        ];
        let given: Vec<String> = params
            .iter()
            .filter_map(|(k, v)| Some(format!("{k}={}", encode_component((*v)?))))
            .collect();
        given.join("&")
    }

    /// Whether it narrows beyond a destination: a type, a time or a reason.
    #[must_use]
    pub fn narrows(&self) -> bool {
        self.filter.is_some()
            || self.since.is_some()
            || self.until.is_some()
            || self.reason.is_some()
    }

    /// Whether `row` is one it puts back.
    #[must_use]
    pub fn admits(&self, row: &DeadRow) -> bool {
        let died = row.died_at.map(UnixSeconds);
        self.destination
            .as_deref()
            .is_none_or(|d| d == row.destination)
            && self
                .filter
                .as_ref()
                .is_none_or(|f| f.admits(&row.event_type))
            && self.since.is_none_or(|s| died.is_some_and(|d| d >= s))
            && self.until.is_none_or(|u| died.is_some_and(|d| d <= u))
            && self
                .reason
                .as_deref()
                .is_none_or(|r| row.reason.contains(r))
    }

    /// The entities of a source that may hold rows it puts back: by destination and time
    /// only (the feed knows no event types, and keeps reasons cut short).
    #[must_use]
    pub fn candidates(&self) -> Candidates {
        Candidates::Dead {
            destination: self.destination.clone(),
            since: self.since,
            until: self.until,
        }
    }
}

//! What a delivery's answer says, and its log line and feed note, whoever gives it: the
//! entity's object, or the Worker for a copy of an event it saw the object record
//! (core's `SeenIds`). One shape, so a provider and a reader cannot tell them apart.

use std::cell::RefCell;

use hookonce_core::event::Event;
use hookonce_core::feed::{FeedOutcome, Note};
use hookonce_core::log::{self, DecisionLog, LogLevel};
use hookonce_core::time::UnixSeconds;
use serde::Serialize;
use serde_json::json;
use worker::{web_sys, Result};

use crate::internal::OUTCOME_HEADER;
use crate::problem;
use crate::{clock, http, logs};

/// A decision's label (`Decision::label`) and the rows it wrote.
#[derive(Clone, Copy)]
pub struct Said {
    pub label: &'static str,
    pub rows_written: usize,
}

/// What a delivery's answer says, in the order a reader finds it (alphabetical, as the
/// problem documents' members are). Serialised straight from borrowed fields.
#[derive(Serialize)]
struct Answered<'a> {
    entity: Option<&'a str>,
    event_id: &'a str,
    event_type: &'a str,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after: Option<u64>,
    rows_written: usize,
    source: &'a str,
}

/// The answer to the provider: `200` for applied, duplicate and stale alike (a provider
/// must never retry a duplicate), `409` with `Retry-After` while the entity is held. As
/// the runtime's `Response`: the Worker passes it on unconverted.
pub fn respond(
    source: &str,
    event: &Event,
    said: Said,
    retry_after: Option<u64>,
) -> Result<web_sys::Response> {
    let body = Answered {
        entity: event.entity().map(|e| e.as_str()),
        event_id: event.id().as_str(),
        event_type: event.kind().as_str(),
        outcome: said.label,
        retry_after,
        rows_written: said.rows_written,
        source,
    };
    let Some(secs) = retry_after else {
        let headers = headers_of(said.label)?;
        return http::runtime_response(200, &serde_json::to_vec(&body)?, &headers);
    };
    let detail = format!("another event of this entity is being forwarded; retry in {secs} s");
    let resp = problem::IN_FLIGHT.respond_with(&detail, json!(body))?;
    let resp = http::with_header(resp, "retry-after", &secs.max(1).to_string())?;
    http::with_header(resp, OUTCOME_HEADER, said.label).map(Into::into)
}

thread_local! {
    /// A `200` answer's headers, per outcome label, made once. The runtime copies them
    /// into each `Response`. A list of pairs made for every answer instead is read back
    /// through the iterator protocol: in perf profiles of `unique`, the pairs and the
    /// `Response` constructor took about 50 us per event, against 17 us with these.
    static HEADERS: RefCell<Vec<(&'static str, web_sys::Headers)>> =
        const { RefCell::new(Vec::new()) };
}

/// The headers of a `200` answer labelled `label`.
fn headers_of(label: &'static str) -> Result<web_sys::Headers> {
    HEADERS.with(|made| {
        let mut made = made.borrow_mut();
        if let Some((_, headers)) = made.iter().find(|(l, _)| *l == label) {
            return Ok(headers.clone());
        }
        let headers = web_sys::Headers::new()?;
        headers.set("content-type", "application/json")?;
        headers.set(OUTCOME_HEADER, label)?;
        made.push((label, headers.clone()));
        Ok(headers)
    })
}

/// Logs the decision; the feed note for it, if the feed keeps such decisions.
pub fn report(
    log: LogLevel,
    source: &str,
    event: &Event,
    said: Said,
    received: UnixSeconds,
    started_ms: u64,
) -> Option<Note> {
    let entity = event.entity().map(|e| e.as_str());
    logs::emit(
        log,
        log::decision(&DecisionLog {
            source,
            event_id: event.id().as_str(),
            event_type: event.kind().as_str(),
            entity,
            outcome: said.label,
            rows_written: said.rows_written,
            duration_ms: clock::millis().saturating_sub(started_ms),
        }),
    );
    Some(Note::Delivery {
        event_id: event.id().as_str().to_owned(),
        event_type: event.kind().as_str().to_owned(),
        entity: entity.map(str::to_owned),
        outcome: FeedOutcome::of_decision(said.label)?,
        rows_written: u32::try_from(said.rows_written).unwrap_or(u32::MAX),
        received_at: received.0,
    })
}

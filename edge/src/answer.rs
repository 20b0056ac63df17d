//! What a delivery's answer says, and its log line and feed note, whoever gives it: the
//! entity's object, or the Worker for a copy of an event it saw the object record
//! (core's `SeenIds`). One shape, so a provider and a reader cannot tell them apart.

use std::cell::RefCell;

use hookonce_core::decide::Said;
use hookonce_core::entity::Report;
use hookonce_core::event::Event;
use hookonce_core::feed::Note;
use hookonce_core::log::{decision as decision_log, DecisionLog, LogLevel};
use hookonce_core::time::{Seconds, UnixSeconds};
use serde::Serialize;
use serde_json::json;
use worker::{web_sys, Result};

use crate::internal::OUTCOME_HEADER;
use crate::problem;
use crate::{clock, http, logs};

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
    rows_written: usize,
    retry_after: Option<Seconds>,
) -> Result<web_sys::Response> {
    let retry_after = retry_after.map(|s| s.0);
    let body = Answered {
        entity: event.entity().map(|e| e.as_str()),
        event_id: event.id().as_str(),
        event_type: event.kind().as_str(),
        outcome: said.as_str(),
        retry_after,
        rows_written,
        source,
    };
    let Some(secs) = retry_after else {
        let headers = headers_of(said)?;
        return http::runtime_response(200, &serde_json::to_vec(&body)?, &headers);
    };
    let detail = format!("another event of this entity is being forwarded; retry in {secs} s");
    let resp = problem::IN_FLIGHT.respond_with(&detail, json!(body))?;
    let resp = http::with_header(resp, "retry-after", &secs.max(1).to_string())?;
    http::with_header(resp, OUTCOME_HEADER, said.as_str()).map(Into::into)
}

thread_local! {
    /// A `200` answer's headers, per outcome label, made once. The runtime copies them
    /// into each `Response`. A list of pairs made for every answer instead is read back
    /// through the iterator protocol: in perf profiles of `unique`, the pairs and the
    /// `Response` constructor took about 50 us per event, against 17 us with these.
    static HEADERS: RefCell<Vec<(Said, web_sys::Headers)>> =
        const { RefCell::new(Vec::new()) };
}

/// The headers of a `200` answer that says `said`.
fn headers_of(said: Said) -> Result<web_sys::Headers> {
    HEADERS.with(|made| {
        let mut made = made.borrow_mut();
        if let Some((_, headers)) = made.iter().find(|(s, _)| *s == said) {
            return Ok(headers.clone());
        }
        let headers = web_sys::Headers::new()?;
        headers.set("content-type", "application/json")?;
        headers.set(OUTCOME_HEADER, said.as_str())?;
        made.push((said, headers.clone()));
        Ok(headers)
    })
}

/// Logs the decision; the feed note for it, if the feed keeps such decisions.
pub fn report(
    log: LogLevel,
    source: &str,
    event: &Event,
    report: Report,
    received: UnixSeconds,
    started_ms: u64,
) -> Option<Note> {
    let entity = event.entity().map(|e| e.as_str());
    logs::emit(
        log,
        decision_log(&DecisionLog {
            source,
            event_id: event.id().as_str(),
            event_type: event.kind().as_str(),
            entity,
            outcome: report.said.as_str(),
            rows_written: report.rows_written,
            duration_ms: clock::millis().saturating_sub(started_ms),
        }),
    );
    Some(Note::Delivery {
        event_id: event.id().as_str().to_owned(),
        event_type: event.kind().as_str().to_owned(),
        entity: entity.map(str::to_owned),
        outcome: report.feed?,
        rows_written: u32::try_from(report.rows_written).unwrap_or(u32::MAX),
        received_at: received.0,
    })
}

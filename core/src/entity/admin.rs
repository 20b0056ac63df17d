//! The admin requests an entity object serves that change or exercise it, as sequences
//! the adapter carries out like [`Ingest`](super::Ingest):
//! - [`Replay`] (`POST /admin/replay`): the kept body, signed afresh with the source's own
//!   secret as the provider's replay button would, through the whole pipeline (verify,
//!   parse, `Ingest`), with the entity's fingerprint before and after to show what it changed.
//!
//! A requeue of dead letters is [`super::requeue`]'s.

use crate::event::EventId;
use crate::sign;
use crate::time::UnixSeconds;
use crate::verify::{Headers, Scheme, Secret};

use super::Said;

/// What the adapter does next for a replay.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayCommand {
    /// Read the event's kept body and the headers to read it with; then
    /// [`ReplayInput::Body`].
    ReadBody,
    /// Read what the event came to, if it is recorded; then [`ReplayInput::Outcome`].
    ReadOutcome,
    /// Look up the object's source: its scheme and signing secret; then
    /// [`ReplayInput::Source`] (or answer the lookup's problem).
    LoadSource,
    /// Read the entity's fingerprint; then [`ReplayInput::Fingerprint`].
    Fingerprint,
    /// Deliver [`Replay::request`] through the whole pipeline; then
    /// [`ReplayInput::Delivered`].
    Deliver,
    /// Answer the replay: the end.
    Answer(ReplayAnswer),
}

/// How a replay is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayAnswer {
    /// `200`: what the delivery came to, and whether it changed the entity.
    Replayed {
        /// What it said; `None` for a delivery refused before a decision.
        said: Option<Said>,
        /// The delivery's HTTP status.
        status: u16,
        /// Whether the entity's fingerprint moved.
        changed: bool,
    },
    /// `404`: no body to replay, and why.
    NoBody(String),
    /// `500`: the kept headers do not read back.
    Unreadable,
}

/// What a replay command came to.
#[derive(Debug)]
pub enum ReplayInput<'s> {
    /// What [`ReplayCommand::ReadBody`] found: the headers (a JSON object, if any were
    /// needed) and the body.
    Body(Option<(Option<String>, Vec<u8>)>),
    /// What [`ReplayCommand::ReadOutcome`] found.
    Outcome(Option<String>),
    /// The source [`ReplayCommand::LoadSource`] found, and the clock to sign at.
    Source {
        /// Its signature scheme.
        scheme: &'s Scheme,
        /// Its own (first) secret.
        secret: &'s Secret,
        /// The signature's time.
        now: UnixSeconds,
    },
    /// What [`ReplayCommand::Fingerprint`] read.
    Fingerprint(String),
    /// What [`ReplayCommand::Deliver`] came to.
    Delivered {
        /// Its HTTP status.
        status: u16,
        /// What it said.
        said: Option<Said>,
    },
}

#[derive(Debug)]
enum Step {
    Body,
    Outcome,
    Source(Option<String>),
    Before,
    Delivering,
    After(Option<Said>, u16),
    Done,
}

/// One replay of event `id`.
#[derive(Debug)]
pub struct Replay<'a> {
    id: &'a EventId,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    before: String,
    step: Step,
}

impl<'a> Replay<'a> {
    /// A replay of `id`, and its first command.
    pub fn start(id: &'a EventId) -> (Replay<'a>, ReplayCommand) {
        let replay = Replay {
            id,
            headers: Vec::new(),
            body: Vec::new(),
            before: String::new(),
            step: Step::Body,
        };
        (replay, ReplayCommand::ReadBody)
    }

    /// The request [`ReplayCommand::Deliver`] delivers: its headers and body.
    #[must_use]
    pub fn request(&self) -> (&[(String, String)], &[u8]) {
        (&self.headers, &self.body)
    }

    /// What follows `input`.
    pub fn handle(&mut self, input: ReplayInput<'_>) -> ReplayCommand {
        let id = self.id;
        match (std::mem::replace(&mut self.step, Step::Done), input) {
            (Step::Body, ReplayInput::Body(None)) => {
                self.step = Step::Outcome;
                ReplayCommand::ReadOutcome
            }
            (Step::Body, ReplayInput::Body(Some((headers, body)))) => {
                self.body = body;
                self.step = Step::Source(headers);
                ReplayCommand::LoadSource
            }
            (Step::Outcome, ReplayInput::Outcome(seen)) => {
                ReplayCommand::Answer(ReplayAnswer::NoBody(match seen {
                    None => format!("no stored body for event {id}: this entity has not seen it"),
                    Some(outcome) => format!(
                        "no stored body for event {id}: it was {outcome} here, but its body is \
                         no longer kept (bodies are kept for the source's body_retention_secs; \
                         stale events keep none), so there is nothing to replay; its id is \
                         kept, so a redelivery is still a duplicate"
                    ),
                }))
            }
            (
                Step::Source(kept),
                ReplayInput::Source {
                    scheme,
                    secret,
                    now,
                },
            ) => {
                let Some(mut headers) = read_headers(kept.as_deref().unwrap_or("{}")) else {
                    return ReplayCommand::Answer(ReplayAnswer::Unreadable);
                };
                // Standard Webhooks signs the `webhook-id`: the one kept, else the event id.
                let webhook_id = headers
                    .header("webhook-id")
                    .unwrap_or(id.as_str())
                    .to_owned();
                for (name, value) in sign::headers(scheme, secret, &webhook_id, now, &self.body) {
                    headers.retain(|(k, _)| k != name);
                    headers.push((name.to_owned(), value));
                }
                self.headers = headers;
                self.step = Step::Before;
                ReplayCommand::Fingerprint
            }
            (Step::Before, ReplayInput::Fingerprint(before)) => {
                self.before = before;
                self.step = Step::Delivering;
                ReplayCommand::Deliver
            }
            (Step::Delivering, ReplayInput::Delivered { status, said }) => {
                self.step = Step::After(said, status);
                ReplayCommand::Fingerprint
            }
            (Step::After(said, status), ReplayInput::Fingerprint(after)) => {
                ReplayCommand::Answer(ReplayAnswer::Replayed {
                    said,
                    status,
                    changed: after != self.before,
                })
            }
            _ => ReplayCommand::Answer(ReplayAnswer::Unreadable),
        }
    }
}

/// Kept headers (a JSON object of strings) as a request's; `None` when they do not read.
fn read_headers(json: &str) -> Option<Vec<(String, String)>> {
    let map = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json).ok()?;
    Some(
        map.into_iter()
            .filter_map(|(k, v)| Some((k, v.as_str()?.to_owned())))
            .collect(),
    )
}

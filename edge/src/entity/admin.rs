//! The admin operations an entity object serves: core's `Replay`, `Requeue`, `Redeliver`
//! and `Backfill`, each carried out one IO per command.

use hookonce_core::decide::Said;
use hookonce_core::entity::admin::{Replay, ReplayAnswer, ReplayCommand, ReplayInput};
use hookonce_core::entity::requeue::{DeadFilter, Requeue, RequeueCommand, RequeueInput};
use hookonce_core::entity::resend::{
    Backfill, Redeliver, ResendAnswer, ResendCommand, ResendInput,
};
use hookonce_core::event::EventId;
use hookonce_core::names::{entity_of, source_of};
use hookonce_core::time::UnixSeconds;
use serde_json::json;
use worker::{Response, Result};

use super::EntityObject;
use crate::problem::{self, json_response};
use crate::sources;
use crate::store::outbox as outbox_store;
use crate::{clock, outbox};

impl EntityObject {
    /// Runs a stored event through the whole pipeline again, freshly signed with the
    /// source's own secret, as the provider's replay button would: core's `Replay`, one IO
    /// per command.
    pub(super) async fn replay(&self, id: &EventId) -> Result<Response> {
        let name = self.state.id().name().unwrap_or_default();
        let config = sources::load(&self.env);
        let mut found = None;
        let (mut replay, mut command) = Replay::start(id);
        loop {
            command = match command {
                ReplayCommand::ReadBody => {
                    replay.handle(ReplayInput::Body(self.store.body_of(id)?))
                }
                ReplayCommand::ReadOutcome => {
                    replay.handle(ReplayInput::Outcome(self.store.outcome(id)?))
                }
                ReplayCommand::LoadSource => {
                    let (_, source) = match sources::lookup(&config, source_of(&name).unwrap_or(""))
                    {
                        Ok(looked_up) => found.insert(looked_up),
                        Err(problem) => return problem,
                    };
                    replay.handle(ReplayInput::Source {
                        scheme: &source.config.scheme,
                        secret: &source.signer,
                        now: clock::now(),
                    })
                }
                ReplayCommand::Fingerprint => {
                    replay.handle(ReplayInput::Fingerprint(self.store.fingerprint()?))
                }
                ReplayCommand::Deliver => {
                    let Some((loaded, source)) = found else {
                        return problem::INTERNAL.respond("a replay delivered without its source");
                    };
                    let (headers, body) = replay.request();
                    let (resp, said) = self.pipeline(loaded, source, headers, body).await?;
                    let status = resp.status();
                    replay.handle(ReplayInput::Delivered { status, said })
                }
                ReplayCommand::Answer(ReplayAnswer::Replayed {
                    said,
                    status,
                    changed,
                }) => {
                    let body = json!({
                        "event_id": id.as_str(),
                        "outcome": said.map_or("", Said::as_str),
                        "status": status,
                        "changed": changed,
                    });
                    return json_response(200, &body, "application/json");
                }
                ReplayCommand::Answer(ReplayAnswer::NoBody(detail)) => {
                    return problem::NOT_FOUND.respond(detail)
                }
                ReplayCommand::Answer(ReplayAnswer::Unreadable) => {
                    return problem::INTERNAL.respond("stored headers are unreadable")
                }
            };
        }
    }

    /// `POST /admin/outbox/…/retry` (`full` false: the answer says what was requeued and
    /// skipped) and each entity of `POST /admin/requeue/{source}` (`full`: core's whole
    /// `Requeued`): core's `Requeue`, one IO per command.
    pub(super) async fn requeue(
        &self,
        filter: &DeadFilter,
        dry_run: bool,
        full: bool,
    ) -> Result<Response> {
        let name = self.state.id().name().unwrap_or_default();
        let queue = self.store.has_outbox();
        let now = clock::now();
        let config = sources::load(&self.env);
        let (loaded, source) = match sources::lookup(&config, source_of(&name).unwrap_or("")) {
            Ok(found) => found,
            Err(problem) => return problem,
        };
        let configured: Vec<&str> = source
            .config
            .destinations
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        let (mut requeue, mut command) = Requeue::start(
            source_of(&name),
            entity_of(&name),
            queue,
            now,
            filter,
            dry_run,
            &configured,
        );
        let sql = self.store.sql();
        loop {
            command = match command {
                RequeueCommand::ReadDead => {
                    requeue.handle(RequeueInput::Dead(outbox_store::dead_rows(sql)?))
                }
                RequeueCommand::Requeue { seqs, at, .. } => {
                    let n = outbox_store::requeue_rows(sql, &seqs, at)?;
                    requeue.handle(RequeueInput::Requeued(n))
                }
                RequeueCommand::SetAlarm(at) => {
                    outbox::ensure_alarm(&self.state, &self.armed, at).await?;
                    requeue.handle(RequeueInput::AlarmSet)
                }
                RequeueCommand::Note { source, note } => {
                    self.note(source.to_owned(), note, loaded.log);
                    requeue.handle(RequeueInput::Noted)
                }
                RequeueCommand::Answer(answer) if full => {
                    return json_response(200, &json!(answer), "application/json");
                }
                RequeueCommand::Answer(answer) => {
                    let body = json!({ "requeued": answer.requeued, "skipped": answer.skipped });
                    return json_response(200, &body, "application/json");
                }
            };
        }
    }

    /// `POST /admin/redeliver`: core's `Redeliver`, carried out by [`Self::resend`].
    pub(super) async fn redeliver(&self, id: &EventId, only: Option<&str>) -> Result<Response> {
        let name = self.state.id().name().unwrap_or_default();
        let config = sources::load(&self.env);
        let source = match sources::lookup(&config, source_of(&name).unwrap_or("")) {
            Ok((_, source)) => source,
            Err(problem) => return problem,
        };
        let destinations = &source.config.destinations;
        let (mut redeliver, first) =
            Redeliver::start(id.as_str(), only, destinations, clock::now());
        let source = &source.config.name;
        self.resend(source, id.as_str(), first, |input| redeliver.handle(input))
            .await
    }

    /// `POST /admin/backfill`: core's `Backfill`, carried out by [`Self::resend`].
    pub(super) async fn backfill(&self, destination: &str, since: UnixSeconds) -> Result<Response> {
        let name = self.state.id().name().unwrap_or_default();
        let config = sources::load(&self.env);
        let source = match sources::lookup(&config, source_of(&name).unwrap_or("")) {
            Ok((_, source)) => source,
            Err(problem) => return problem,
        };
        let Some(to) = source.config.destination(destination) else {
            let detail = format!(
                "source {} has no destination named {destination:?}",
                source.config.name
            );
            return problem::UNKNOWN_DESTINATION.respond(detail);
        };
        let (mut backfill, first) = Backfill::start(to, since, clock::now());
        self.resend(&source.config.name, "", first, |input| {
            backfill.handle(input)
        })
        .await
    }

    /// A redelivery's (of `event`) or a backfill's commands, one IO each; the reads and
    /// writes run with no `.await` between them, the alarm after.
    async fn resend<'a>(
        &self,
        source: &str,
        event: &str,
        mut command: ResendCommand<'a>,
        mut handle: impl FnMut(ResendInput) -> ResendCommand<'a>,
    ) -> Result<Response> {
        let sql = self.store.sql();
        loop {
            command = match command {
                ResendCommand::ReadEvent => {
                    handle(ResendInput::Event(outbox_store::kept_event_of(sql, event)?))
                }
                ResendCommand::ReadSince { destination, since } => handle(ResendInput::Events(
                    outbox_store::kept_since(sql, destination, since)?,
                )),
                ResendCommand::Enqueue {
                    event_id,
                    destination,
                    at,
                } => {
                    self.store.make_outbox()?;
                    let seq = outbox_store::enqueue_kept(sql, &event_id, source, destination, at)?;
                    handle(ResendInput::Enqueued(seq))
                }
                ResendCommand::MoveBehind {
                    destination,
                    before,
                } => handle(ResendInput::Moved(outbox_store::move_behind(
                    sql,
                    destination,
                    before,
                )?)),
                ResendCommand::SetAlarm(at) => {
                    outbox::ensure_alarm(&self.state, &self.armed, at).await?;
                    handle(ResendInput::AlarmSet)
                }
                ResendCommand::Answer(answer) => return resent(answer),
            };
        }
    }
}

/// How a redelivery or a backfill is answered.
fn resent(answer: ResendAnswer) -> Result<Response> {
    let body = match answer {
        ResendAnswer::Redelivered(destinations) => json!({
            "enqueued": destinations.len(),
            "destinations": destinations,
        }),
        ResendAnswer::Backfilled(b) => json!({
            "enqueued": b.enqueued,
            "moved_behind": b.moved_behind,
            "skipped_pruned": b.skipped_pruned,
            "skipped_present": b.skipped_present,
            "skipped_filtered": b.skipped_filtered,
        }),
        ResendAnswer::NoBody(detail) => return problem::NOT_FOUND.respond(detail),
        ResendAnswer::Refused(detail) => return problem::NOT_SENDABLE.respond(detail),
        ResendAnswer::OutOfStep => return problem::INTERNAL.respond("a resend went out of step"),
    };
    json_response(200, &body, "application/json")
}

//! The Durable Object that owns one entity: its processed ids, state, ledger, claim and
//! outbox, kept in its store (`store::entity`).
//!
//! The Worker verified and parsed each delivery and hands over the event (core's
//! `handoff::decode`); an admin replay verifies and parses here. Then core's `Ingest`
//! sequences the delivery, and read → decide → write runs with no `.await` between the
//! reads and the writes, and the writes as one
//! statement (an event's usual rows, through the `event_rows` view's trigger) or in one
//! `transactionSync`, so two copies of an event can never both pass the check, and a
//! crash leaves all or nothing.

use std::cell::RefCell;

use hookonce_core::decide::{Delivery, Plan, Said};
use hookonce_core::entity::requeue::DeadFilter;
use hookonce_core::entity::upkeep::{self, Command as Step, Input as Done, Upkeep};
use hookonce_core::entity::{feed_outcome, Answer, Command, Ingest, Input, Known, Report};
use hookonce_core::event::{Event, EventId, Version};
use hookonce_core::feed::Note;
use hookonce_core::forward::Outgoing;
use hookonce_core::gate::{Answer as GateAnswer, Request as GateRequest};
use hookonce_core::handoff;
use hookonce_core::log::LogLevel;
use hookonce_core::metrics::OutboxSnapshot;
use hookonce_core::names::{entity_of, object_kind, source_of, ObjectKind};
use hookonce_core::outbox::target as outbox_target;
use hookonce_core::page::{flag_param, EntityCursor, ENTITY_EVENTS, ENTITY_OUTBOX};
use hookonce_core::retry::AttemptResult;
use hookonce_core::route::split_url;
use hookonce_core::time::UnixSeconds;
use serde_json::{json, Value};
use worker::{web_sys, Env, Response, Result, State};

mod admin;

use crate::bucket::{self, Gate};
use crate::internal::{FeedOp, Op, FEED_BINDING, OUTCOME_HEADER};
use crate::problem::{self, json_response};
use crate::send;
use crate::sources::{self, Loaded, Source};
use crate::store::entity::EntityStore;
use crate::store::outbox::{self as outbox_store, OutboxRow};
use crate::store::reads::Page;
use crate::task::export_object;
use crate::{answer, clock, gate, http, logs, notes, outbox};

export_object!(EntityObjectClass as "EntityObject" for EntityObject, alarm);

pub struct EntityObject {
    state: State,
    env: Env,
    armed: outbox::Armed,
    runs: outbox::Runs,
    /// Its storage, and what it knows of it without a read.
    store: EntityStore,
    /// A bucket's record of its source's buckets, once read.
    bucket: bucket::Known,
    /// What this object last told its feed of its outbox rows (`report_outbox`); a new
    /// object's feed knows it has none.
    reported: RefCell<Option<OutboxSnapshot>>,
}

impl EntityObject {
    fn new(state: State, env: Env) -> Self {
        let name = state.id().name().unwrap_or_default();
        let per_event = matches!(object_kind(&name), Some(ObjectKind::PerEvent(_)));
        // Schema first, before any request can read.
        let (store, opened) = EntityStore::open(&state, per_event);
        let object = Self {
            state,
            env,
            armed: outbox::Armed::default(),
            runs: outbox::Runs::default(),
            store,
            bucket: bucket::Known::default(),
            reported: RefCell::new(opened.fresh.then(OutboxSnapshot::default)),
        };
        if object.store.absent() {
            return object;
        }
        // A fresh object has nothing to re-arm; an older one reads its outbox for it, if
        // it has one: most entities never queue a row, and their restarts neither read an
        // outbox nor make the placeholder views (three statements of DDL) for that read.
        if !opened.fresh && opened.queue {
            if let Err(e) = object.store.readable() {
                worker::console_error!("hookonce: making the placeholder views failed: {e}");
            }
        }
        let held = Some(outbox_store::HOLDS_ROWS);
        outbox::rearm_on_start(&object.state, &object.armed, held, &opened);
        object
    }

    /// A delivery's answer is made as the runtime's `Response`; the rest are converted.
    async fn fetch(&self, req: web_sys::Request) -> Result<web_sys::Response> {
        let url = req.url();
        let (path, query) = split_url(&url);
        let Some(op) = Op::parse(path, query) else {
            return problem::NOT_FOUND
                .respond("no such entity operation")
                .map(Into::into);
        };
        if self.store.absent() {
            if op != Op::Ingest {
                return problem::NOT_FOUND
                    .respond("no event was recorded here")
                    .map(Into::into);
            }
            self.store.make(&self.state);
        }
        // A delivery reads the ledger or the claim only when it needs them (core's `Reads`); every
        // other operation may read any of the three.
        if !matches!(op, Op::Ingest | Op::Buckets(_)) {
            self.store.readable()?;
        }
        let id = |raw: &str| EventId::new(raw).ok_or("the event id is empty or too long");
        let made = match op {
            Op::Ingest => return self.ingest(&req).await,
            Op::Entity(before) => match before.as_deref().map(EntityCursor::decode).transpose() {
                Ok(before) => self.entity(before.as_ref()),
                Err(e) => problem::BAD_REQUEST.respond(e),
            },
            Op::Event(raw) => match id(&raw) {
                Ok(id) => self.event(&id),
                Err(e) => problem::BAD_REQUEST.respond(e),
            },
            Op::RetryDead(destination) => {
                let filter = DeadFilter::of(destination);
                self.requeue(&filter, false, false).await
            }
            Op::Requeue(query) => {
                match (DeadFilter::parse(&query), flag_param(&query, "dry_run")) {
                    (Ok(filter), Ok(dry_run)) => self.requeue(&filter, dry_run, true).await,
                    (Err(e), _) | (_, Err(e)) => problem::BAD_REQUEST.respond(e),
                }
            }
            Op::Replay(raw) => match id(&raw) {
                Ok(id) => self.replay(&id).await,
                Err(e) => problem::BAD_REQUEST.respond(e),
            },
            Op::Redeliver(raw, destination) => match id(&raw) {
                Ok(id) => self.redeliver(&id, destination.as_deref()).await,
                Err(e) => problem::BAD_REQUEST.respond(e),
            },
            Op::Backfill(destination, since) => {
                self.backfill(&destination, UnixSeconds(since)).await
            }
            Op::Buckets(count) => bucket::record(&self.state, count),
            Op::Wake => {
                outbox::ensure_alarm(&self.state, &self.armed, clock::now()).await?;
                Response::ok("woken")
            }
        };
        made.map(Into::into)
    }

    async fn alarm(&self) -> Result<Response> {
        if self.store.absent() {
            return Response::ok("nothing here");
        }
        self.store.readable()?;
        let started = clock::now();
        let mut attempts = Vec::new();
        let config = outbox::on_alarm(
            &self.state,
            &self.armed,
            &self.runs,
            &self.env,
            &mut attempts,
        )
        .await?;
        let Some(Ok(loaded)) = config.as_deref() else {
            return Response::ok("done");
        };
        let name = self.state.id().name().unwrap_or_default();
        let source = source_of(&name);
        let reported = self.reported.borrow().clone();
        let object = upkeep::Object {
            source,
            entity: entity_of(&name),
            lifetimes: source
                .and_then(|s| loaded.source(s))
                .map(|s| s.config.lifetimes()),
            reported: reported.as_ref(),
        };
        let sql = self.store.sql();
        let mut pass = Upkeep::new(object, started, clock::now(), attempts);
        let mut command = pass.start();
        // Core's `Upkeep` carried out, one IO per command.
        loop {
            command = match command {
                Step::ReadDead { since } => {
                    pass.handle(Done::Dead(outbox_store::dead_since(sql, since)?))
                }
                Step::Note { source, note } => {
                    self.note(source.to_owned(), note, loaded.log);
                    pass.handle(Done::Noted)
                }
                Step::ReadKept => pass.handle(Done::Kept(outbox_store::kept(sql)?)),
                Step::Prune(p) => pass.handle(Done::Pruned(outbox_store::prune(sql, p)?)),
                Step::SetAlarm(at) => {
                    outbox::ensure_alarm(&self.state, &self.armed, at).await?;
                    pass.handle(Done::AlarmSet)
                }
                Step::ReadOutbox => {
                    let rows = outbox_store::outbox_rows(sql)?;
                    let table = self.store.has_outbox();
                    pass.handle(Done::Outbox { rows, table })
                }
                Step::TellFeed { source, rows } => {
                    pass.handle(Done::Told(self.tell_feed(source, &name, &rows).await))
                }
                Step::Remember(rows) => {
                    *self.reported.borrow_mut() = Some(rows);
                    pass.handle(Done::Remembered)
                }
                Step::Log(record) => {
                    logs::emit(loaded.log, record);
                    pass.handle(Done::Logged)
                }
                Step::Done => return Response::ok("done"),
            };
        }
    }
}

/// A failpoint for the test that a panic answers the requests in flight: set when
/// `HOOKONCE_PANIC_PROBE` was in the environment at compile time (`make test` builds
/// `target/probe-build` so), an entity object panics on an event whose id ends with its
/// value. `None`, and compiled out, in every other build.
const PANIC_PROBE: Option<&str> = option_env!("HOOKONCE_PANIC_PROBE");

impl EntityObject {
    async fn ingest(&self, req: &web_sys::Request) -> Result<web_sys::Response> {
        let (now, started) = (clock::now(), clock::millis());
        let made = |r: Result<Response>| r.map(Into::into);
        // Only this Worker calls it, with a body it read within the source's limit.
        let bytes = match http::body(req, usize::MAX).await {
            Ok(bytes) => bytes,
            Err(e) => return made(e.respond()),
        };
        let handoff = match handoff::decode(&bytes) {
            Ok(h) => h,
            Err(e) => return made(problem::BAD_REQUEST.respond(e)),
        };
        if let Some(marker) = PANIC_PROBE {
            if handoff.event.id().as_str().ends_with(marker) {
                panic!("the panic probe: an event id ending in {marker}");
            }
        }
        let config = sources::load(&self.env);
        let (loaded, source) = match sources::lookup(&config, &handoff.source) {
            Ok(found) => found,
            Err(problem) => return made(problem),
        };
        let name = self.state.id().name().unwrap_or_default();
        if let Some(ObjectKind::Bucket(n)) = object_kind(&name) {
            let gate = self
                .bucket
                .gate(&self.store, &self.env, source, n, &handoff.event);
            match gate.await? {
                Gate::Open => {}
                Gate::Refuse(resp) => return Ok(resp.into()),
                Gate::Recorded => {
                    let said = Said::Duplicate;
                    let report = Report {
                        said,
                        rows_written: 0,
                        feed: feed_outcome(said),
                    };
                    self.report(loaded, source, &handoff.event, report, now, started);
                    let answer = Answer::Decided {
                        said,
                        rows_written: 0,
                        retry_after: None,
                    };
                    return respond(source, &handoff.event, answer);
                }
            }
        }
        let event = &handoff.event;
        let processed = self.process(loaded, source, event, &handoff.headers, handoff.body);
        Ok(processed.await?.0)
    }

    /// An admin replay: verify and parse the stored body (re-signed by the caller), then
    /// the same path as a delivery. A refusal says nothing.
    async fn pipeline(
        &self,
        loaded: &Loaded,
        source: &Source,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<(web_sys::Response, Option<Said>)> {
        let refused = |r: Result<Response>| r.map(|r| (r.into(), None));
        let verified = match source.verifier.verify(headers, body, clock::now()) {
            Ok(v) => v,
            Err(e) => return refused(problem::BAD_SIGNATURE.respond(e)),
        };
        let event = match Event::parse(&verified, headers, &source.config.shape) {
            Ok(e) => e,
            Err(e) => return refused(problem::BAD_EVENT.respond(e)),
        };
        self.process(loaded, source, &event, headers, body).await
    }

    /// Core's `Ingest` carried out, one IO per command: decide, write, respond (and
    /// forward, in synchronous mode). The same path for a provider's delivery, which the
    /// Worker verified and parsed, and for an admin replay. Only `SetAlarm` and `Send`
    /// wait, so each read–decide–write runs with no `.await` inside. The answer, and what
    /// it says.
    async fn process(
        &self,
        loaded: &Loaded,
        source: &Source,
        event: &Event,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<(web_sys::Response, Option<Said>)> {
        let now = clock::now();
        let started = clock::millis();
        let delivery = Delivery {
            source: &source.config,
            event,
            headers,
            body,
        };
        let mut ingest = Ingest::new(
            delivery,
            Plan::for_source(&source.config, event.kind().as_str()),
            now,
        );
        let mut command = ingest.start(self.known(&self.store.known_version()));
        loop {
            command = match command {
                Command::Read(reads) => {
                    let stored = self.store.stored(event.id(), reads)?;
                    ingest.handle(Input::Stored(stored))
                }
                Command::Write { guard, now } => {
                    let rows = self.store.write(ingest.writes(), guard, now)?;
                    ingest.handle(Input::Written(rows))
                }
                Command::KeepVersion(version) => {
                    self.store.keep_version(version);
                    ingest.handle(Input::Kept)
                }
                Command::SetAlarm(at) => {
                    outbox::ensure_alarm(&self.state, &self.armed, at).await?;
                    ingest.handle(Input::AlarmSet(self.known(&self.store.known_version())))
                }
                // A failed call counts as a held destination: nothing is sent.
                Command::AskGate => {
                    let entity = self.state.id().name().unwrap_or_default();
                    let answer = match self
                        .sync_gate(source, GateRequest::Ask { entity, rows: 1 })
                        .await
                    {
                        Ok(GateAnswer::Ask { ask, .. }) => Some(ask),
                        other => {
                            worker::console_error!("hookonce: asking the gate: {other:?}");
                            None
                        }
                    };
                    ingest.handle(Input::Asked(answer))
                }
                // A lost report holds its slot at the gate only until the lease ends.
                Command::ReportToGate { lease, result } => {
                    let entity = self.state.id().name().unwrap_or_default();
                    let request = GateRequest::Report {
                        entity,
                        lease,
                        earlier: 0,
                        result,
                    };
                    if let Err(e) = self.sync_gate(source, request).await {
                        worker::console_error!("hookonce: reporting to the gate: {e}");
                    }
                    ingest.handle(Input::GateReported)
                }
                Command::Send { .. } => {
                    let result = self.forward_now(loaded, source, event, body).await;
                    let now = clock::now();
                    ingest.handle(Input::Sent { result, now })
                }
                Command::ReadClaim => ingest.handle(Input::Claim(self.store.claim()?)),
                Command::Report(report) => {
                    self.report(loaded, source, event, report, now, started);
                    ingest.handle(Input::Reported)
                }
                Command::Answer(answer) => {
                    let said = answer.said();
                    return Ok((respond(source, event, answer)?, said));
                }
            };
        }
    }

    /// What the object knows of its store without a read, for core's `Ingest`.
    fn known<'k>(&self, version: &'k Option<Option<Version>>) -> Known<'k> {
        Known {
            empty: self.store.empty(),
            version: version.as_ref().map(Option::as_ref),
        }
    }

    /// Logs the decision and notes it in the source's feed, after the answer (the
    /// object's `waitUntil`): a feed that fails or is slow changes nothing here.
    fn report(
        &self,
        loaded: &Loaded,
        source: &Source,
        event: &Event,
        report: Report,
        received: UnixSeconds,
        started_ms: u64,
    ) {
        let name = &source.config.name;
        if let Some(note) = answer::report(loaded.log, name, event, report, received, started_ms) {
            self.note(name.clone(), note, loaded.log);
        }
    }

    fn note(&self, source: String, note: Note, log: LogLevel) {
        if let Some(flush) = notes::post(&self.env, source, note, log) {
            let _ = self.state.as_raw().wait_until(&flush);
        }
    }

    /// Posts `snapshot` to the feed object of `source`, as `object`'s: the status it
    /// answered (core's upkeep decides whether that counts as told).
    async fn tell_feed(
        &self,
        source: &str,
        object: &str,
        snapshot: &OutboxSnapshot,
    ) -> std::result::Result<u16, String> {
        let body = snapshot.encode().into_bytes();
        let headers = worker::Headers::new();
        headers
            .set("content-type", "text/plain")
            .map_err(|e| e.to_string())?;
        let url = FeedOp::Outbox(object.to_owned()).url();
        let resp = http::post_to_object(&self.env, FEED_BINDING, source, &url, headers, &body)
            .await
            .map_err(|e| e.to_string())?;
        Ok(resp.status_code())
    }

    /// Synchronous mode: one call to the destination while the provider waits.
    /// One request to the gate of the source's synchronous destination.
    async fn sync_gate(
        &self,
        source: &Source,
        request: GateRequest,
    ) -> std::result::Result<GateAnswer, String> {
        let sync = source
            .config
            .sync_destination()
            .ok_or("the source has no synchronous destination")?;
        gate::call(&self.env, &source.config, &sync.name, request).await
    }

    async fn forward_now(
        &self,
        loaded: &Loaded,
        source: &Source,
        event: &Event,
        body: &[u8],
    ) -> Option<AttemptResult> {
        let sync = source.config.sync_destination()?;
        let to = outbox_target(None, Some(&source.config), Some(&sync.name)).ok()?;
        let secrets = loaded.signers(&source.config.name, to.key)?;
        let out = Outgoing {
            source: &source.config.name,
            event_id: event.id().as_str(),
            attempt: 1,
            body,
        };
        Some(send::attempt(&self.env, to, secrets, out).await)
    }

    /// The entity's state and ledger, and one page of its events and outbox rows, newest
    /// first, before `before` (core's `EntityCursor`); `cursor` in the answer pages on.
    fn entity(&self, before: Option<&EntityCursor>) -> Result<Response> {
        let Page {
            snapshot: entity,
            totals,
            ledger,
            mut events,
            mut outbox,
        } = self.store.page(before, ENTITY_EVENTS, ENTITY_OUTBOX)?;
        if before.is_none() && entity.is_none() && events.is_empty() {
            return problem::NOT_FOUND.respond("no events for this entity");
        }
        let more_events = events.len() > ENTITY_EVENTS as usize;
        events.truncate(ENTITY_EVENTS as usize);
        let more_outbox = outbox.len() > ENTITY_OUTBOX as usize;
        outbox.truncate(ENTITY_OUTBOX as usize);
        let cursor = EntityCursor::after(
            events
                .last()
                .filter(|_| more_events)
                .map(|e| (e.processed_at, e.event_id.as_str())),
            outbox.last().filter(|_| more_outbox).map(|o| o.seq),
        );
        let total: i64 = totals
            .total
            .parse()
            .map_err(|_| worker::Error::RustError(format!("ledger total {:?}", totals.total)))?;
        let state = entity.as_ref().map(|e| {
            serde_json::from_str::<Value>(&e.state).unwrap_or(Value::String(e.state.clone()))
        });
        let body = json!({
            "state": state,
            "version": entity.as_ref().map(|e| json!({
                "created_at": e.version_secs,
                "created_at_nanos": e.version_nanos,
                "event_id": e.version_event,
            })),
            "updated_at": entity.as_ref().map(|e| e.updated_at),
            "ledger": {
                "total": total,
                "entries": totals.entries,
                "recent": ledger.iter().map(|l| json!({
                    "event_id": l.event_id,
                    "amount": l.amount,
                    "recorded_at": l.recorded_at,
                })).collect::<Vec<_>>(),
            },
            "events": events.iter().map(|e| json!({
                "event_id": e.event_id,
                "type": e.event_type,
                "outcome": e.outcome,
                "processed_at": e.processed_at,
            })).collect::<Vec<_>>(),
            "outbox": outbox.iter().map(outbox_json).collect::<Vec<_>>(),
            "cursor": cursor.map(|c| c.encode()),
        });
        json_response(200, &body, "application/json")
    }

    fn event(&self, id: &EventId) -> Result<Response> {
        let row = self.store.record(id)?;
        match row {
            None => problem::NOT_FOUND.respond(format!(
                "event {id} has not been seen by this entity; an event about an entity is found with ?entity=<its key>"
            )),
            Some(r) => json_response(
                200,
                &json!({
                    "event_id": id.as_str(),
                    "type": r.event_type,
                    "outcome": r.outcome,
                    "created_at": r.created_at,
                    "processed_at": r.processed_at,
                    "deliveries": self.store.deliveries(id)?.iter().map(outbox_json)
                        .collect::<Vec<_>>(),
                }),
                "application/json",
            ),
        }
    }
}

/// An outbox row as the entity and event reads show it.
fn outbox_json(o: &OutboxRow) -> Value {
    json!({
        "seq": o.seq,
        "event_id": o.event_id,
        "destination": o.destination,
        "status": o.status,
        "attempts": o.attempts,
        "next_attempt_at": o.next_attempt_at,
        "last_result": o.last_result,
        "done_at": o.done_at,
    })
}

/// The answer core's `Ingest` came to.
fn respond(source: &Source, event: &Event, answer: Answer) -> Result<web_sys::Response> {
    match answer {
        Answer::Decided {
            said,
            rows_written,
            retry_after,
        } => answer::respond(&source.config.name, event, said, rows_written, retry_after),
        Answer::Released { detail } => {
            let resp = problem::BAD_GATEWAY
                .respond_with(&detail, json!({ "event_id": event.id().as_str() }))?;
            let said = Said::Released.as_str();
            http::with_header(resp, OUTCOME_HEADER, said).map(Into::into)
        }
        Answer::OutOfStep => problem::INTERNAL
            .respond("the delivery's steps went out of order")
            .map(Into::into),
    }
}

//! `FeedObject`: one per source. It keeps the source's recent deliveries (the feed), its
//! dead letters across entities, `/metrics`' figures and the inspector's last hour, as
//! core's `intake` decides: every batch of notes runs read → `intake::batch` → one store
//! call (one statement) per `IntakeWrite`, in one transaction. Its SQL is in `store::feed`.

use hookonce_core::activity;
use hookonce_core::feed::{FeedOutcome, FeedWrite, Note};
use hookonce_core::intake::{self, IntakeWrite};
use hookonce_core::metrics::OutboxSnapshot;
use hookonce_core::names::object_name;
use hookonce_core::page::{feed_cursor, next_cursor, FeedQuery};
use hookonce_core::route::{encode_component, split_url};
use hookonce_core::sweep::CandidateQuery;
use hookonce_core::time::Seconds;
use serde_json::{json, Value};
use worker::{web_sys, Env, Request, Response, Result, State};

use crate::internal::FeedOp;
use crate::problem::{self, json_response};
use crate::store::feed::FeedStore;
use crate::task::export_object;
use crate::{clock, ops, sources, store};

export_object!(FeedObjectClass as "FeedObject" for FeedObject);

pub struct FeedObject {
    state: State,
    env: Env,
}

impl FeedObject {
    fn new(state: State, env: Env) -> Self {
        FeedStore::create(&state);
        Self { state, env }
    }

    async fn fetch(&self, req: web_sys::Request) -> Result<Response> {
        let mut req = Request::from(req);
        let url = req.inner().url();
        let (path, query) = split_url(&url);
        let Some(op) = FeedOp::parse(path, query) else {
            return problem::NOT_FOUND.respond("no such feed operation");
        };
        let Some(source) = self.state.id().name() else {
            return problem::INTERNAL.respond("a feed object is named by its source");
        };
        let store = FeedStore::new(&self.state);
        match op {
            FeedOp::Notes => {
                let body = req.bytes().await?;
                let Ok(notes) = serde_json::from_slice::<Vec<Note>>(&body) else {
                    return problem::BAD_REQUEST.respond("not a list of feed notes");
                };
                let loaded = sources::load(&self.env);
                let (policy, bodies) = match &*loaded {
                    Ok(l) => (l.feed.for_source(&source), kept_bodies(l, &source)),
                    Err(e) => return problem::CONFIG.respond(e),
                };
                let now = clock::now();
                store::sqlite::transaction(&self.state, || {
                    let state = store.state()?;
                    let batch = intake::batch(&notes, &state, policy, now);
                    for w in batch.iter().chain(&intake::remember(&notes, bodies, now)) {
                        write(&store, w)?;
                    }
                    Ok(())
                })?;
                Ok(Response::empty()?.with_status(204))
            }
            FeedOp::Events(q) => match FeedQuery::parse(&q) {
                Ok(q) => events(&store, &source, &q),
                Err(e) => problem::BAD_REQUEST.respond(e),
            },
            FeedOp::Dead => dead(&store, &source),
            FeedOp::Candidates(q) => {
                let Some(q) = CandidateQuery::parse(&q) else {
                    return problem::BAD_REQUEST.respond("not a candidate query");
                };
                let prefix = object_name(&source, 1, Some(""), "");
                let entities = store.candidates(&q, &prefix)?;
                json_response(200, &json!({ "entities": entities }), "application/json")
            }
            FeedOp::Outbox(object) => {
                let body = req.text().await?;
                let Some(snapshot) = OutboxSnapshot::decode(&body) else {
                    return problem::BAD_REQUEST.respond("not an outbox snapshot");
                };
                let writes = intake::report(&object, snapshot);
                let loaded = sources::load(&self.env);
                // The sums before and after the report, only where alerts are raised from
                // them (core's `ops::watch`): a deployment with `HOOKONCE_OPS`, a source
                // other than the ops source itself.
                let alerting = (*loaded)
                    .as_ref()
                    .ok()
                    .and_then(|l| Some((l, l.ops.as_ref()?)))
                    .filter(|_| source != hookonce_core::ops::SOURCE);
                let alerts = store::sqlite::transaction(&self.state, || {
                    let before = alerting.map(|_| store.destination_rows()).transpose()?;
                    for w in &writes {
                        write(&store, w)?;
                    }
                    Ok(match (alerting, before) {
                        (Some((_, config)), Some(before)) => {
                            let after = store.destination_rows()?;
                            hookonce_core::ops::watch(
                                config,
                                &source,
                                &before,
                                &after,
                                clock::now(),
                            )
                        }
                        _ => Vec::new(),
                    })
                })?;
                if let Some((loaded, _)) = alerting {
                    ops::raise(&self.env, loaded, alerts).await;
                }
                Ok(Response::empty()?.with_status(204))
            }
            FeedOp::Metrics => {
                let figures = store.figures(source)?;
                problem::bytes_response(200, figures.encode().into_bytes(), "text/plain")
            }
            FeedOp::Activity => {
                let loaded = sources::load(&self.env);
                let configured = match &*loaded {
                    Ok(l) => l.source(&source).map(|s| &s.config.destinations[..]),
                    Err(e) => return problem::CONFIG.respond(e),
                };
                let destinations: Vec<_> = configured
                    .unwrap_or_default()
                    .iter()
                    .map(|d| (d.name.as_str(), d.forward.destination.as_deref()))
                    .collect();
                let now = clock::now();
                let chart = activity::chart(&store.tallies(activity::first_minute(now))?, now);
                let rows = store.destination_rows()?;
                let doc = activity::document(&source, &chart, &destinations, &rows, now);
                json_response(200, &doc, "application/json")
            }
        }
    }
}

/// How long `source` keeps bodies; `None` when it keeps none (or is not configured).
fn kept_bodies(loaded: &sources::Loaded, source: &str) -> Option<Seconds> {
    let config = &loaded.source(source)?.config;
    config.keeps_bodies().then_some(config.body_retention)
}

/// One statement per write.
fn write(store: &FeedStore, w: &IntakeWrite) -> Result<()> {
    match w {
        IntakeWrite::Feed(FeedWrite::Append(rows)) => store.append(rows),
        IntakeWrite::Feed(FeedWrite::Window(w)) => store.window(w),
        IntakeWrite::Feed(FeedWrite::Prune { through, before }) => store.prune(*through, *before),
        IntakeWrite::Feed(FeedWrite::PruneDead { keep }) => store.prune_dead(*keep),
        IntakeWrite::Feed(FeedWrite::Dead(d)) => store.dead(d),
        IntakeWrite::Feed(FeedWrite::Requeued {
            entity,
            destination,
            events,
        }) => store.requeued(entity, destination.as_deref(), events),
        IntakeWrite::Count(c) => store.add_count(c),
        IntakeWrite::Tally(t) => store.add_tally(t),
        IntakeWrite::ForgetMinutes { before } => store.forget_minutes(*before),
        IntakeWrite::KeepOutbox { object, rows } => store.keep_outbox(object, rows),
        IntakeWrite::ForgetOutbox { object } => store.forget_outbox(object),
        IntakeWrite::Seen(entities) => store.seen(entities),
        IntakeWrite::ForgetEntities { before } => store.forget_entities(*before),
    }
}

/// The read API path of an event (its outcome and each destination's delivery).
fn event_path(source: &str, id: &str, entity: Option<&str>) -> String {
    let path = format!(
        "/events/{}/{}",
        encode_component(source),
        encode_component(id)
    );
    match entity {
        Some(e) => format!("{path}?entity={}", encode_component(e)),
        None => path,
    }
}

/// The read API path of an entity.
fn entity_path(source: &str, entity: &str) -> String {
    format!(
        "/entities/{}/{}",
        encode_component(source),
        encode_component(entity)
    )
}

fn events(store: &FeedStore, source: &str, q: &FeedQuery) -> Result<Response> {
    let page = store.page(q)?;
    let cursor = next_cursor(page.returned, q.limit, page.rows.last().map(|r| r.seq));
    let suppressed = store.state()?.window.suppressed;
    let events: Vec<Value> = page
        .rows
        .iter()
        .map(|r| {
            let mut row = json!({
                "cursor": feed_cursor(r.seq),
                "event_id": r.event_id,
                "type": r.event_type,
                "entity": r.entity,
                "outcome": r.outcome.as_str(),
                "rows_written": r.rows_written,
                "received_at": r.received_at,
            });
            if let Some(e) = &r.entity {
                row["entity_url"] = json!(entity_path(source, e));
            }
            if let (Some(id), FeedOutcome::Applied | FeedOutcome::Stale) = (&r.event_id, r.outcome)
            {
                row["event_url"] = json!(event_path(source, id, r.entity.as_deref()));
            }
            if r.outcome == FeedOutcome::Rejected {
                row["status"] = json!(r.status);
                row["reason"] = json!(r.reason);
            }
            row
        })
        .collect();
    json_response(
        200,
        &json!({
            "source": source,
            "events": events,
            "cursor": cursor,
            "rejected_not_recorded": suppressed,
        }),
        "application/json",
    )
}

fn dead(store: &FeedStore, source: &str) -> Result<Response> {
    let dead: Vec<Value> = store
        .dead_letters()?
        .iter()
        .map(|r| {
            let has_entity = !r.entity.is_empty();
            json!({
                "entity": has_entity.then_some(&r.entity),
                "event_id": r.event_id,
                "destination": r.destination,
                "attempts": r.attempts,
                "last_result": r.last_result,
                "dead_at": r.at,
                "entity_url": has_entity.then(|| entity_path(source, &r.entity)),
                "retry_url": has_entity.then(|| format!(
                    "/admin/outbox/{}/{}/retry",
                    encode_component(source),
                    encode_component(&r.entity)
                )),
            })
        })
        .collect();
    json_response(
        200,
        &json!({ "source": source, "dead": dead }),
        "application/json",
    )
}

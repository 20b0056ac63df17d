//! The admin operations across a whole source, one page per request: core's `Sweep`, one
//! object call per command. `POST /admin/requeue/{source}` requeues (or counts, in a dry
//! run) each candidate entity's dead letters that its filter admits; a backfill without
//! `entity` backfills each entity the feed saw since the time.

use hookonce_core::entity::requeue::Requeued;
use hookonce_core::entity::resend::Backfilled;
use hookonce_core::names::object_name;
use hookonce_core::route::Route;
use hookonce_core::sweep::{
    Candidates, Failed, PageAsk, Sweep, SweepCommand, SweepInput, Swept, Tally,
};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use worker::{Env, Request, Response, Result};

use crate::internal::{FeedOp, Op, ENTITY_BINDING, FEED_BINDING};
use crate::problem::{self, json_response};
use crate::sources::{self, Source};
use crate::{api, http};

/// `POST /admin/requeue/{source}` and `POST /admin/backfill/{source}/{destination}`
/// without `entity`: the token, the source and the destination checked, then one page.
pub async fn serve(req: &Request, env: &Env, route: &Route) -> Result<Response> {
    let (name, destination) = match route {
        Route::Requeue { source, filter, .. } => (source, filter.destination.as_deref()),
        Route::BackfillSource {
            source,
            destination,
            ..
        } => (source, Some(destination.as_str())),
        _ => return problem::NOT_FOUND.respond("not a source-wide admin route"),
    };
    let loaded = sources::load(env);
    let source = match api::authorized(req, env, &loaded, name) {
        Ok(found) => found,
        Err(answer) => return answer,
    };
    let config = &source.config;
    if let Some(d) = destination.filter(|d| config.destination(d).is_none()) {
        return problem::UNKNOWN_DESTINATION.respond(config.no_destination(d));
    }
    let mut body = match route {
        Route::Requeue {
            filter,
            dry_run,
            page,
            ..
        } => {
            let op = Op::Requeue(format!("{}&dry_run={dry_run}", filter.to_query()));
            let page = match run::<Requeued>(env, source, filter.candidates(), page, &op).await? {
                Ok(page) => page,
                Err(feed_problem) => return Ok(feed_problem),
            };
            let destinations: Map<String, Value> = (page.totals.matched.iter())
                .map(|m| (m.destination.clone(), json!(m.rows)))
                .collect();
            let mut body = summary(&page);
            body["dry_run"] = json!(dry_run);
            body["matched"] = json!(page.totals.matched_rows());
            body["requeued"] = json!(page.totals.requeued);
            body["destinations"] = Value::Object(destinations);
            body["skipped"] = json!(page.totals.skipped);
            body
        }
        Route::BackfillSource {
            destination,
            since,
            page,
            ..
        } => {
            let op = Op::Backfill(destination.clone(), since.0);
            let kind = Candidates::Recorded { since: *since };
            let page = match run::<Backfilled>(env, source, kind, page, &op).await? {
                Ok(page) => page,
                Err(feed_problem) => return Ok(feed_problem),
            };
            let mut body = summary(&page);
            if let Value::Object(totals) = json!(page.totals) {
                for (k, v) in totals {
                    body[k] = v;
                }
            }
            body["destination"] = json!(destination);
            body
        }
        _ => return problem::NOT_FOUND.respond("not a source-wide admin route"),
    };
    body["source"] = json!(config.name);
    json_response(200, &body, "application/json")
}

/// What every page answers: the entities called, those that failed, and the next cursor.
fn summary<T>(page: &Swept<T>) -> Value {
    let failed: Vec<Value> = (page.failed.iter())
        .map(|f| json!({ "entity": f.entity, "status": f.status, "detail": f.detail }))
        .collect();
    json!({ "entities": page.entities, "failed": failed, "next": page.next })
}

/// One page of `kind`'s entities of `source`, each object asked `op` and answering a `T`;
/// or the feed's answer when it could not name them.
async fn run<T: Tally + DeserializeOwned>(
    env: &Env,
    source: &Source,
    kind: Candidates,
    page: &PageAsk,
    op: &Op,
) -> Result<std::result::Result<Swept<T>, Response>> {
    let config = &source.config;
    let (mut sweep, mut command) = Sweep::<T>::start(kind, page.clone());
    loop {
        command = match command {
            SweepCommand::Read(q) => {
                let url = FeedOp::Candidates(q.to_query()).url();
                let mut resp =
                    http::query_object(env, FEED_BINDING, &config.name, &url, false).await?;
                // The feed's problem (its storage did not answer: a 503 saying a retry is
                // safe) is the page's: nothing was called yet.
                let entities = match resp.status_code() {
                    200 => resp.json::<Value>().await?["entities"].take(),
                    _ => return Ok(Err(resp)),
                };
                let entities = serde_json::from_value(entities).unwrap_or_default();
                sweep.handle(SweepInput::Page(entities))
            }
            SweepCommand::Call(entity) => {
                let object = object_name(&config.name, config.buckets, Some(&entity), "");
                let called =
                    http::query_object(env, ENTITY_BINDING, &object, &op.url(), op.is_post()).await;
                sweep.handle(SweepInput::Called(answered(entity, called).await))
            }
            SweepCommand::Answer(swept) => return Ok(Ok(swept)),
        };
    }
}

/// An entity object's answer as a `T`, or why it failed: its status and problem detail.
async fn answered<T: DeserializeOwned>(
    entity: String,
    called: Result<Response>,
) -> std::result::Result<T, Failed> {
    let failed = |status, detail: String| Failed {
        entity: entity.clone(),
        status,
        detail,
    };
    let mut resp = called.map_err(|e| failed(0, e.to_string()))?;
    let status = resp.status_code();
    let body: Value = resp
        .json()
        .await
        .map_err(|e| failed(status, e.to_string()))?;
    match status {
        200 => serde_json::from_value(body).map_err(|e| failed(status, e.to_string())),
        _ => Err(failed(
            status,
            body["detail"].as_str().unwrap_or_default().to_owned(),
        )),
    }
}

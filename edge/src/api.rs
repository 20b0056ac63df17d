//! The Worker's side of the read and admin APIs: the bearer token, then the operation on
//! the entity's object, the event's bucket or the source's feed object.

use hookonce_core::names::{object_name, per_event_object};
use hookonce_core::page::EntityCursor;
use hookonce_core::route::Route;
use hookonce_core::time::Seconds;
use serde_json::{json, Value};
use worker::{Env, Request, Response, Result};

use crate::internal::{FeedOp, Op, ENTITY_BINDING, FEED_BINDING};
use crate::sources::{Loaded, Source};
use crate::{http, problem, sources};

/// `GET /`: what this is and where things are.
pub fn index() -> Value {
    let endpoints: Vec<String> = hookonce_core::route::ROUTES
        .iter()
        .map(|(method, path)| format!("{method} {path}"))
        .collect();
    json!({ "service": "hookonce", "endpoints": endpoints })
}

type Target<'a> = (&'a str, &'static str, String, String, bool);

fn entity_op<'a>(source: &'a Source, entity: Option<&str>, event_id: &str, op: Op) -> Target<'a> {
    let config = &source.config;
    let object = object_name(&config.name, config.buckets, entity, event_id);
    (&config.name, ENTITY_BINDING, object, op.url(), op.is_post())
}

fn feed_op(source: &Source, op: FeedOp) -> Target<'_> {
    let name = &source.config.name;
    (name, FEED_BINDING, name.to_owned(), op.url(), false)
}

/// Which object (binding, name) and operation (internal URL, POST?) an admin route asks
/// of `source`, its source; `None` for other routes.
fn target<'a>(route: &Route, source: &'a Source) -> Option<Target<'a>> {
    Some(match route {
        Route::Entity { entity, before, .. } => entity_op(
            source,
            Some(entity),
            "",
            Op::Entity(before.as_ref().map(EntityCursor::encode)),
        ),
        Route::Event {
            event_id, entity, ..
        } => entity_op(
            source,
            entity.as_deref(),
            event_id,
            Op::Event(event_id.clone()),
        ),
        Route::RetryDead {
            entity,
            destination,
            ..
        } => entity_op(source, Some(entity), "", Op::RetryDead(destination.clone())),
        Route::Replay {
            event_id, entity, ..
        } => entity_op(
            source,
            entity.as_deref(),
            event_id,
            Op::Replay(event_id.clone()),
        ),
        Route::Redeliver {
            event_id,
            entity,
            destination,
            ..
        } => entity_op(
            source,
            entity.as_deref(),
            event_id,
            Op::Redeliver(event_id.clone(), destination.clone()),
        ),
        Route::Backfill {
            destination,
            entity,
            since,
            ..
        } => entity_op(
            source,
            Some(entity),
            "",
            Op::Backfill(destination.clone(), since.0),
        ),
        Route::Feed { query, .. } => feed_op(source, FeedOp::Events(query.to_query())),
        Route::Dead { .. } => feed_op(source, FeedOp::Dead),
        Route::Activity { .. } => feed_op(source, FeedOp::Activity),
        _ => return None,
    })
}

/// The source a read or admin route is about; `None` for other routes.
fn source_of(route: &Route) -> Option<&str> {
    match route {
        Route::Entity { source, .. }
        | Route::Event { source, .. }
        | Route::RetryDead { source, .. }
        | Route::Replay { source, .. }
        | Route::Redeliver { source, .. }
        | Route::Backfill { source, .. }
        | Route::Feed { source, .. }
        | Route::Dead { source }
        | Route::Activity { source } => Some(source),
        _ => None,
    }
}

/// The 404 problem for a route that names a destination `source` does not configure.
fn unknown_destination(route: &Route, source: &Source) -> Option<Result<Response>> {
    let named = match route {
        Route::RetryDead {
            destination: Some(d),
            ..
        }
        | Route::Redeliver {
            destination: Some(d),
            ..
        }
        | Route::Backfill { destination: d, .. } => d,
        _ => return None,
    };
    let config = &source.config;
    config
        .destination(named)
        .is_none()
        .then(|| problem::UNKNOWN_DESTINATION.respond(config.no_destination(named)))
}

/// The 401 problem for a request without the admin token, if it has not got it.
pub fn refuse_without_token(req: &Request, loaded: &Loaded) -> Option<Result<Response>> {
    // Answers to callers without the token name no binding (the README says which).
    let Some(token) = loaded.admin_token.as_deref() else {
        let off = "the read and admin APIs are off on this deployment";
        return Some(problem::UNAUTHORIZED.respond(off));
    };
    let missing = http::bearer(req, [token]).is_none();
    missing.then(|| problem::UNAUTHORIZED.respond("send Authorization: Bearer <admin token>"))
}

/// The source `source` a read or admin request names, if the configuration loaded, the
/// request carries the admin token and the source exists; otherwise the answer to give.
pub fn authorized<'l>(
    req: &Request,
    env: &Env,
    loaded: &'l std::result::Result<Loaded, String>,
    source: &str,
) -> std::result::Result<&'l Source, Result<Response>> {
    let loaded = match loaded {
        Ok(l) => l,
        Err(e) => return Err(sources::misconfigured_for(req, env, e)),
    };
    if let Some(refused) = refuse_without_token(req, loaded) {
        return Err(refused);
    }
    loaded
        .source(source)
        .ok_or_else(|| problem::UNKNOWN_SOURCE.respond(format!("no source named {source}")))
}

/// A read or admin route: authenticate, then ask the object that owns the entity (or the
/// source's feed).
pub async fn admin(req: &Request, env: &Env, route: &Route) -> Result<Response> {
    let Some(source) = source_of(route) else {
        return problem::NOT_FOUND.respond("not a read or admin route");
    };
    let loaded = sources::load(env);
    let found = match authorized(req, env, &loaded, source) {
        Ok(found) => found,
        Err(answer) => return answer,
    };
    let Some((source, binding, object, url, post)) = target(route, found) else {
        return problem::NOT_FOUND.respond("not a read or admin route");
    };
    if let Some(unknown) = unknown_destination(route, found) {
        return unknown;
    }
    let resp = http::query_object(env, binding, &object, &url, post).await?;
    let no_entity = match route {
        Route::Event {
            event_id,
            entity: None,
            ..
        }
        | Route::Replay {
            event_id,
            entity: None,
            ..
        }
        | Route::Redeliver {
            event_id,
            entity: None,
            ..
        } => Some(event_id.as_str()),
        _ => None,
    };
    match no_entity {
        // An id its bucket does not know may be in the object it had to itself before
        // buckets; that object answers 404, with no table made, if it never existed.
        Some(id) if resp.status_code() == 404 && found.config.legacy_lookup > Seconds(0) => {
            let legacy = per_event_object(source, id);
            let old = http::query_object(env, binding, &legacy, &url, post).await?;
            Ok(match old.status_code() {
                404 => resp,
                _ => old,
            })
        }
        _ => Ok(resp),
    }
}

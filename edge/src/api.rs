//! The Worker's side of the read and admin APIs: the bearer token, then the operation on
//! the entity's object or the source's feed object.

use hookonce_core::{object_name, EntityCursor, Route};
use serde_json::{json, Value};
use worker::{Env, Request, Response, Result};

use crate::internal::{FeedOp, Op, ENTITY_BINDING, FEED_BINDING};
use crate::{http, problem, sources};

/// `GET /`: what this is and where things are.
pub fn index() -> Value {
    let endpoints: Vec<String> = hookonce_core::ROUTES
        .iter()
        .map(|(method, path)| format!("{method} {path}"))
        .collect();
    json!({ "service": "hookonce", "endpoints": endpoints })
}

type Target<'a> = (&'a str, &'static str, String, String, bool);

fn entity_op<'a>(source: &'a str, entity: Option<&str>, event_id: &str, op: Op) -> Target<'a> {
    let object = object_name(source, entity, event_id);
    (source, ENTITY_BINDING, object, op.url(), op.is_post())
}

fn feed_op(source: &str, op: FeedOp) -> Target<'_> {
    (source, FEED_BINDING, source.to_owned(), op.url(), false)
}

/// Which object (binding, name) and operation (internal URL, POST?) an admin route asks
/// for; `None` for other routes.
fn target(route: &Route) -> Option<Target<'_>> {
    Some(match route {
        Route::Entity {
            source,
            entity,
            before,
        } => entity_op(
            source,
            Some(entity),
            "",
            Op::Entity(before.as_ref().map(EntityCursor::encode)),
        ),
        Route::Event {
            source,
            event_id,
            entity,
        } => entity_op(
            source,
            entity.as_deref(),
            event_id,
            Op::Event(event_id.clone()),
        ),
        Route::RetryDead { source, entity } => entity_op(source, Some(entity), "", Op::RetryDead),
        Route::Replay {
            source,
            event_id,
            entity,
        } => entity_op(
            source,
            entity.as_deref(),
            event_id,
            Op::Replay(event_id.clone()),
        ),
        Route::Feed { source, query } => feed_op(source, FeedOp::Events(query.to_query())),
        Route::Dead { source } => feed_op(source, FeedOp::Dead),
        _ => return None,
    })
}

/// A read or admin route: authenticate, then ask the object that owns the entity (or the
/// source's feed).
pub async fn admin(req: &Request, env: &Env, route: &Route) -> Result<Response> {
    let Some((source, binding, object, url, post)) = target(route) else {
        return problem::NOT_FOUND.respond("not a read or admin route");
    };
    let loaded = sources::load(env);
    let loaded = match &*loaded {
        Ok(l) => l,
        Err(e) => return sources::misconfigured_for(req, env, e),
    };
    // Answers to callers without the token name no binding (the README says which).
    let Some(token) = loaded.admin_token.as_deref() else {
        return problem::UNAUTHORIZED.respond("the read and admin APIs are off on this deployment");
    };
    if http::bearer(req, [token]).is_none() {
        return problem::UNAUTHORIZED.respond("send Authorization: Bearer <admin token>");
    }
    if loaded.source(source).is_none() {
        return problem::UNKNOWN_SOURCE.respond(format!("no source named {source}"));
    }
    http::query_object(env, binding, &object, &url, post).await
}

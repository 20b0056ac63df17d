//! The Worker's side of the read and admin APIs: the bearer token, then the operation on
//! the entity's object.

use hookonce_core::{object_name, Route};
use serde_json::{json, Value};
use worker::{Env, Method, Request, RequestInit, Response, Result};

use crate::internal::{Op, ENTITY_BINDING};
use crate::{http, problem, sources};

/// `GET /`: what this is and where things are.
pub fn index() -> Value {
    let endpoints: Vec<String> = hookonce_core::ROUTES
        .iter()
        .map(|(method, path)| format!("{method} {path}"))
        .collect();
    json!({ "service": "hookonce", "endpoints": endpoints })
}

/// Which object and operation an admin route asks for; `None` for other routes.
fn target(route: &Route) -> Option<(&str, Option<&str>, &str, Op)> {
    Some(match route {
        Route::Entity { source, entity } => (source, Some(entity), "", Op::Entity),
        Route::Event {
            source,
            event_id,
            entity,
        } => (
            source,
            entity.as_deref(),
            event_id,
            Op::Event(event_id.clone()),
        ),
        Route::RetryDead { source, entity } => (source, Some(entity), "", Op::RetryDead),
        Route::Replay {
            source,
            event_id,
            entity,
        } => (
            source,
            entity.as_deref(),
            event_id,
            Op::Replay(event_id.clone()),
        ),
        _ => return None,
    })
}

/// A read or admin route: authenticate, then ask the object that owns the entity.
pub async fn admin(req: &Request, env: &Env, route: &Route) -> Result<Response> {
    let Some((source, entity, event_id, op)) = target(route) else {
        return problem::NOT_FOUND.respond("not a read or admin route");
    };
    let loaded = sources::load(env);
    let loaded = match &*loaded {
        Ok(l) => l,
        Err(e) => return problem::CONFIG.respond(e),
    };
    let Some(token) = loaded.admin_token.as_deref() else {
        return problem::UNAUTHORIZED
            .respond("the read and admin APIs are off: set HOOKONCE_ADMIN_TOKEN");
    };
    if http::bearer(req, [token]).is_none() {
        return problem::UNAUTHORIZED.respond("send Authorization: Bearer <HOOKONCE_ADMIN_TOKEN>");
    }
    if loaded.source(source).is_none() {
        return problem::UNKNOWN_SOURCE.respond(format!("no source named {source}"));
    }
    let object = object_name(source, entity, event_id);
    let mut init = RequestInit::new();
    init.with_method(if op.is_post() {
        Method::Post
    } else {
        Method::Get
    });
    let inner = Request::new_with_init(&op.url(), &init)?;
    let stub = env.durable_object(ENTITY_BINDING)?.get_by_name(&object)?;
    stub.fetch_with_request(inner).await
}

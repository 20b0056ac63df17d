//! The Worker's side of the webhook path and of the read and admin APIs: check what can be
//! checked without state, then hand over to the entity's Durable Object.

use hookonce_core::event::Event;
use serde_json::{json, Value};
use worker::{Env, Request, RequestInit, Response, Result};

use crate::entity::SOURCE_HEADER;
use crate::problem;
use crate::sources;
use crate::{clock, http};

/// The Durable Object that owns an entity; events without one get an object of their own.
pub fn object_name(source: &str, entity: Option<&str>, event_id: &str) -> String {
    match entity {
        Some(entity) => format!("{source}/e/{entity}"),
        None => format!("{source}/i/{event_id}"),
    }
}

/// The source an object serves, from its name (source names contain no `/`).
pub fn source_of(object_name: &str) -> Option<&str> {
    object_name.split_once('/').map(|(source, _)| source)
}

/// `GET /`: what this is and where things are.
pub fn index() -> Value {
    json!({
        "service": "hookonce",
        "endpoints": {
            "receive": "POST /webhooks/{source}",
            "entity": "GET /entities/{source}/{entity}",
            "event": "GET /events/{source}/{event_id}?entity={entity}",
            "retry_dead_letters": "POST /admin/outbox/{source}/{entity}/retry",
            "replay": "POST /admin/replay/{source}/{event_id}?entity={entity}",
            "publish": "POST /v1/messages",
        }
    })
}

/// `POST /webhooks/{source}`: steps 1 and 2 at the edge, the rest in the entity's object.
pub async fn receive(mut req: Request, env: &Env, name: &str) -> Result<Response> {
    let config = sources::load(env);
    let (_, source) = match sources::lookup(&config, name) {
        Ok(found) => found,
        Err(problem) => return problem,
    };
    let limit = source.config.max_body;
    let declared = req
        .headers()
        .get("content-length")?
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return problem::TOO_LARGE.respond(format!("the limit for {name} is {limit} bytes"));
    }
    let body = req.bytes().await?;
    if body.len() > limit {
        return problem::TOO_LARGE.respond(format!("the limit for {name} is {limit} bytes"));
    }
    let headers = http::headers(&req, &source.config.headers_read());
    let verified = match source.verifier.verify(&headers, &body, clock::now()) {
        Ok(v) => v,
        Err(e) => return problem::BAD_SIGNATURE.respond(e),
    };
    let event = match Event::parse(&verified, &headers, &source.config.shape) {
        Ok(e) => e,
        Err(e) => return problem::BAD_EVENT.respond(e),
    };
    let object = object_name(
        name,
        event.entity().map(|e| e.as_str()),
        event.id().as_str(),
    );
    // One copy of the provider's headers, made by the runtime, not header by header.
    let forwarded = req.headers().clone();
    forwarded.set(SOURCE_HEADER, name)?;
    http::post_to_object(
        env,
        "ENTITY",
        &object,
        "https://entity.hookonce/ingest",
        forwarded,
        &body,
    )
    .await
}

/// The read and admin APIs: bearer token, then the entity's object.
pub async fn admin(
    req: Request,
    env: &Env,
    name: &str,
    entity: Option<&str>,
    event_id: Option<&str>,
    op: &str,
) -> Result<Response> {
    let loaded = sources::load(env);
    let loaded = match &*loaded {
        Ok(l) => l,
        Err(e) => return problem::CONFIG.respond(e),
    };
    let Some(token) = loaded.admin_token.as_deref() else {
        return problem::UNAUTHORIZED
            .respond("the read and admin APIs are off: set HOOKONCE_ADMIN_TOKEN");
    };
    if http::bearer(&req, [token]).is_none() {
        return problem::UNAUTHORIZED.respond("send Authorization: Bearer <HOOKONCE_ADMIN_TOKEN>");
    }
    if loaded.source(name).is_none() {
        return problem::UNKNOWN_SOURCE.respond(format!("no source named {name}"));
    }
    let url = req.url()?;
    let entity_param = url
        .query_pairs()
        .find(|(k, _)| k == "entity")
        .map(|(_, v)| v.into_owned());
    let entity = entity.map(str::to_owned).or(entity_param);
    let object = object_name(name, entity.as_deref(), event_id.unwrap_or(""));
    let mut target = worker::Url::parse("https://entity.hookonce/")?;
    target.set_path(op);
    if let Some(id) = event_id {
        target.query_pairs_mut().append_pair("id", id);
    }
    let mut init = RequestInit::new();
    init.with_method(req.method());
    let inner = Request::new_with_init(target.as_str(), &init)?;
    let stub = env.durable_object("ENTITY")?.get_by_name(&object)?;
    stub.fetch_with_request(inner).await
}

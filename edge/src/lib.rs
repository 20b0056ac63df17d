//! # hookonce-edge
//!
//! The Cloudflare Workers adapter. It reads the clock, does the IO and carries out what
//! `hookonce-core` decides; it decides nothing itself.
//!
//! - The Worker (this file) routes, verifies and parses at the edge, so a bad delivery is
//!   refused without waking any Durable Object, then hands the raw delivery to the entity's
//!   object.
//! - [`entity::EntityObject`], one per (source, entity), verifies again (it trusts no
//!   caller), decides and writes in one synchronous transaction, and forwards.
//! - [`keys::KeyObject`], one per (publish token, Idempotency-Key), serves the publish API.

mod clock;
mod entity;
mod forward;
mod http;
mod keys;
mod problem;
mod sources;
mod store;
mod webhook;

use worker::{event, Context, Env, Method, Request, Response, Result};

pub use entity::EntityObject;
pub use keys::KeyObject;

#[event(start)]
fn start() {
    // A panic is a bug; this makes it readable in the logs instead of "unreachable".
    console_error_panic_hook::set_once();
}

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<Response> {
    match route(req, &env).await {
        Ok(resp) => Ok(resp),
        Err(e) => {
            worker::console_error!("hookonce: {e}");
            problem::INTERNAL.respond("the request failed inside hookonce; it is safe to retry")
        }
    }
}

async fn route(req: Request, env: &Env) -> Result<Response> {
    let path = req.path();
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let Some(seg) = segments
        .iter()
        .map(|s| http::decode_segment(s))
        .collect::<Option<Vec<String>>>()
    else {
        return problem::BAD_REQUEST.respond("the path has a malformed %-escape");
    };
    let seg: Vec<&str> = seg.iter().map(String::as_str).collect();
    let method = req.method();
    let allow = |allowed: Method| -> Option<Result<Response>> {
        (method != allowed).then(|| {
            let resp = problem::METHOD_NOT_ALLOWED
                .respond(format!("{path} accepts {allowed} only"))
                .and_then(|r| http::with_header(r, "allow", allowed.as_ref()));
            resp
        })
    };
    match seg.as_slice() {
        [""] => {
            if let Some(r) = allow(Method::Get) {
                return r;
            }
            problem::json_response(200, &webhook::index(), "application/json")
        }
        ["webhooks", source] => match allow(Method::Post) {
            Some(r) => r,
            None => webhook::receive(req, env, source).await,
        },
        ["entities", source, entity] => match allow(Method::Get) {
            Some(r) => r,
            None => webhook::admin(req, env, source, Some(entity), None, "/entity").await,
        },
        ["events", source, event_id] => match allow(Method::Get) {
            Some(r) => r,
            None => webhook::admin(req, env, source, None, Some(event_id), "/event").await,
        },
        ["admin", "outbox", source, entity, "retry"] => match allow(Method::Post) {
            Some(r) => r,
            None => webhook::admin(req, env, source, Some(entity), None, "/outbox/retry").await,
        },
        ["admin", "replay", source, event_id] => match allow(Method::Post) {
            Some(r) => r,
            None => webhook::admin(req, env, source, None, Some(event_id), "/replay").await,
        },
        ["v1", "messages"] => match allow(Method::Post) {
            Some(r) => r,
            None => keys::publish(req, env).await,
        },
        _ => problem::NOT_FOUND.respond(format!("no route for {path}")),
    }
}

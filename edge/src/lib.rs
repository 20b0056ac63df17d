//! # hookonce-edge
//!
//! The Cloudflare Workers adapter. It reads the clock, does the IO and carries out what
//! `hookonce-core` decides; it decides nothing itself.
//!
//! Modules, leaves first (each imports only those above it):
//! - `clock`, `problem`, `internal` (binding names, internal headers, object operations),
//!   `task` (the executor: each request's futures polled in that request's context);
//! - `http` (request helpers), `sources` (configuration, once per isolate);
//! - `store` (all SQL: schema, point reads, one statement per core command), `send`
//!   (outgoing POST);
//! - `outbox` (the alarm: delivery in order, durable row by row; pruning);
//! - the Worker side: `ingest`, `api` (read and admin), `destinations` (a destination's
//!   status, pause and resume), `publish`;
//! - `logs` (structured log lines), `notes` (feed notes, off the path);
//! - the Durable Objects: [`EntityObject`] (one per source and entity), [`KeyObject`]
//!   (one per publish token and Idempotency-Key), [`FeedObject`] (one per source: its
//!   feed, dead letters, `/metrics`' figures and the inspector's last hour) and
//!   [`GateObject`] (one per source and destination: the guard its entities share).

/// talc, not the standard library's dlmalloc: 3.2 KB less of gzipped wasm.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

mod answer;
mod api;
mod bucket;
mod clock;
mod destinations;
mod entity;
mod feed;
mod gate;
mod http;
mod ingest;
mod internal;
mod keys;
mod logs;
mod metrics;
mod notes;
mod ops;
mod outbox;
mod problem;
mod publish;
mod send;
mod sources;
mod store;
mod sweep;
mod task;

use hookonce_core::route::{split_url, Route, RouteError};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsCast;
use worker::{event, js_sys, web_sys, worker_sys::Context, Env, Request, Response, Result};

pub use entity::EntityObject;
pub use feed::FeedObject;
pub use gate::GateObject;
pub use keys::KeyObject;

/// The static files' binding: `edge/assets/`, the API description and the inspector page,
/// kept out of the wasm (7.5 KiB of it, gzipped) and fetched only by their two routes.
const ASSETS: &str = "ASSETS";

#[event(start)]
fn start() {
    // A panic is a bug: logged readably instead of as "unreachable", then every task of
    // the instance is rejected before it aborts (`task`), so no request is left waiting.
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        task::reject_all_after_panic();
    }));
}

thread_local! {
    /// What a request gets if hookonce panics before answering it: `Response.json` bound
    /// to a `500` problem, a JavaScript function, so it runs once the instance is gone, in
    /// the request's own context (workerd runs a promise's reactions there). A retry is
    /// safe: an event's writes are one statement or one transaction, so the panic left it
    /// either recorded (its retry is a duplicate) or not written at all.
    static PANIC_ANSWER: Option<js_sys::Function> = panic_answer();
}

fn panic_answer() -> Option<js_sys::Function> {
    let detail = "hookonce failed while handling this request (a bug, logged); it is safe to retry";
    let doc = problem::INTERNAL.body(detail, serde_json::json!({}));
    let init = serde_json::json!({
        "status": problem::INTERNAL.status,
        "headers": { "content-type": "application/problem+json" },
    });
    let parse = |v: serde_json::Value| js_sys::JSON::parse(&v.to_string()).ok();
    let class = js_sys::Reflect::get(&js_sys::global(), &"Response".into()).ok()?;
    let json: js_sys::Function = js_sys::Reflect::get(&class, &"json".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let bound = json.bind2(&class, &parse(doc)?, &parse(init)?);
    Some(bound.unchecked_into())
}

/// The Worker's `fetch` handler, run on hookonce's executor (`task`). Takes the runtime's
/// request as it is: a delivery reads its method, URL, a few headers and the body, and
/// only the other routes convert it to workers-rs's `Request` (which reads the method,
/// URL, headers and `cf` across the boundary up front).
#[wasm_bindgen]
pub fn fetch(req: web_sys::Request, env: Env, ctx: Context) -> js_sys::Promise {
    let answer = task::promise(async move {
        let resp = handle(req, &env, &ctx).await?;
        Ok(resp.into())
    });
    PANIC_ANSWER.with(|fallback| match fallback {
        Some(fallback) => task::or_else(&answer, fallback),
        None => answer,
    })
}

async fn handle(req: web_sys::Request, env: &Env, ctx: &Context) -> Result<web_sys::Response> {
    let answer = match route(req, env, ctx).await {
        // A delivery's answer comes from its object, a static file from the binding.
        Ok(Answer::Passed(resp)) => return Ok(resp),
        Ok(Answer::Made(resp)) => Ok(resp),
        Err(e) => {
            worker::console_error!("hookonce: {e}");
            problem::INTERNAL.respond("the request failed inside hookonce; it is safe to retry")
        }
    };
    answer.map(Into::into)
}

/// A response the Worker made, or one the runtime made (an object's answer, a static
/// file's body) that it passes on unconverted.
enum Answer {
    Made(Response),
    Passed(web_sys::Response),
}

async fn route(req: web_sys::Request, env: &Env, ctx: &Context) -> Result<Answer> {
    let url = req.url();
    let (path, query) = split_url(&url);
    match Route::parse(&req.method(), path, query) {
        Ok(route) => answer(req, env, ctx, &route).await,
        Err(e) => refused(path, e).map(Answer::Made),
    }
}

fn refused(path: &str, e: RouteError) -> Result<Response> {
    match e {
        RouteError::NotFound => problem::NOT_FOUND.respond(format!("no route for {path}")),
        RouteError::MethodNotAllowed { allow } => {
            let resp =
                problem::METHOD_NOT_ALLOWED.respond(format!("{path} accepts {allow} only"))?;
            http::with_header(resp, "allow", allow)
        }
        // A malformed escape or query, and any error a later core adds.
        e => problem::BAD_REQUEST.respond(e),
    }
}

async fn answer(req: web_sys::Request, env: &Env, ctx: &Context, route: &Route) -> Result<Answer> {
    let made = match route {
        Route::Index => problem::json_response(200, &api::index(), "application/json"),
        Route::OpenApi => return asset(env, "/openapi.json", OPENAPI_HEADERS).await,
        Route::Inspect => return asset(env, "/inspect.html", INSPECT_HEADERS).await,
        Route::Receive { source } => {
            return ingest::receive(req, env, ctx, source)
                .await
                .map(Answer::Passed)
        }
        Route::Entity { .. }
        | Route::Feed { .. }
        | Route::Dead { .. }
        | Route::Activity { .. }
        | Route::Event { .. }
        | Route::RetryDead { .. }
        | Route::Replay { .. }
        | Route::Redeliver { .. }
        | Route::Backfill { .. } => api::admin(&Request::from(req), env, route).await,
        Route::Destination { .. } => destinations::serve(&Request::from(req), env, route).await,
        Route::Requeue { .. } | Route::BackfillSource { .. } => {
            sweep::serve(&Request::from(req), env, route).await
        }
        Route::Metrics => metrics::serve(&Request::from(req), env).await,
        Route::Publish => publish::publish(req.into(), env).await,
        Route::MessageStatus => publish::status(req.into(), env).await,
    };
    made.map(Answer::Made)
}

const OPENAPI_HEADERS: &[(&str, &str)] = &[("content-type", "application/json")];

/// The page holds the admin token in the tab: no framing, no third-party anything.
const INSPECT_HEADERS: &[(&str, &str)] = &[
    ("content-type", "text/html; charset=utf-8"),
    (
        "content-security-policy",
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
         connect-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("referrer-policy", "no-referrer"),
];

/// A file of `edge/assets/`, its body streamed through as it comes from the binding, with
/// `headers` only; or a 404 problem when this deployment lacks it (no `ASSETS` binding, or
/// a file missing from it).
async fn asset(env: &Env, path: &str, headers: &[(&str, &str)]) -> Result<Answer> {
    let url = format!("https://assets.invalid{path}");
    let found = match env.assets(ASSETS) {
        Ok(files) => http::fetch_raw(files.into_rpc(), &url, &web_sys::RequestInit::new()).await,
        Err(e) => Err(e),
    };
    match found {
        Ok(file) if file.status() == 200 => {
            let init = web_sys::ResponseInit::new();
            let out = web_sys::Headers::new()?;
            for (name, value) in headers {
                out.set(name, value)?;
            }
            init.set_headers(&out);
            let body = file.body();
            Ok(Answer::Passed(
                web_sys::Response::new_with_opt_readable_stream_and_init(body.as_ref(), &init)?,
            ))
        }
        _ => {
            let detail = format!("{path} is not deployed: bind edge/assets/ as {ASSETS}");
            problem::NOT_FOUND.respond(detail).map(Answer::Made)
        }
    }
}

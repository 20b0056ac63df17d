//! The Worker's side of `POST /webhooks/{source}`: steps 2 and 3 (verify, parse) at the
//! edge, so a bad delivery is refused without waking any Durable Object; then the parsed
//! event and the raw body go to the entity's object as core's hand-off
//! (`handoff::encode`). The object does not verify again: only this Worker can call it.
//!
//! A refused delivery is logged with its reason and, sampled, noted in the source's feed
//! after the answer is made (`ctx.wait_until`); never with its body or signature.

use std::cell::RefCell;
use std::time::Duration;

use hookonce_core::decide::{Plan, Said};
use hookonce_core::entity::{feed_outcome, Report};
use hookonce_core::event::challenge;
use hookonce_core::event::Event;
use hookonce_core::handoff;
use hookonce_core::log::{rejected as rejected_log, LogLevel};
use hookonce_core::names::object_for;
use hookonce_core::ops::Alert;
use hookonce_core::seen::{CopyCheck, SeenIds};
use hookonce_core::time::UnixSeconds;
use worker::{web_sys, worker_sys::Context, Delay, Env, Response, Result};

use crate::internal::{Op, ENTITY_BINDING, OUTCOME_HEADER};
use crate::problem::Kind;
use crate::sources::Loaded;
use crate::{answer, clock, http, logs, notes, ops, problem, sources, task};

/// Answers `kind` with `detail`, and logs and notes the refusal.
fn reject(
    ctx: &Context,
    env: &Env,
    loaded: &Loaded,
    name: &str,
    kind: Kind,
    detail: impl std::fmt::Display,
) -> Result<Response> {
    let detail = detail.to_string();
    logs::emit(loaded.log, rejected_log(name, kind.status, &detail));
    let per_minute = loaded.feed.for_source(name).rejected_per_minute;
    if let Some(note) = notes::rejected(name, kind.status, &detail, clock::now(), per_minute) {
        if let Some(flush) = notes::post(env, name.to_owned(), note, loaded.log) {
            let _ = ctx.wait_until(&flush);
        }
        // Sampled as the note is, so forged requests cannot make a call each.
        if loaded.ops.is_some() && kind != problem::TOO_LARGE {
            let alert = Alert::Misconfigured {
                source: name.to_owned(),
                status: kind.status,
                reason: detail.clone(),
            };
            let env = env.clone();
            let _ = ctx.wait_until(&task::detach(async move {
                if let Ok(loaded) = &*sources::load(&env) {
                    ops::raise(&env, loaded, vec![alert]).await;
                }
            }));
        }
    }
    kind.respond(detail)
}

/// A delivery the Worker lets through: the entity's object, and what its hand-off is made
/// of (encoded only if the object is called).
struct Admitted {
    object: String,
    event: Event,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    plan: Plan,
    log: LogLevel,
}

thread_local! {
    /// The ids this isolate saw entity objects record (core's `SeenIds`).
    static SEEN: RefCell<SeenIds> = RefCell::new(SeenIds::default());
}

/// The entity object's answer is passed on as the runtime's `Response`, unconverted; a
/// refusal made here is converted once. A copy of an event this isolate saw its object
/// record is answered here, as the object would answer it, without waking the object; a
/// copy that arrives while another delivery of it is with the object waits for that answer.
pub async fn receive(
    req: web_sys::Request,
    env: &Env,
    ctx: &Context,
    name: &str,
) -> Result<web_sys::Response> {
    let (now, started) = (clock::now(), clock::millis());
    let a = match admit(req, env, ctx, name).await? {
        Ok(a) => a,
        Err(answer) => return Ok(answer.into()),
    };
    loop {
        let check = SEEN.with(|s| {
            s.borrow_mut()
                .check(&a.object, a.event.id(), a.plan, clock::millis())
        });
        match check {
            CopyCheck::Answer(said) => return answer_copy(env, ctx, name, &a, said, now, started),
            // Woken by its own timer, so it goes on in its own request's context.
            CopyCheck::Wait(ms) => Delay::from(Duration::from_millis(ms)).await,
            CopyCheck::Call => break,
        }
    }
    let url = Op::Ingest.url();
    let handoff = handoff::encode(name, &a.event, &a.headers, &a.body);
    let called = http::call_object(env, ENTITY_BINDING, &a.object, &url, None, &handoff).await;
    let resp = match called {
        Ok(resp) => resp,
        Err(e) => {
            SEEN.with(|s| s.borrow_mut().abandoned(&a.object, a.event.id()));
            return Err(e);
        }
    };
    let outcome = resp.headers().get(OUTCOME_HEADER).ok().flatten();
    SEEN.with(|s| {
        s.borrow_mut().answered(
            &a.object,
            a.event.id(),
            resp.status(),
            outcome.as_deref().unwrap_or_default(),
            clock::now(),
        )
    });
    Ok(resp)
}

/// A copy of an event this isolate saw its object record, answered as the object would.
fn answer_copy(
    env: &Env,
    ctx: &Context,
    name: &str,
    a: &Admitted,
    said: Said,
    now: UnixSeconds,
    started: u64,
) -> Result<web_sys::Response> {
    let report = Report {
        said,
        rows_written: 0,
        feed: feed_outcome(said),
    };
    if let Some(note) = answer::report(a.log, name, &a.event, report, now, started) {
        if let Some(flush) = notes::post(env, name.to_owned(), note, a.log) {
            let _ = ctx.wait_until(&flush);
        }
    }
    answer::respond(name, &a.event, said, 0, None)
}

/// Steps 2 and 3 at the edge: the delivery to pass on, or the answer to give instead.
async fn admit(
    req: web_sys::Request,
    env: &Env,
    ctx: &Context,
    name: &str,
) -> Result<std::result::Result<Admitted, Response>> {
    let answer = |r: Result<Response>| r.map(Err);
    if name == hookonce_core::ops::SOURCE {
        // Its events are hookonce's own alerts: only `ops::raise` makes them.
        return answer(problem::UNKNOWN_SOURCE.respond(format!("no source named {name}")));
    }
    let config = sources::load(env);
    let (loaded, source) = match sources::lookup(&config, name) {
        Ok(found) => found,
        Err(problem) => return answer(problem),
    };
    let reject = |kind, detail| answer(reject(ctx, env, loaded, name, kind, detail));
    let body = match http::body(&req, source.config.max_body).await {
        Ok(body) => body,
        Err(http::BodyError::TooLarge(e)) => return reject(problem::TOO_LARGE, e.to_string()),
        Err(unreadable) => return answer(unreadable.respond()),
    };
    let headers = http::headers(&req.headers(), &source.config.headers_read());
    let verified = match source.verifier.verify(&headers, &body, clock::now()) {
        Ok(v) => v,
        Err(e) => return reject(problem::BAD_SIGNATURE, e.to_string()),
    };
    if let Some(challenge) = challenge(&verified) {
        // Slack's url_verification handshake: answered here, never an event.
        return answer(problem::json_response(
            200,
            &serde_json::json!({ "challenge": challenge }),
            "application/json",
        ));
    }
    let event = match Event::parse(&verified, &headers, &source.config.shape) {
        Ok(e) => e,
        Err(e) => return reject(problem::BAD_EVENT, e.to_string()),
    };
    let plan = Plan::for_source(&source.config, event.kind().as_str());
    Ok(Ok(Admitted {
        object: object_for(name, source.config.buckets, event.entity(), event.id()),
        event,
        headers,
        body,
        plan,
        log: loaded.log,
    }))
}

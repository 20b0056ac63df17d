//! The Worker's side of `POST /webhooks/{source}`: steps 2 and 3 (verify, parse) at the
//! edge, so a bad delivery is refused without waking any Durable Object; then the raw
//! delivery goes to the entity's object, which trusts no caller and checks again.

use hookonce_core::{challenge, object_for, Event};
use worker::{Env, Request, Response, Result};

use crate::internal::{Op, ENTITY_BINDING, SOURCE_HEADER};
use crate::{clock, http, problem, sources};

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
    let body = match http::body(&mut req).await {
        Ok(body) => body,
        Err(problem) => return problem,
    };
    if body.len() > limit {
        return problem::TOO_LARGE.respond(format!("the limit for {name} is {limit} bytes"));
    }
    let headers = http::headers(&req, &source.config.headers_read());
    let verified = match source.verifier.verify(&headers, &body, clock::now()) {
        Ok(v) => v,
        Err(e) => return problem::BAD_SIGNATURE.respond(e),
    };
    if let Some(challenge) = challenge(&verified) {
        // Slack's url_verification handshake: answered here, never an event.
        return problem::json_response(
            200,
            &serde_json::json!({ "challenge": challenge }),
            "application/json",
        );
    }
    let event = match Event::parse(&verified, &headers, &source.config.shape) {
        Ok(e) => e,
        Err(e) => return problem::BAD_EVENT.respond(e),
    };
    let object = object_for(name, event.entity(), event.id());
    // One copy of the provider's headers, made by the runtime, not header by header.
    let forwarded = req.headers().clone();
    forwarded.set(SOURCE_HEADER, name)?;
    http::post_to_object(
        env,
        ENTITY_BINDING,
        &object,
        &Op::Ingest.url(),
        forwarded,
        &body,
    )
    .await
}

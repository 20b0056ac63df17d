//! The Worker's side of `POST /v1/messages`: authenticate, check the key and the body,
//! then hand over to the key's object (see `keys`).

use hookonce_core::idempotency::{IdempotencyKey, KeyError};
use hookonce_core::outbound::{HostList, Policy};
use hookonce_core::publish::{self, Message, PublishError};
use worker::{Env, Headers, Request, Response, Result};

use crate::internal::{KEYS_BINDING, KEY_HEADER, PUBLISH_URL, SCOPE_HEADER, STATUS_URL};
use crate::{http, problem, sources};

/// A publish API request's key, scoped to its token, and what the outbound guard allows
/// that token.
struct Caller {
    scoped: (String, IdempotencyKey),
    policy: Policy,
    hosts: Option<HostList>,
}

/// The publish token and the Idempotency-Key of a publish API request, or the problem.
fn authenticate(req: &Request, env: &Env) -> std::result::Result<Caller, Result<Response>> {
    let loaded = sources::load(env);
    let loaded = match &*loaded {
        Ok(l) => l,
        Err(_) => return Err(sources::misconfigured()),
    };
    if loaded.publish_tokens.is_empty() {
        return Err(problem::UNAUTHORIZED.respond("the publish API is off on this deployment"));
    }
    let tokens = loaded.publish_tokens.iter().map(|t| t.token.as_str());
    let Some(token) = http::bearer(req, tokens) else {
        return Err(problem::UNAUTHORIZED.respond("send Authorization: Bearer <publish token>"));
    };
    let header = req.headers().get("idempotency-key").ok().flatten();
    let hosts = loaded
        .publish_tokens
        .iter()
        .find(|t| t.token == token)
        .and_then(|t| t.hosts.clone());
    match IdempotencyKey::parse(header.as_deref()) {
        Ok(key) => Ok(Caller {
            scoped: (publish::scope(token, &key), key),
            policy: loaded.outbound,
            hosts,
        }),
        Err(e @ KeyError::Missing) => Err(problem::KEY_MISSING.respond(e)),
        Err(e) => Err(problem::KEY_MALFORMED.respond(e)),
    }
}

/// The key's object, named by its scope, with the key passed on.
async fn call_key_object(
    env: &Env,
    (scope, key): &(String, IdempotencyKey),
    url: &str,
    body: &[u8],
) -> Result<Response> {
    let headers = Headers::new();
    headers.set(KEY_HEADER, key.as_str())?;
    headers.set(SCOPE_HEADER, scope)?;
    http::post_to_object(env, KEYS_BINDING, scope, url, headers, body).await
}

/// `POST /v1/messages`.
pub async fn publish(req: Request, env: &Env) -> Result<Response> {
    let caller = match authenticate(&req, env) {
        Ok(c) => c,
        Err(problem) => return problem,
    };
    let body = match http::body(req.inner(), publish::MAX_BODY).await {
        Ok(body) => body,
        Err(e) => return e.respond(),
    };
    let admitted =
        Message::parse(&body).and_then(|m| m.admit(caller.policy, caller.hosts.as_ref()));
    match admitted {
        Ok(()) => call_key_object(env, &caller.scoped, PUBLISH_URL, &body).await,
        Err(PublishError::Destination(refusal)) => problem::DESTINATION_REFUSED.respond_with(
            &format!("destination: {refusal}"),
            serde_json::json!({ "rule": refusal.rule() }),
        ),
        Err(e) => problem::BAD_REQUEST.respond(e),
    }
}

/// `GET /v1/messages/status`: how the delivery of the key's message is going.
pub async fn status(req: Request, env: &Env) -> Result<Response> {
    match authenticate(&req, env) {
        Ok(caller) => call_key_object(env, &caller.scoped, STATUS_URL, b"").await,
        Err(problem) => problem,
    }
}

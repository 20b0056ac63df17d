//! The Worker's side of `POST /v1/messages`: authenticate, check the key and the body,
//! then hand over to the key's object (see `keys`).

use hookonce_core::{key_scope, IdempotencyKey, KeyError, Message, PUBLISH_MAX_BODY};
use worker::{Env, Headers, Request, Response, Result};

use crate::internal::{KEYS_BINDING, KEY_HEADER, PUBLISH_URL, SCOPE_HEADER, STATUS_URL};
use crate::{http, problem, sources};

/// The publish token and the Idempotency-Key of a publish API request, or the problem.
fn authenticate(
    req: &Request,
    env: &Env,
) -> std::result::Result<(String, IdempotencyKey), Result<Response>> {
    let loaded = sources::load(env);
    let loaded = match &*loaded {
        Ok(l) => l,
        Err(_) => return Err(sources::misconfigured()),
    };
    if loaded.publish_tokens.is_empty() {
        return Err(problem::UNAUTHORIZED.respond("the publish API is off on this deployment"));
    }
    let Some(token) = http::bearer(req, loaded.publish_tokens.iter().map(String::as_str)) else {
        return Err(problem::UNAUTHORIZED.respond("send Authorization: Bearer <publish token>"));
    };
    let header = req.headers().get("idempotency-key").ok().flatten();
    match IdempotencyKey::parse(header.as_deref()) {
        Ok(key) => Ok((key_scope(token, &key), key)),
        Err(e @ KeyError::Missing) => Err(problem::KEY_MISSING.respond(e)),
        Err(e @ KeyError::Malformed(_)) => Err(problem::KEY_MALFORMED.respond(e)),
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
    let scoped = match authenticate(&req, env) {
        Ok(s) => s,
        Err(problem) => return problem,
    };
    let body = match http::body(req.inner(), PUBLISH_MAX_BODY).await {
        Ok(body) => body,
        Err(e) => return e.respond(),
    };
    if let Err(e) = Message::parse(&body) {
        return problem::BAD_REQUEST.respond(e);
    }
    call_key_object(env, &scoped, PUBLISH_URL, &body).await
}

/// `GET /v1/messages/status`: how the delivery of the key's message is going.
pub async fn status(req: Request, env: &Env) -> Result<Response> {
    match authenticate(&req, env) {
        Ok(scoped) => call_key_object(env, &scoped, STATUS_URL, b"").await,
        Err(problem) => problem,
    }
}

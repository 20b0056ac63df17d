//! The Worker's side of `POST /v1/messages`: authenticate, check the key and the body,
//! then hand over to the key's object (see `keys`).

use hookonce_core::{key_scope, IdempotencyKey, KeyError, Message, PUBLISH_MAX_BODY};
use worker::{Env, Headers, Request, Response, Result};

use crate::internal::{KEYS_BINDING, KEY_HEADER, PUBLISH_URL, SCOPE_HEADER};
use crate::{http, problem, sources};

pub async fn publish(mut req: Request, env: &Env) -> Result<Response> {
    let loaded = sources::load(env);
    let loaded = match &*loaded {
        Ok(l) => l,
        Err(e) => return problem::CONFIG.respond(e),
    };
    if loaded.publish_tokens.is_empty() {
        return problem::UNAUTHORIZED
            .respond("the publish API is off: set HOOKONCE_PUBLISH_TOKENS");
    }
    let Some(token) = http::bearer(&req, loaded.publish_tokens.iter().map(String::as_str)) else {
        return problem::UNAUTHORIZED.respond("send Authorization: Bearer <publish token>");
    };
    let key = match IdempotencyKey::parse(req.headers().get("idempotency-key")?.as_deref()) {
        Ok(k) => k,
        Err(e @ KeyError::Missing) => return problem::KEY_MISSING.respond(e),
        Err(e @ KeyError::Malformed(_)) => return problem::KEY_MALFORMED.respond(e),
    };
    let body = match http::body(&mut req).await {
        Ok(body) => body,
        Err(problem) => return problem,
    };
    if body.len() > PUBLISH_MAX_BODY {
        return problem::TOO_LARGE.respond(format!("the limit is {} bytes", PUBLISH_MAX_BODY));
    }
    if let Err(e) = Message::parse(&body) {
        return problem::BAD_REQUEST.respond(e);
    }
    let headers = Headers::new();
    let scope = key_scope(token, &key);
    headers.set(KEY_HEADER, key.as_str())?;
    headers.set(SCOPE_HEADER, &scope)?;
    http::post_to_object(env, KEYS_BINDING, &scope, PUBLISH_URL, headers, &body).await
}

//! Small request helpers shared by the Worker and the Durable Objects.

use worker::{js_sys, Env, Headers, Method, Request, RequestInit, Response, Result};

use crate::problem;

/// The named request headers that are present, as owned pairs. Each lookup crosses into
/// JavaScript, so only what a source reads is copied, not every header.
pub fn headers(req: &Request, names: &[&str]) -> Vec<(String, String)> {
    let h = req.headers();
    names
        .iter()
        .filter_map(|n| Some((n.to_string(), h.get(n).ok().flatten()?)))
        .collect()
}

/// The whole request body, or the problem to answer when it cannot be read whole (the
/// client declared more than it sent, or sent a malformed chunked body): the client's
/// fault, so a 400, never a 500.
pub async fn body(req: &mut Request) -> std::result::Result<Vec<u8>, Result<Response>> {
    req.bytes()
        .await
        .map_err(|_| problem::BAD_REQUEST.respond("the request body could not be read whole"))
}

/// Compares two secrets in time independent of where they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether `req` carries `Authorization: Bearer <one of tokens>`; returns the token matched.
pub fn bearer<'t>(req: &Request, tokens: impl IntoIterator<Item = &'t str>) -> Option<&'t str> {
    let header = req.headers().get("authorization").ok().flatten()?;
    let presented = header
        .strip_prefix("Bearer ")
        .or_else(|| header.strip_prefix("bearer "))?
        .trim();
    tokens
        .into_iter()
        .find(|t| constant_time_eq(t.as_bytes(), presented.as_bytes()))
}

/// Adds a header to a response, keeping its body and status.
pub fn with_header(mut resp: Response, name: &str, value: &str) -> Result<Response> {
    resp.headers_mut().set(name, value)?;
    Ok(resp)
}

/// POSTs `body` to the Durable Object `object` of namespace `binding`. A failure of the
/// object is the one case hookonce answers 503: nothing was made durable, so retry.
pub async fn post_to_object(
    env: &Env,
    binding: &str,
    object: &str,
    url: &str,
    headers: Headers,
    body: &[u8],
) -> Result<Response> {
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_headers(headers)
        .with_body(Some(js_sys::Uint8Array::from(body).into()));
    let inner = Request::new_with_init(url, &init)?;
    let stub = env.durable_object(binding)?.get_by_name(object)?;
    match stub.fetch_with_request(inner).await {
        Ok(resp) => Ok(resp),
        Err(e) => problem::NOT_DURABLE.respond(format!("the {binding} store failed: {e}")),
    }
}

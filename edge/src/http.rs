//! Small request helpers shared by the Worker and the Durable Objects.

use hookonce_core::body::{BodyLimit, Read, TooLarge};
use hookonce_core::log::{self, LogLevel};
use hookonce_core::token::token_matches;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use worker::{js_sys, web_sys, Env, Headers, Request, Response, Result};

use crate::{logs, problem, task};

/// The named request headers that are present, as owned pairs. Each lookup crosses into
/// JavaScript, so only what a source reads is copied, not every header.
pub fn headers(h: &web_sys::Headers, names: &[&str]) -> Vec<(String, String)> {
    names
        .iter()
        .filter_map(|n| Some((n.to_string(), h.get(n).ok().flatten()?)))
        .collect()
}

/// Why a request body was not read.
pub enum BodyError {
    /// Over the limit, declared or counted: core's decision, for a 413.
    TooLarge(TooLarge),
    /// Not readable whole (the client declared more than it sent, or sent a malformed
    /// chunked body): the client's fault, a 400, never a 500.
    Unreadable,
}

impl BodyError {
    /// The problem to answer.
    pub fn respond(self) -> Result<Response> {
        match self {
            BodyError::TooLarge(e) => problem::TOO_LARGE.respond(e),
            BodyError::Unreadable => {
                problem::BAD_REQUEST.respond("the request body could not be read whole")
            }
        }
    }
}

/// The request body, counted against `limit` (core's [`BodyLimit`]): a declared length
/// over the limit is refused before anything is read; a declared length within it is read
/// whole in one call (the runtime holds the client to it); a chunked body is read chunk by
/// chunk from the runtime's stream and refused as soon as it passes the limit. So no more
/// than `limit` bytes are ever held here (and one chunk on the runtime's side). Read from
/// the runtime's request: nothing else reads it.
pub async fn body(req: &web_sys::Request, limit: usize) -> std::result::Result<Vec<u8>, BodyError> {
    let mut count = BodyLimit::new(limit);
    let declared = req.headers().get("content-length").ok().flatten();
    let read = count
        .declared(declared.as_deref())
        .map_err(BodyError::TooLarge)?;
    if let Read::Whole(_) = read {
        // One call and one copy: a stream reader's promises and lookups per chunk cost
        // about 50 us an event here (bench/FINDINGS.md).
        let read = match req.array_buffer() {
            Ok(promise) => task::wait(promise).await,
            Err(e) => Err(e),
        };
        return read
            .map(|buf| js_sys::Uint8Array::new(&buf).to_vec())
            .map_err(|_| BodyError::Unreadable);
    }
    let Some(stream) = req.body() else {
        return Ok(Vec::new());
    };
    let reader: web_sys::ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut body = Vec::new();
    loop {
        let next = task::wait(reader.read())
            .await
            .map_err(|_| BodyError::Unreadable)?;
        let field = |name: &str| js_sys::Reflect::get(&next, &JsValue::from_str(name));
        if field("done")
            .map_err(|_| BodyError::Unreadable)?
            .is_truthy()
        {
            return Ok(body);
        }
        let chunk: js_sys::Uint8Array = field("value")
            .ok()
            .and_then(|v| v.dyn_into().ok())
            .ok_or(BodyError::Unreadable)?;
        let total = match count.chunk(chunk.length() as usize) {
            Ok(total) => total,
            Err(e) => {
                // Nothing more is read; the rest of the body is the runtime's to discard.
                let _ = reader.cancel();
                return Err(BodyError::TooLarge(e));
            }
        };
        let room = count.room(body.capacity(), total);
        body.reserve_exact(room - body.len());
        let start = body.len();
        body.resize(total, 0);
        chunk.copy_to(&mut body[start..]);
    }
}

/// Whether `req` carries `Authorization: Bearer <one of tokens>`; returns the token matched.
pub fn bearer<'t>(req: &Request, tokens: impl IntoIterator<Item = &'t str>) -> Option<&'t str> {
    let header = req.headers().get("authorization").ok().flatten()?;
    let presented = header
        .strip_prefix("Bearer ")
        .or_else(|| header.strip_prefix("bearer "))?
        .trim();
    tokens.into_iter().find(|t| token_matches(t, presented))
}

/// The runtime's own `Response` of `body`, with `status` and a copy of `headers`: one
/// constructor call. Built through workers-rs, the same answer makes two `Headers`
/// objects (one of them thrown away) and sets each header across the boundary before it
/// is converted.
pub fn runtime_response(
    status: u16,
    body: &[u8],
    headers: &web_sys::Headers,
) -> Result<web_sys::Response> {
    let init = web_sys::ResponseInit::new();
    init.set_status(status);
    init.set_headers(headers);
    let body = js_sys::Uint8Array::from(body);
    Ok(web_sys::Response::new_with_opt_buffer_source_and_init(
        Some(&body),
        &init,
    )?)
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
    Ok(Response::from(
        call_object(env, binding, object, url, Some(&headers.0), body).await?,
    ))
}

#[wasm_bindgen]
extern "C" {
    /// A Durable Object stub or a `Fetcher` binding (the static assets), for
    /// `fetch(url, init)`: no `Request` is built on our side, and the answer stays the
    /// runtime's `Response`, passed on as it is.
    pub type RawStub;

    #[wasm_bindgen(method, catch, js_name = fetch)]
    fn fetch_with_init(
        this: &RawStub,
        url: &str,
        init: &web_sys::RequestInit,
    ) -> std::result::Result<js_sys::Promise, JsValue>;
}

/// [`post_to_object`] for the hot path: the object's answer as the runtime's own
/// `Response`, so the Worker returns it without converting it twice.
pub async fn call_object(
    env: &Env,
    binding: &str,
    object: &str,
    url: &str,
    headers: Option<&web_sys::Headers>,
    body: &[u8],
) -> Result<web_sys::Response> {
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    if let Some(headers) = headers {
        init.set_headers(headers);
    }
    init.set_body(&js_sys::Uint8Array::from(body));
    ask_object(env, binding, object, url, &init).await
}

/// A read or admin operation of an object: `GET`, or `POST` with no body.
pub async fn query_object(
    env: &Env,
    binding: &str,
    object: &str,
    url: &str,
    post: bool,
) -> Result<Response> {
    let init = web_sys::RequestInit::new();
    init.set_method(if post { "POST" } else { "GET" });
    Ok(Response::from(
        ask_object(env, binding, object, url, &init).await?,
    ))
}

/// What a caller is told when a Durable Object call fails: that nothing was written and a
/// retry is safe, never the runtime's error.
const STORE_FAILED: &str = "hookonce's storage did not answer; nothing was written; retry";

/// Fetches `url` from the object named `object` with `init`; a failed call is answered
/// with a problem, as the runtime's `Response`.
async fn ask_object(
    env: &Env,
    binding: &str,
    object: &str,
    url: &str,
    init: &web_sys::RequestInit,
) -> Result<web_sys::Response> {
    let stub: RawStub = env.durable_object(binding)?.get_by_name(object)?.into_rpc();
    match fetch_raw(stub, url, init).await {
        Ok(resp) => Ok(resp),
        Err(e) => {
            // The runtime's text names bindings and internals: the log has it, the caller
            // (perhaps unauthenticated) gets the generic problem.
            logs::emit(LogLevel::Error, log::object_failed(binding, &e.to_string()));
            let resp = problem::NOT_DURABLE.respond(STORE_FAILED)?;
            Ok(resp.into())
        }
    }
}

/// `target.fetch(url, init)` on a stub or service binding, answered as the runtime's own
/// `Response`.
pub async fn fetch_raw(
    target: RawStub,
    url: &str,
    init: &web_sys::RequestInit,
) -> Result<web_sys::Response> {
    let answer = match target.fetch_with_init(url, init) {
        Ok(promise) => task::wait(promise).await,
        Err(e) => Err(e),
    };
    Ok(answer?.unchecked_into())
}

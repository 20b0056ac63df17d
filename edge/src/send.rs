//! Outgoing HTTP: one signed POST of a stored body to the application.

use hookonce_core::{
    forwarded_key, parse_retry_after, signature_headers, AttemptResult, Secret, Target,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use worker::{js_sys, AbortSignal, Fetch, Headers, Method, Request, RequestInit};

use crate::clock;

#[wasm_bindgen]
extern "C" {
    /// `AbortSignal.timeout(ms)`: a signal that aborts by itself.
    #[wasm_bindgen(js_namespace = AbortSignal, js_name = timeout)]
    fn abort_after(ms: u32) -> JsValue;
}

/// One forwarded event, as it goes out.
pub struct Outgoing<'a> {
    pub source: &'a str,
    pub event_id: &'a str,
    pub attempt: u32,
    pub body: &'a [u8],
}

/// POSTs the event to `target`, signed with hookonce's own Standard Webhooks secret, with
/// the event id as `Idempotency-Key` and `webhook-id`; classifies the answer.
pub async fn post(target: Target<'_>, secret: &Secret, out: Outgoing<'_>) -> AttemptResult {
    let now = clock::now();
    let headers = Headers::new();
    let set = || -> worker::Result<()> {
        headers.set("content-type", "application/json")?;
        headers.set("idempotency-key", &forwarded_key(out.event_id))?;
        for (name, value) in signature_headers(
            &hookonce_core::Scheme::StandardWebhooks,
            secret,
            out.event_id,
            now,
            out.body,
        ) {
            headers.set(name, &value)?;
        }
        headers.set("hookonce-source", out.source)?;
        headers.set("hookonce-attempt", &out.attempt.to_string())?;
        Ok(())
    };
    if set().is_err() {
        return AttemptResult::NetworkError;
    }
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_headers(headers)
        .with_body(Some(js_sys::Uint8Array::from(out.body).into()));
    let Ok(req) = Request::new_with_init(target.url, &init) else {
        return AttemptResult::NetworkError;
    };
    let ms = u32::try_from(target.timeout.0.saturating_mul(1000)).unwrap_or(u32::MAX);
    let signal =
        AbortSignal::from(abort_after(ms).unchecked_into::<worker::web_sys::AbortSignal>());
    match Fetch::Request(req).send_with_signal(&signal).await {
        Ok(resp) => AttemptResult::Status {
            code: resp.status_code(),
            retry_after: resp
                .headers()
                .get("retry-after")
                .ok()
                .flatten()
                .and_then(|v| parse_retry_after(&v, clock::now())),
        },
        Err(_) if signal.aborted() => AttemptResult::Timeout,
        Err(_) => AttemptResult::NetworkError,
    }
}

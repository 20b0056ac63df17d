//! Outgoing deliveries: one attempt to send a stored event to its destination, as a signed
//! POST to a URL or through a service binding, or as a message to a queue.

use hookonce_core::config::Destination;
use hookonce_core::forward::{self, queue_message, Outgoing, SERVICE_URL};
use hookonce_core::outbox::Target;
use hookonce_core::retry::AttemptResult;
use hookonce_core::verify::Secret;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use worker::{
    js_sys, web_sys, AbortSignal, Env, Fetch, QueueContentType, RawMessageBuilder, Request,
    Response,
};

use crate::clock;

#[wasm_bindgen]
extern "C" {
    /// `AbortSignal.timeout(ms)`: a signal that aborts by itself.
    #[wasm_bindgen(js_namespace = AbortSignal, js_name = timeout)]
    fn abort_after(ms: u32) -> JsValue;
}

/// Sends `out` to `target`, signed with hookonce's own Standard Webhooks secret, with the
/// event id as `Idempotency-Key` and `webhook-id`; classifies what happened. A binding the
/// environment lacks fails the attempt (the configuration check at load makes that rare).
pub async fn attempt(
    env: &Env,
    target: Target<'_>,
    secrets: &[Secret],
    out: Outgoing<'_>,
) -> AttemptResult {
    let headers = forward::headers(secrets, &out, clock::now());
    match target.destination {
        Destination::Url(url) => match post(url, &headers, out.body, target) {
            Some((req, signal)) => {
                answer(Fetch::Request(req).send_with_signal(&signal).await, &signal)
            }
            None => AttemptResult::NetworkError,
        },
        Destination::Service(binding) => {
            match (
                env.service(binding),
                post(SERVICE_URL, &headers, out.body, target),
            ) {
                // The request carries the signal, so the timeout holds through the binding.
                (Ok(service), Some((req, signal))) => {
                    answer(service.fetch_request(req).await, &signal)
                }
                _ => AttemptResult::NetworkError,
            }
        }
        Destination::Queue(binding) => {
            let message = match queue_message(&headers, &out) {
                Ok(m) => m,
                Err(e) => return e.into(),
            };
            let (Ok(queue), Ok(body)) = (env.queue(binding), js_sys::JSON::parse(&message)) else {
                return AttemptResult::QueueError;
            };
            let message =
                RawMessageBuilder::new(body).build_with_content_type(QueueContentType::Json);
            match queue.send_raw(message).await {
                Ok(()) => AttemptResult::Enqueued,
                Err(_) => AttemptResult::QueueError,
            }
        }
    }
}

/// The signed POST, carrying a signal that aborts it after the target's timeout.
fn post(
    url: &str,
    headers: &[(&str, String)],
    body: &[u8],
    target: Target<'_>,
) -> Option<(Request, AbortSignal)> {
    let ms = u32::try_from(target.timeout.0.saturating_mul(1000)).unwrap_or(u32::MAX);
    let signal = abort_after(ms).unchecked_into::<web_sys::AbortSignal>();
    let h = web_sys::Headers::new().ok()?;
    for (name, value) in headers {
        h.set(name, value).ok()?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&h);
    init.set_body(&js_sys::Uint8Array::from(body));
    init.set_signal(Some(&signal));
    // A redirect is answered, never followed: the signed body goes where it was configured.
    init.set_redirect(web_sys::RequestRedirect::Manual);
    let req = web_sys::Request::new_with_str_and_init(url, &init).ok()?;
    Some((Request::from(req), AbortSignal::from(signal)))
}

/// What an HTTP answer came to (core's [`AttemptResult::answered`]), or why there was none.
fn answer(sent: worker::Result<Response>, signal: &AbortSignal) -> AttemptResult {
    match sent {
        Ok(resp) => {
            let header = |name| resp.headers().get(name).ok().flatten();
            AttemptResult::answered(
                resp.status_code(),
                header("retry-after").as_deref(),
                header("location").as_deref(),
                clock::now(),
            )
        }
        Err(_) if signal.aborted() => AttemptResult::Timeout,
        Err(_) => AttemptResult::NetworkError,
    }
}

//! The benchmark's Rust floor: the JS floor (`bench/floor/worker.js`) written in Rust, and
//! talking to the runtime as hookonce's edge does on a delivery, so that it measures what
//! a Worker in Rust costs before it does any work.
//!
//! - The Worker takes the runtime's request as it is, reads the body once, finds the
//!   entity (`data.object.id`, borrowed from the body), and calls that entity's object
//!   with `fetch(url, init)` on the raw stub; the object's answer is passed on unconverted
//!   (`edge/src/http.rs`, `call_object`).
//! - Every future runs on hookonce's own executor, and every promise is awaited with its
//!   `wait` (`edge/src/task.rs`, the same file).
//! - The object answers at once in hookonce's shape (200, `Hookonce-Outcome`, JSON with
//!   `rows_written`), built as the runtime's own `Response`: it writes and verifies nothing.
//!
//! `bench/run.sh` reports hookonce as a fraction of this floor and of the JS one.

use std::borrow::Cow;

use serde::Deserialize;
use wasm_bindgen::prelude::*;
use worker::{js_sys, web_sys, worker_sys, Env};

#[path = "../../../edge/src/task.rs"]
#[allow(dead_code, unused_macros, unused_imports)]
mod task;

#[wasm_bindgen]
extern "C" {
    /// A Durable Object stub, called with `fetch(url, init)`.
    type RawStub;

    #[wasm_bindgen(method, catch, js_name = fetch)]
    fn fetch_with_init(
        this: &RawStub,
        url: &str,
        init: &web_sys::RequestInit,
    ) -> Result<js_sys::Promise, JsValue>;
}

/// `data.object.id`, as the peer and the JS floor find it.
fn entity_of(body: &[u8]) -> Option<Cow<'_, str>> {
    #[derive(Deserialize)]
    struct Object<'a> {
        #[serde(borrow)]
        id: Cow<'a, str>,
    }
    #[derive(Deserialize)]
    struct Data<'a> {
        #[serde(borrow)]
        object: Object<'a>,
    }
    #[derive(Deserialize)]
    struct Event<'a> {
        #[serde(borrow)]
        data: Data<'a>,
    }
    serde_json::from_slice::<Event>(body)
        .ok()
        .map(|e| e.data.object.id)
}

/// A plain-text answer with `status`.
fn text(status: u16, body: &str) -> Result<web_sys::Response, JsValue> {
    let init = web_sys::ResponseInit::new();
    init.set_status(status);
    web_sys::Response::new_with_opt_str_and_init(Some(body), &init)
}

#[wasm_bindgen]
pub fn fetch(req: web_sys::Request, env: Env, _ctx: worker_sys::Context) -> js_sys::Promise {
    task::promise(async move {
        let buf = task::wait(req.array_buffer()?).await?;
        let body = js_sys::Uint8Array::new(&buf).to_vec();
        let Some(entity) = entity_of(&body) else {
            return Ok(text(400, "no data.object.id")?.into());
        };
        let stub: RawStub = env
            .durable_object("ENTITY")
            .and_then(|ns| ns.get_by_name(&entity))
            .map_err(|e| JsValue::from_str(&e.to_string()))?
            .into_rpc();
        let init = web_sys::RequestInit::new();
        init.set_method("POST");
        init.set_body(&js_sys::Uint8Array::from(&body[..]));
        task::wait(stub.fetch_with_init("https://entity.floor/", &init)?).await
    })
}

/// Exports a Durable Object class whose `fetch` answers at once with `answer()`.
macro_rules! object {
    ($rust:ident as $class:literal, $answer:expr) => {
        #[wasm_bindgen(js_name = $class)]
        pub struct $rust;

        #[wasm_bindgen(js_class = $class)]
        impl $rust {
            #[wasm_bindgen(constructor)]
            pub fn new(_state: worker_sys::DurableObjectState, _env: Env) -> Self {
                Self
            }

            pub fn fetch(&self, _req: web_sys::Request) -> js_sys::Promise {
                let answer: fn() -> Result<web_sys::Response, JsValue> = $answer;
                match answer() {
                    Ok(resp) => js_sys::Promise::resolve(&JsValue::from(resp)),
                    Err(e) => js_sys::Promise::reject(&e),
                }
            }
        }
    };
}

object!(EntityObject as "EntityObject", || {
    let headers = web_sys::Headers::new()?;
    headers.set("content-type", "application/json")?;
    headers.set("hookonce-outcome", "applied")?;
    let init = web_sys::ResponseInit::new();
    init.set_headers(&headers);
    web_sys::Response::new_with_opt_str_and_init(
        Some(r#"{"outcome":"applied","rows_written":0}"#),
        &init,
    )
});
// The same namespaces as the other workers, so all run under one config shape.
object!(KeyObject as "KeyObject", || text(404, ""));
object!(FeedObject as "FeedObject", || text(404, ""));
object!(GateObject as "GateObject", || text(404, ""));

//! The Durable Object behind the publish API, one per (token, Idempotency-Key), after
//! draft-ietf-httpapi-idempotency-key-header.
//!
//! Core's `publish::handle` decides a request and returns its rows as `KeyWrite`s: the key
//! record, the message, its body and its outbox row, written in one transaction, so
//! there is no window in which a key is "in progress": a concurrent copy waits for the
//! object's input gate and then sees the completed key. Webhook deduplication shares none
//! of this state.

use hookonce_core::idempotency::{IdempotencyKey, StoredResponse};
use hookonce_core::publish::{self, Expiry, KeyAnswer, KeyWrite, Message};
use hookonce_core::time::UnixSeconds;
use worker::{web_sys, Env, Headers, Request, Response, Result, State};

use crate::internal::{KEY_HEADER, SCOPE_HEADER};
use crate::problem::json_response;
use crate::sources::Loaded;
use crate::store::keys::KeyStore;
use crate::task::export_object;
use crate::{clock, outbox, problem, sources, store};

export_object!(KeyObjectClass as "KeyObject" for KeyObject, alarm);

pub struct KeyObject {
    state: State,
    env: Env,
    armed: outbox::Armed,
    runs: outbox::Runs,
}

/// What the key's transaction decided, owned so it can leave the closure.
enum Reply {
    Created(StoredResponse),
    Replay(StoredResponse),
    Mismatch,
}

impl KeyObject {
    fn new(state: State, env: Env) -> Self {
        let opened = KeyStore::create(&state);
        let armed = outbox::Armed::default();
        outbox::rearm_on_start(&state, &armed, None, &opened);
        Self {
            state,
            env,
            armed,
            runs: outbox::Runs::default(),
        }
    }

    async fn fetch(&self, req: web_sys::Request) -> Result<Response> {
        let mut req = Request::from(req);
        if req.path() == "/status" {
            return self.status();
        }
        let loaded = sources::load(&self.env);
        let loaded = match &*loaded {
            Ok(l) => l,
            // Its answer goes to a publish client: no field or binding names.
            Err(_) => return sources::misconfigured(),
        };
        let raw_key = req.headers().get(KEY_HEADER)?.unwrap_or_default();
        let scope = req.headers().get(SCOPE_HEADER)?.unwrap_or_default();
        let Ok(key) = IdempotencyKey::from_value(&raw_key) else {
            return problem::BAD_REQUEST.respond("internal request without a valid key");
        };
        let body = req.bytes().await?;
        let message = match Message::parse(&body) {
            Ok(m) => m,
            Err(e) => return problem::BAD_REQUEST.respond(e),
        };
        let now = clock::now();
        let request = publish::Request {
            key: &key,
            scope: &scope,
            body: &body,
            message: &message,
        };
        match self.claim(request, now, loaded)? {
            Reply::Created(resp) => {
                // Delivery now; the alarm then keeps itself set until the key expires.
                outbox::ensure_alarm(&self.state, &self.armed, now).await?;
                respond(&resp, false)
            }
            Reply::Replay(resp) => respond(&resp, true),
            Reply::Mismatch => problem::KEY_MISMATCH.respond(format!(
                "key {key} was first used with a different request body"
            )),
        }
    }

    async fn alarm(&self) -> Result<Response> {
        // Published messages belong to no source: `/metrics` does not count their attempts.
        let mut attempts = Vec::new();
        if outbox::on_alarm(
            &self.state,
            &self.armed,
            &self.runs,
            &self.env,
            &mut attempts,
        )
        .await?
        .is_some()
        {
            self.prune().await?;
        }
        Response::ok("done")
    }
}

impl KeyObject {
    /// Reads the key, asks core, and runs the writes it returns as one unit.
    fn claim(
        &self,
        request: publish::Request<'_>,
        now: UnixSeconds,
        loaded: &Loaded,
    ) -> Result<Reply> {
        let store = KeyStore::new(&self.state);
        let accepted_ms = clock::millis() as i64;
        store::sqlite::transaction(&self.state, || {
            let stored = store.key()?;
            let step = publish::handle(
                stored.as_ref(),
                request,
                now,
                accepted_ms,
                &loaded.key_policy,
            );
            for w in &step.writes {
                write(&store, w)?;
            }
            Ok(match step.answer {
                KeyAnswer::Accepted(receipt) => Reply::Created(receipt),
                KeyAnswer::Replay(receipt) => Reply::Replay(receipt.clone()),
                KeyAnswer::Mismatch => Reply::Mismatch,
            })
        })
    }

    /// `GET /v1/messages/status`: the delivery of this key's message.
    fn status(&self) -> Result<Response> {
        match KeyStore::new(&self.state).latest_delivery()? {
            None => problem::NOT_FOUND.respond("no message was published under this key"),
            Some(r) => json_response(
                200,
                &serde_json::json!({
                    "message_id": r.event_id,
                    "status": r.status,
                    "attempts": r.attempts,
                    "next_attempt_at": r.next_attempt_at,
                    "last_result": r.last_result,
                    "done_at": r.done_at,
                }),
                "application/json",
            ),
        }
    }

    /// Forgets an expired key, keeping the message's delivery record, or sets the alarm for
    /// when it expires.
    async fn prune(&self) -> Result<()> {
        let store = KeyStore::new(&self.state);
        match publish::expiry(store.key()?.as_ref(), clock::now()) {
            None => {}
            Some(Expiry::Forget) => write(&store, &KeyWrite::Forget)?,
            Some(Expiry::At(t)) => outbox::ensure_alarm(&self.state, &self.armed, t).await?,
        }
        Ok(())
    }
}

/// One statement per write.
fn write(store: &KeyStore, w: &KeyWrite) -> Result<()> {
    match w {
        KeyWrite::Key { key, state } => store.put_key(key, state),
        KeyWrite::Message {
            message_id,
            event_type,
            destination,
            accepted_at,
        } => store.message(message_id, event_type, destination, *accepted_at),
        KeyWrite::Body {
            message_id,
            envelope,
            at,
        } => store.keep_body(message_id, envelope, *at),
        KeyWrite::Enqueue {
            message_id,
            destination,
            at,
        } => store.enqueue(message_id, destination, *at),
        KeyWrite::Forget => store.forget_key(),
    }
}

fn respond(stored: &StoredResponse, replayed: bool) -> Result<Response> {
    let headers = Headers::new();
    headers.set("content-type", &stored.content_type)?;
    if replayed {
        headers.set("idempotent-replayed", "true")?;
    }
    Ok(Response::from_bytes(stored.body.clone())?
        .with_status(stored.status)
        .with_headers(headers))
}

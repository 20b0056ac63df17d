//! Forwarding applied events to the application.
//!
//! Asynchronous mode: the Apply unit wrote an outbox row; the entity's alarm delivers the
//! rows in order, head of line first, and `retry::Schedule` decides what follows each
//! attempt. Alarms fire at least once, so a row may be sent twice: it always carries the
//! same `Idempotency-Key` (the event id) and the same `webhook-id`.
//!
//! Synchronous mode: the event is claimed with a lease, the destination is called while
//! the provider waits, and the claim is committed on 2xx or released otherwise.

use hookonce_core::config::DEFAULT_FORWARD_TIMEOUT;
use hookonce_core::event::Event;
use hookonce_core::idempotency::IdempotencyKey;
use hookonce_core::retry::{parse_retry_after, AttemptResult, Next, Schedule};
use hookonce_core::verify::Secret;
use hookonce_core::{sign, Seconds, UnixSeconds};
use serde::Deserialize;
use serde_json::json;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use worker::{
    js_sys, AbortSignal, Env, Fetch, Headers, Method, Request, RequestInit, Response, Result,
    ScheduledTime, SqlStorage, SqlStorageValue, State, Storage,
};

use crate::entity::EntityObject;
use crate::problem::{self, json_response};
use crate::sources::{self, Source};
use crate::store::{self, Raw};
use crate::{clock, http, webhook};

#[wasm_bindgen]
extern "C" {
    /// `AbortSignal.timeout(ms)`: a signal that aborts by itself.
    #[wasm_bindgen(js_namespace = AbortSignal, js_name = timeout)]
    fn abort_after(ms: u32) -> JsValue;
}

/// The first row of this entity's outbox that is not done.
#[derive(Deserialize)]
struct Due {
    seq: i64,
    event_id: String,
    source: String,
    attempts: i64,
    first_attempt_at: Option<i64>,
    next_attempt_at: i64,
    destination: Option<String>,
    body: Option<store::Blob>,
}

/// Makes sure the alarm fires no later than `at`.
pub async fn ensure_alarm(state: &State, at: UnixSeconds) -> Result<()> {
    arm(&state.storage(), at).await
}

/// For an object's constructor: if pending outbox rows exist, make sure the alarm is set.
/// The row and the alarm are written in two steps, so a crash between them would otherwise
/// strand the row until the entity's next event; construction follows every restart.
pub fn rearm_on_start(state: &State) {
    #[derive(Deserialize)]
    struct Next {
        at: Option<i64>,
    }
    let storage = state.storage();
    // Discarded on purpose: the gate holds events back until this completes.
    let _gate = state.block_concurrency_while(async move {
        let next: Next = storage
            .sql()
            .exec(
                "SELECT MIN(next_attempt_at) AS at FROM outbox WHERE status = 'pending'",
                None,
            )?
            .one()?;
        if let Some(at) = next.at {
            arm(&storage, UnixSeconds(at)).await?;
        }
        Ok(())
    });
}

async fn arm(storage: &Storage, at: UnixSeconds) -> Result<()> {
    let want = at.0 * 1000;
    match storage.get_alarm().await? {
        Some(existing) if existing <= want => Ok(()),
        // A date, not the bare number: workers-rs reads an `i64` as an offset from now.
        _ => {
            let date = js_sys::Date::new(&JsValue::from_f64(want as f64));
            storage.set_alarm(ScheduledTime::new(date)).await
        }
    }
}

/// The id as the draft's sf-string (`"evt_…"`), so a receiver that parses
/// `Idempotency-Key` strictly reads back exactly the id; an id no sf-string can carry
/// (non-ASCII) is sent as it is, and `webhook-id` always carries it verbatim.
fn idempotency_key(id: &str) -> String {
    IdempotencyKey::from_value(id).map_or_else(|_| id.to_owned(), |k| k.to_header())
}

/// One POST of `body` to the destination, signed with hookonce's own secret.
async fn send(
    url: &str,
    timeout: Seconds,
    secret: &Secret,
    source: &str,
    event_id: &str,
    attempt: i64,
    body: &[u8],
) -> AttemptResult {
    let now = clock::now();
    let headers = Headers::new();
    let signature = sign::standard_webhooks(secret, event_id, now, body);
    let set = || -> Result<()> {
        headers.set("content-type", "application/json")?;
        headers.set("idempotency-key", &idempotency_key(event_id))?;
        headers.set("webhook-id", event_id)?;
        headers.set("webhook-timestamp", &now.0.to_string())?;
        headers.set("webhook-signature", &signature)?;
        headers.set("hookonce-source", source)?;
        headers.set("hookonce-attempt", &attempt.to_string())?;
        Ok(())
    };
    if set().is_err() {
        return AttemptResult::NetworkError;
    }
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_headers(headers)
        .with_body(Some(js_sys::Uint8Array::from(body).into()));
    let Ok(req) = Request::new_with_init(url, &init) else {
        return AttemptResult::NetworkError;
    };
    let ms = u32::try_from(timeout.0.saturating_mul(1000)).unwrap_or(u32::MAX);
    let signal =
        AbortSignal::from(abort_after(ms).unchecked_into::<worker::web_sys::AbortSignal>());
    match Fetch::Request(req).send_with_signal(&signal).await {
        Ok(resp) => {
            let retry_after = resp
                .headers()
                .get("retry-after")
                .ok()
                .flatten()
                .and_then(|v| parse_retry_after(&v, clock::now()));
            AttemptResult::Status {
                code: resp.status_code(),
                retry_after,
            }
        }
        Err(_) if signal.aborted() => AttemptResult::Timeout,
        Err(_) => AttemptResult::NetworkError,
    }
}

fn describe(result: &AttemptResult) -> String {
    match result {
        AttemptResult::Status { code, .. } => format!("http {code}"),
        AttemptResult::Timeout => "timeout".into(),
        AttemptResult::NetworkError => "network error".into(),
    }
}

/// A random per-mille for retry jitter; randomness is the adapter's, not the core's.
fn jitter() -> u16 {
    (js_sys::Math::random() * 1001.0) as u16
}

/// The entity's alarm: deliver due outbox rows in order, then prune ids past retention.
pub async fn run_alarm(state: &State, env: &Env) -> Result<Response> {
    let loaded = sources::load(env);
    let Ok(loaded) = &*loaded else {
        // Retry later: a configuration fix must not lose queued events.
        ensure_alarm(state, clock::now().plus(hookonce_core::Seconds::MINUTE)).await?;
        return Response::ok("configuration error; retrying in a minute");
    };
    deliver_due(state, loaded).await?;
    prune(state, &state.storage().sql(), loaded).await?;
    Response::ok("done")
}

/// Where a row goes: its own destination (published messages, default policy) or its
/// source's configured one.
fn route<'a>(
    loaded: &'a sources::Loaded,
    head: &'a Due,
    default: &'a Schedule,
) -> Option<(&'a str, &'a Schedule, Seconds)> {
    match &head.destination {
        Some(url) => Some((url.as_str(), default, DEFAULT_FORWARD_TIMEOUT)),
        None => loaded
            .source(&head.source)
            .and_then(|s| s.config.forward.as_ref())
            .map(|f| (f.url.as_str(), &f.schedule, f.timeout)),
    }
}

/// Delivers due outbox rows in order, head of line first, until one must wait.
pub async fn deliver_due(state: &State, loaded: &sources::Loaded) -> Result<()> {
    let sql = state.storage().sql();
    let default = Schedule::default();
    loop {
        let now = clock::now();
        let head: Option<Due> = sql
            .exec(
                "SELECT o.seq, o.event_id, o.source, o.attempts, o.first_attempt_at, o.next_attempt_at,
                        o.destination, b.body
                 FROM outbox o LEFT JOIN bodies b ON b.event_id = o.event_id
                 WHERE o.status = 'pending' ORDER BY o.seq LIMIT 1",
                None,
            )?
            .to_array()?
            .into_iter()
            .next();
        let Some(head) = head else { break };
        if head.next_attempt_at > now.0 {
            ensure_alarm(state, UnixSeconds(head.next_attempt_at)).await?;
            break;
        }
        let (Some((url, schedule, timeout)), Some(secret), Some(body)) = (
            route(loaded, &head, &default),
            loaded.forward_secret.as_ref(),
            head.body.as_ref().map(|b| b.0.as_slice()),
        ) else {
            // The source stopped forwarding, or the body is gone: nothing can be sent.
            finish(
                &sql,
                head.seq,
                "dead",
                "cannot be sent: no destination or body",
                now,
            )?;
            continue;
        };
        let attempt = head.attempts + 1;
        let result = send(
            url,
            timeout,
            secret,
            &head.source,
            &head.event_id,
            attempt,
            body,
        )
        .await;
        // Rounded up: a wait of n seconds from a truncated now could end up to 1 s early,
        // before a Retry-After has run out.
        let now = clock::now_ceil();
        let first = UnixSeconds(head.first_attempt_at.unwrap_or(now.0));
        let attempts = u32::try_from(attempt).unwrap_or(u32::MAX);
        match schedule.next(attempts, &result, first, now, jitter()) {
            Next::Delivered => finish(&sql, head.seq, "delivered", &describe(&result), now)?,
            Next::DeadLetter(reason) => {
                let why = format!("{}: {reason}", describe(&result));
                finish(&sql, head.seq, "dead", &why, now)?;
            }
            Next::RetryAt(at) => {
                sql.exec(
                    "UPDATE outbox SET attempts = ?, first_attempt_at = ?, next_attempt_at = ?, last_result = ?
                     WHERE seq = ?",
                    vec![
                        attempt.into(),
                        first.0.into(),
                        at.0.into(),
                        describe(&result).into(),
                        head.seq.into(),
                    ],
                )?;
                // Head-of-line: later rows wait, so the application sees this entity in order.
                ensure_alarm(state, at).await?;
                break;
            }
        }
    }
    Ok(())
}

fn finish(sql: &SqlStorage, seq: i64, status: &str, result: &str, now: UnixSeconds) -> Result<()> {
    sql.exec(
        "UPDATE outbox SET status = ?, attempts = attempts + 1, last_result = ?, done_at = ?,
           first_attempt_at = COALESCE(first_attempt_at, ?) WHERE seq = ?",
        vec![
            status.into(),
            result.into(),
            now.0.into(),
            now.0.into(),
            seq.into(),
        ],
    )?;
    Ok(())
}

/// Forgets processed ids older than the source's retention (never by default).
async fn prune(state: &State, sql: &SqlStorage, loaded: &sources::Loaded) -> Result<()> {
    // An entity object serves one source, named in the object's own name.
    let name = state.id().name();
    let retention = name
        .as_deref()
        .and_then(webhook::source_of)
        .and_then(|source| loaded.source(source))
        .map(|s| s.config.retention);
    let now = clock::now();
    if let Some(cutoff) = retention.and_then(|r| r.prune_before(now)) {
        sql.exec(
            "DELETE FROM events WHERE processed_at < ? AND outcome != 'claimed'",
            vec![SqlStorageValue::from(cutoff.0)],
        )?;
        ensure_alarm(state, now.plus(PRUNE_EVERY)).await?;
    }
    Ok(())
}

/// How often an entity with a finite retention prunes its processed ids.
pub const PRUNE_EVERY: Seconds = Seconds::DAY;

/// `POST /admin/outbox/…/retry`: dead letters go back in the queue, due now.
pub async fn retry_dead(state: &State) -> Result<Response> {
    let now = clock::now();
    let requeued = state
        .storage()
        .sql()
        .exec(
            "UPDATE outbox SET status = 'pending', attempts = 0, first_attempt_at = NULL,
               next_attempt_at = ?, done_at = NULL WHERE status = 'dead'",
            vec![now.0.into()],
        )?
        .rows_written();
    if requeued > 0 {
        ensure_alarm(state, now).await?;
    }
    json_response(200, &json!({ "requeued": requeued }), "application/json")
}

/// Synchronous mode: call the destination under the claim, then commit or release.
pub async fn call_and_commit(
    obj: &EntityObject,
    source: &Source,
    secret: Option<&Secret>,
    event: &Event,
    raw: &Raw<'_>,
    until: UnixSeconds,
) -> Result<Response> {
    let (Some(forward), Some(secret)) = (source.config.forward.as_ref(), secret) else {
        return problem::CONFIG.respond("synchronous forwarding without a destination or secret");
    };
    let result = send(
        &forward.url,
        forward.timeout,
        secret,
        raw.name(),
        event.id().as_str(),
        1,
        raw.body,
    )
    .await;
    match result {
        AttemptResult::Status { code, .. } if (200..300).contains(&code) => {
            obj.commit(source, event, raw)
        }
        other => {
            store::release(&obj.state().storage().sql(), event.id(), until)?;
            let resp = problem::BAD_GATEWAY.respond_with(
                &format!(
                    "destination answered {}; the provider should retry",
                    describe(&other)
                ),
                json!({ "event_id": event.id().as_str() }),
            )?;
            http::with_header(resp, "hookonce-outcome", "released")
        }
    }
}

//! The publish API: `POST /v1/messages` with an `Idempotency-Key`, after
//! draft-ietf-httpapi-idempotency-key-header.
//!
//! Each (token, key) has a Durable Object of its own. The key record, the message and its
//! outbox row are written in one transaction, so there is no window in which a key is
//! "in progress": a concurrent copy waits for the object's input gate and then sees the
//! completed key. Webhook deduplication shares none of this state.

use hookonce_core::idempotency::{
    self, decide, Fingerprint, IdempotencyKey, KeyDecision, KeyError, KeyPolicy, KeyState,
    StoredResponse,
};
use hookonce_core::UnixSeconds;
use serde::Deserialize;
use serde_json::{json, Value};
use worker::{
    durable_object, DurableObject, Env, Headers, Request, Response, Result, SqlStorage,
    SqlStorageValue, State,
};

use crate::problem;
use crate::sources;
use crate::{clock, forward, http, store};

/// Largest publish body.
const MAX_BODY: usize = 1 << 20;
const PATH: &str = "/v1/messages";
const KEY_HEADER: &str = "x-hookonce-key";
/// The (token, key) scope, which message ids are derived from.
const SCOPE_HEADER: &str = "x-hookonce-scope";

/// What a publish request says.
#[derive(Deserialize)]
struct Message {
    destination: String,
    event_type: String,
    payload: Value,
}

fn parse_message(body: &[u8]) -> std::result::Result<Message, String> {
    let m: Message = serde_json::from_slice(body).map_err(|e| {
        format!("the body must be a JSON object with destination, event_type and payload: {e}")
    })?;
    if !(m.destination.starts_with("https://") || m.destination.starts_with("http://")) {
        return Err("destination: expected an http:// or https:// URL".into());
    }
    if m.event_type.is_empty() || m.event_type.len() > 255 {
        return Err("event_type: expected 1 to 255 characters".into());
    }
    Ok(m)
}

/// `POST /v1/messages`: authenticate, check the key and body, then the key's object.
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
    let body = req.bytes().await?;
    if body.len() > MAX_BODY {
        return problem::TOO_LARGE.respond(format!("the limit is {MAX_BODY} bytes"));
    }
    if let Err(e) = parse_message(&body) {
        return problem::BAD_REQUEST.respond(e);
    }
    let headers = Headers::new();
    let scope = idempotency::scope(token, &key);
    headers.set(KEY_HEADER, key.as_str())?;
    headers.set(SCOPE_HEADER, &scope)?;
    http::post_to_object(
        env,
        "KEYS",
        &scope,
        "https://key.hookonce/publish",
        headers,
        &body,
    )
    .await
}

const KEY_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS idem_key (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  key           TEXT NOT NULL,
  fingerprint   TEXT NOT NULL,
  status        INTEGER NOT NULL,
  content_type  TEXT NOT NULL,
  response      BLOB NOT NULL,
  expires_at    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
  message_id  TEXT PRIMARY KEY,
  event_type  TEXT NOT NULL,
  destination TEXT NOT NULL,
  accepted_at INTEGER NOT NULL
) WITHOUT ROWID;
";

#[derive(Deserialize)]
struct KeyRow {
    fingerprint: String,
    status: i64,
    content_type: String,
    response: store::Blob,
    expires_at: i64,
}

fn read_key(sql: &SqlStorage) -> Result<Option<KeyState>> {
    let row: Option<KeyRow> = sql
        .exec(
            "SELECT fingerprint, status, content_type, response, expires_at FROM idem_key WHERE id = 1",
            None,
        )?
        .to_array()?
        .into_iter()
        .next();
    Ok(row.and_then(|r| {
        Some(KeyState::Completed {
            fingerprint: Fingerprint::from_hex(&r.fingerprint).ok()?,
            response: StoredResponse {
                status: u16::try_from(r.status).ok()?,
                content_type: r.content_type,
                body: r.response.0,
            },
            expires_at: UnixSeconds(r.expires_at),
        })
    }))
}

#[durable_object]
pub struct KeyObject {
    state: State,
    env: Env,
}

/// What the key's transaction decided, owned so it can leave the closure.
enum Reply {
    Created(StoredResponse),
    Replay(StoredResponse),
    Mismatch,
    InProgress(u64),
}

impl DurableObject for KeyObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        for schema in [store::SCHEMA, KEY_SCHEMA] {
            if let Err(e) = sql.exec(schema, None) {
                worker::console_error!("hookonce: creating the key schema failed: {e}");
            }
        }
        forward::rearm_on_start(&state);
        Self { state, env }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let loaded = sources::load(&self.env);
        let loaded = match &*loaded {
            Ok(l) => l,
            Err(e) => return problem::CONFIG.respond(e),
        };
        let key = req.headers().get(KEY_HEADER)?.unwrap_or_default();
        let scope = req.headers().get(SCOPE_HEADER)?.unwrap_or_default();
        let body = req.bytes().await?;
        let message = match parse_message(&body) {
            Ok(m) => m,
            Err(e) => return problem::BAD_REQUEST.respond(e),
        };
        let now = clock::now();
        let reply = self.claim(&key, &scope, &body, &message, now, &loaded.key_policy)?;
        match reply {
            Reply::Created(resp) => {
                // Delivery now; the alarm then keeps itself set until the key expires.
                forward::ensure_alarm(&self.state, now).await?;
                respond(&resp, false)
            }
            Reply::Replay(resp) => respond(&resp, true),
            Reply::Mismatch => problem::KEY_MISMATCH.respond(format!(
                "key {key} was first used with a different request body"
            )),
            Reply::InProgress(secs) => {
                let resp = problem::KEY_IN_PROGRESS.respond(format!("retry in {secs} s"))?;
                http::with_header(resp, "retry-after", &secs.to_string())
            }
        }
    }

    async fn alarm(&self) -> Result<Response> {
        let loaded = sources::load(&self.env);
        let Ok(loaded) = &*loaded else {
            forward::ensure_alarm(
                &self.state,
                clock::now().plus(hookonce_core::Seconds::MINUTE),
            )
            .await?;
            return Response::ok("configuration error; retrying in a minute");
        };
        forward::deliver_due(&self.state, loaded).await?;
        self.prune().await?;
        Response::ok("done")
    }
}

impl KeyObject {
    /// Read the key, decide, and write key + message + outbox row as one unit.
    fn claim(
        &self,
        key: &str,
        scope: &str,
        body: &[u8],
        message: &Message,
        now: UnixSeconds,
        policy: &KeyPolicy,
    ) -> Result<Reply> {
        let sql = self.state.storage().sql();
        let fingerprint = Fingerprint::of("POST", PATH, body);
        store::transaction(&self.state, || {
            let stored = read_key(&sql)?;
            Ok(match decide(stored.as_ref(), &fingerprint, now, policy) {
                KeyDecision::Proceed { .. } => {
                    let accepted_ms = worker::Date::now().as_millis() as i64;
                    let id = idempotency::message_id(scope, accepted_ms);
                    let receipt = json!({
                        "message_id": id,
                        "idempotency_key": key,
                        "status": "accepted",
                        "accepted_at": now.0,
                        "event_type": message.event_type,
                        "destination": message.destination,
                    });
                    let response = StoredResponse {
                        status: 202,
                        content_type: "application/json".into(),
                        body: receipt.to_string().into_bytes(),
                    };
                    let state = policy.completed(fingerprint, response.clone(), now);
                    let KeyState::Completed { expires_at, .. } = state else {
                        return Err("a completed key must be completed".into());
                    };
                    // Standard Webhooks payload shape: type, timestamp, data.
                    let envelope = json!({
                        "type": message.event_type,
                        "timestamp": now.0,
                        "data": message.payload,
                    });
                    sql.exec(
                        "INSERT INTO idem_key (id, key, fingerprint, status, content_type, response, expires_at)
                         VALUES (1, ?, ?, ?, ?, ?, ?)
                         ON CONFLICT (id) DO UPDATE SET key = excluded.key, fingerprint = excluded.fingerprint,
                           status = excluded.status, content_type = excluded.content_type,
                           response = excluded.response, expires_at = excluded.expires_at",
                        vec![
                            key.into(),
                            fingerprint.to_hex().into(),
                            i64::from(response.status).into(),
                            response.content_type.as_str().into(),
                            SqlStorageValue::from(response.body.clone()),
                            expires_at.0.into(),
                        ],
                    )?;
                    sql.exec(
                        "INSERT INTO messages (message_id, event_type, destination, accepted_at) VALUES (?, ?, ?, ?)",
                        vec![
                            id.as_str().into(),
                            message.event_type.as_str().into(),
                            message.destination.as_str().into(),
                            now.0.into(),
                        ],
                    )?;
                    sql.exec(
                        "INSERT INTO bodies (event_id, source, headers, body) VALUES (?, 'publish', '{}', ?)",
                        vec![id.as_str().into(), SqlStorageValue::from(envelope.to_string().into_bytes())],
                    )?;
                    sql.exec(
                        "INSERT INTO outbox (event_id, source, destination, status, enqueued_at, next_attempt_at)
                         VALUES (?, 'publish', ?, 'pending', ?, ?)",
                        vec![
                            id.as_str().into(),
                            message.destination.as_str().into(),
                            now.0.into(),
                            now.0.into(),
                        ],
                    )?;
                    Reply::Created(response)
                }
                KeyDecision::Replay(resp) => Reply::Replay(resp.clone()),
                KeyDecision::Mismatch => Reply::Mismatch,
                KeyDecision::InProgress { retry_after } => Reply::InProgress(retry_after.0.max(1)),
            })
        })
    }

    /// Forgets an expired key, keeping the message's delivery record.
    async fn prune(&self) -> Result<()> {
        let sql = self.state.storage().sql();
        let now = clock::now();
        if let Some(state) = read_key(&sql)? {
            if state.prune_due(now) {
                sql.exec("DELETE FROM idem_key WHERE id = 1", None)?;
            } else {
                forward::ensure_alarm(&self.state, state.prune_at()).await?;
            }
        }
        Ok(())
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

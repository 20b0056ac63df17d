//! The Durable Object behind the publish API, one per (token, Idempotency-Key), after
//! draft-ietf-httpapi-idempotency-key-header.
//!
//! The key record, the message and its outbox row are written in one transaction, so
//! there is no window in which a key is "in progress": a concurrent copy waits for the
//! object's input gate and then sees the completed key. Webhook deduplication shares none
//! of this state.

use hookonce_core::idempotency::{
    self, Fingerprint, IdempotencyKey, KeyDecision, KeyState, StoredResponse,
};
use hookonce_core::publish::{self, Accepted, Message};
use hookonce_core::time::UnixSeconds;
use worker::{web_sys, Env, Headers, Request, Response, Result, SqlStorage, State};

use crate::internal::{KEY_HEADER, SCOPE_HEADER};
use crate::problem::json_response;
use crate::rows::{row, ReadRows};
use crate::sources::Loaded;
use crate::task::export_object;
use crate::{clock, outbox, problem, sources, sql};

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

fn read_key(sql: &SqlStorage) -> Result<Option<KeyState>> {
    row! {
        struct KeyRow {
            fingerprint: String,
            status: i64,
            content_type: String,
            response: Vec<u8>,
            expires_at: i64,
        }
    }
    let row: Option<KeyRow> = sql
        .exec(
            "SELECT fingerprint, status, content_type, response, expires_at FROM idem_key WHERE id = 1",
            None,
        )?
        .first()?;
    Ok(row.and_then(|r| {
        Some(KeyState {
            fingerprint: Fingerprint::from_hex(&r.fingerprint).ok()?,
            response: StoredResponse {
                status: u16::try_from(r.status).ok()?,
                content_type: r.content_type,
                body: r.response,
            },
            expires_at: UnixSeconds(r.expires_at),
        })
    }))
}

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
        let opened = sql::create(&state, &[sql::BODIES_SCHEMA, sql::QUEUE_SCHEMA, KEY_SCHEMA]);
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
        match self.claim(&key, &scope, &body, &message, now, loaded)? {
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
    /// Read the key, decide, and write key + message + body + outbox row as one unit.
    fn claim(
        &self,
        key: &IdempotencyKey,
        scope: &str,
        body: &[u8],
        message: &Message,
        now: UnixSeconds,
        loaded: &Loaded,
    ) -> Result<Reply> {
        let sql = self.state.storage().sql();
        let fingerprint = Fingerprint::of("POST", publish::PATH, body);
        let policy = &loaded.key_policy;
        sql::transaction(&self.state, || {
            let stored = read_key(&sql)?;
            Ok(
                match idempotency::decide(stored.as_ref(), &fingerprint, now) {
                    KeyDecision::Proceed => {
                        let accepted_ms = worker::Date::now().as_millis() as i64;
                        let accepted = publish::accept(
                            message,
                            key,
                            scope,
                            fingerprint,
                            now,
                            accepted_ms,
                            policy,
                        );
                        self.write(&sql, key, message, &accepted, now)?
                    }
                    KeyDecision::Replay(resp) => Reply::Replay(resp.clone()),
                    KeyDecision::Mismatch => Reply::Mismatch,
                },
            )
        })
    }

    fn write(
        &self,
        sql: &SqlStorage,
        key: &IdempotencyKey,
        message: &Message,
        accepted: &Accepted,
        now: UnixSeconds,
    ) -> Result<Reply> {
        let KeyState {
            fingerprint,
            response,
            expires_at,
        } = &accepted.key;
        sql::run(
            sql,
            "INSERT INTO idem_key (id, key, fingerprint, status, content_type, response, expires_at)
             VALUES (1, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET key = excluded.key, fingerprint = excluded.fingerprint,
               status = excluded.status, content_type = excluded.content_type,
               response = excluded.response, expires_at = excluded.expires_at", &[
                sql::text(key.as_str()),
                sql::text(&fingerprint.to_hex()),
                sql::int(i64::from(response.status)),
                sql::text(response.content_type.as_str()),
                sql::blob(&response.body),
                sql::int(expires_at.0),
            ],
        )?;
        sql::run(
            sql,
            "INSERT INTO messages (message_id, event_type, destination, accepted_at) VALUES (?, ?, ?, ?)", &[
                sql::text(accepted.message_id.as_str()),
                sql::text(message.event_type.as_str()),
                sql::text(message.destination.as_str()),
                sql::int(now.0),
            ],
        )?;
        let body = hookonce_core::packing::pack(&accepted.envelope);
        sql::store_body(sql, &accepted.message_id, None, &body, now)?;
        sql::enqueue(
            sql,
            &accepted.message_id,
            publish::SOURCE,
            Some(&message.destination),
            now,
        )?;
        Ok(Reply::Created(response.clone()))
    }

    /// `GET /v1/messages/status`: the delivery of this key's message.
    fn status(&self) -> Result<Response> {
        let row: Option<sql::OutboxRow> = self
            .state
            .storage()
            .sql()
            .exec(
                &format!("{} ORDER BY seq DESC LIMIT 1", sql::OUTBOX_ROWS),
                None,
            )?
            .first()?;
        match row {
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

    /// Forgets an expired key, keeping the message's delivery record.
    async fn prune(&self) -> Result<()> {
        let sql = self.state.storage().sql();
        let now = clock::now();
        if let Some(state) = read_key(&sql)? {
            if state.prune_due(now) {
                sql.exec("DELETE FROM idem_key WHERE id = 1", None)?;
            } else {
                outbox::ensure_alarm(&self.state, &self.armed, state.prune_at()).await?;
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

//! The publish key object's store: its schema, and one typed call per statement. The
//! object runs a request's writes in one transaction.

mod statements;

use hookonce_core::idempotency::{Fingerprint, KeyState, StoredResponse};
use hookonce_core::packing::pack;
use hookonce_core::publish::SOURCE;
use hookonce_core::time::UnixSeconds;
use worker::{Result, SqlStorage, State};

use super::entity::store_body;
use super::outbox::{enqueue, OutboxRow, To, OUTBOX_ROWS};
use super::rows::{row, ReadRows};
use super::sqlite::{self as sql, blob, int, text, Opened};

/// A publish key object's storage.
pub struct KeyStore {
    sql: SqlStorage,
}

impl KeyStore {
    /// Creates the schema (the key, its messages, their bodies and outbox), for the object's
    /// constructor.
    pub fn create(state: &State) -> Opened {
        sql::create(
            state,
            &[sql::BODIES_SCHEMA, sql::QUEUE_SCHEMA, statements::SCHEMA],
        )
    }

    pub fn new(state: &State) -> KeyStore {
        KeyStore {
            sql: state.storage().sql(),
        }
    }

    /// The key's state, if it holds one (an unreadable row reads as none).
    pub fn key(&self) -> Result<Option<KeyState>> {
        row! {
            struct KeyRow {
                fingerprint: String,
                status: i64,
                content_type: String,
                response: Vec<u8>,
                expires_at: i64,
            }
        }
        let row: Option<KeyRow> = self.sql.exec(statements::KEY, None)?.first()?;
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

    pub fn put_key(&self, key: &str, state: &KeyState) -> Result<()> {
        let response = &state.response;
        let values = [
            text(key),
            text(&state.fingerprint.to_hex()),
            int(i64::from(response.status)),
            text(&response.content_type),
            blob(&response.body),
            int(state.expires_at.0),
        ];
        sql::run(&self.sql, statements::PUT_KEY, &values).map(drop)
    }

    pub fn message(
        &self,
        message_id: &str,
        event_type: &str,
        destination: &str,
        at: UnixSeconds,
    ) -> Result<()> {
        let values = [
            text(message_id),
            text(event_type),
            text(destination),
            int(at.0),
        ];
        sql::run(&self.sql, statements::INSERT_MESSAGE, &values).map(drop)
    }

    /// Keeps a message's envelope, packed as any kept body is.
    pub fn keep_body(&self, message_id: &str, envelope: &[u8], at: UnixSeconds) -> Result<()> {
        store_body(&self.sql, message_id, None, &pack(envelope), at).map(drop)
    }

    pub fn enqueue(&self, message_id: &str, destination: &str, at: UnixSeconds) -> Result<()> {
        enqueue(&self.sql, message_id, SOURCE, To::Url(destination), at).map(drop)
    }

    pub fn forget_key(&self) -> Result<()> {
        self.sql.exec(statements::FORGET_KEY, None).map(drop)
    }

    /// The outbox row of the newest message published under the key.
    pub fn latest_delivery(&self) -> Result<Option<OutboxRow>> {
        let query = format!("{} ORDER BY seq DESC LIMIT 1", OUTBOX_ROWS);
        self.sql.exec(&query, None)?.first()
    }
}

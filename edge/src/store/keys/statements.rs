//! The publish key object's SQL text. Plain text, no dependencies: its test runs it
//! natively against SQLite.

/// The key and the messages accepted under it (with the bodies and outbox every object with
/// an outbox has).
pub const SCHEMA: &str = "
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

/// The key's state: `fingerprint, status, content_type, response, expires_at`.
pub const KEY: &str =
    "SELECT fingerprint, status, content_type, response, expires_at FROM idem_key WHERE id = 1";

/// Stores the key's state over whatever it held: `key, fingerprint, status, content_type,
/// response, expires_at`.
pub const PUT_KEY: &str =
    "INSERT INTO idem_key (id, key, fingerprint, status, content_type, response, expires_at)
     VALUES (1, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET key = excluded.key, fingerprint = excluded.fingerprint,
       status = excluded.status, content_type = excluded.content_type,
       response = excluded.response, expires_at = excluded.expires_at";

/// Records a message: `message_id, event_type, destination, accepted_at`.
pub const INSERT_MESSAGE: &str =
    "INSERT INTO messages (message_id, event_type, destination, accepted_at) VALUES (?, ?, ?, ?)";

/// Forgets the key; its messages and their outbox rows stay.
pub const FORGET_KEY: &str = "DELETE FROM idem_key WHERE id = 1";

//! The feed object's SQL text. Plain text, no dependencies: its test runs it natively
//! against SQLite.

/// A source's feed, dead letters, `/metrics`' figures and the rejected-request window.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS feed (
  seq          INTEGER PRIMARY KEY,  -- from feed_admit: newer rows have larger numbers
  received_at  INTEGER NOT NULL,
  outcome      TEXT NOT NULL,        -- feed::FeedOutcome
  event_id     TEXT,                 -- NULL for a rejected request
  event_type   TEXT,
  entity       TEXT,
  rows_written INTEGER NOT NULL,
  status       INTEGER,              -- a rejected request's status
  reason       TEXT                  -- and why; never a body or a signature
);
CREATE TABLE IF NOT EXISTS dead_letters (
  entity      TEXT NOT NULL,         -- '' for an event without an entity
  event_id    TEXT NOT NULL,
  destination TEXT NOT NULL,         -- the source's destination its row went to
  attempts    INTEGER NOT NULL,
  last_result TEXT NOT NULL,
  at          INTEGER NOT NULL,
  PRIMARY KEY (entity, event_id, destination)
) WITHOUT ROWID;
-- /metrics (core's `metrics`): best-effort counters summed from notes, and each entity
-- object's outbox rows per destination as its last alarm pass counted them (exact; absent
-- when none).
CREATE TABLE IF NOT EXISTS counter (
  family TEXT NOT NULL,
  label  TEXT NOT NULL,
  value  INTEGER NOT NULL,
  PRIMARY KEY (family, label)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS destination_rows (
  object            TEXT NOT NULL,
  destination       TEXT NOT NULL,
  pending           INTEGER NOT NULL,
  oldest_pending_at INTEGER,
  dead              INTEGER NOT NULL,
  PRIMARY KEY (object, destination)
) WITHOUT ROWID;
-- The inspector's last hour (core's `activity`): deliveries per minute by outcome, at most
-- 60 minutes x 4 outcomes, older minutes forgotten with every batch.
CREATE TABLE IF NOT EXISTS activity (
  minute  INTEGER NOT NULL,          -- unix seconds / 60
  outcome TEXT NOT NULL,             -- feed::FeedOutcome
  count   INTEGER NOT NULL,
  PRIMARY KEY (minute, outcome)
) WITHOUT ROWID;
-- The entities a source-wide backfill pages through (core's `intake::remember`): each
-- entity an event was noted about, with the latest time; those past the source's body
-- retention are forgotten. A feed from before it gains it at its next start (schema::open
-- finds it missing).
CREATE TABLE IF NOT EXISTS seen_entities (
  entity  TEXT PRIMARY KEY,
  last_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS seen_entities_by_time ON seen_entities (last_at);
CREATE TABLE IF NOT EXISTS reject_window (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  minute     INTEGER NOT NULL,
  recorded   INTEGER NOT NULL,
  suppressed INTEGER NOT NULL
);
";

/// What `feed::admit_batch` decides from: `last_seq, minute, recorded, suppressed` (the
/// window's columns NULL before the first rejected request).
pub const STATE: &str = "SELECT (SELECT COALESCE(MAX(seq), 0) FROM feed) AS last_seq,
        w.minute, w.recorded, w.suppressed
 FROM (SELECT 1) LEFT JOIN reject_window w ON w.id = 1";

/// Appends rows given as one JSON array of arrays (`seq, received_at, outcome, event_id,
/// event_type, entity, rows_written, status, reason`), read back by SQLite: one statement
/// and one string across the runtime, not a statement and nine values per row.
/// `jsonb_each` hands each row over as JSONB, which `->>` reads directly; `json_each`
/// handed it over as text, which SQLite printed and parsed again for every row.
pub const APPEND: &str =
    "INSERT INTO feed (seq, received_at, outcome, event_id, event_type, entity,
   rows_written, status, reason)
 SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
   value ->> 5, value ->> 6, value ->> 7, value ->> 8
 FROM jsonb_each(?)";

/// Stores the rejected-request window: `minute, recorded, suppressed`.
pub const WINDOW: &str =
    "INSERT INTO reject_window (id, minute, recorded, suppressed) VALUES (1, ?, ?, ?)
 ON CONFLICT (id) DO UPDATE SET minute = excluded.minute,
   recorded = excluded.recorded, suppressed = excluded.suppressed";

/// Prunes one range of `seq` (`?1` through, `?2` before): up to the first row after
/// `through` that is not too old, or every row if none is. The subquery walks from
/// `through` and stops there, where `seq <= ? OR received_at < ?` scanned the whole feed
/// (11 ms a prune at `keep`'s 100,000 rows, natively).
pub const PRUNE: &str = "DELETE FROM feed WHERE seq <= coalesce(
   (SELECT seq FROM feed WHERE seq > ?1 AND received_at >= ?2 ORDER BY seq LIMIT 1)
     - 1,
   (SELECT max(seq) FROM feed))";

/// Keeps the `?` newest dead letters.
pub const PRUNE_DEAD: &str = "DELETE FROM dead_letters WHERE (entity, event_id, destination) NOT IN
   (SELECT entity, event_id, destination FROM dead_letters ORDER BY at DESC LIMIT ?)";

/// Records or refreshes a dead letter: `entity, event_id, destination, attempts,
/// last_result, at`.
pub const DEAD: &str = "INSERT OR REPLACE INTO dead_letters
   (entity, event_id, destination, attempts, last_result, at) VALUES (?, ?, ?, ?, ?, ?)";

/// Forgets an entity's dead letters: `entity, destination` (NULL: of every destination),
/// event ids as a JSON array (NULL: of every event).
pub const REQUEUED: &str = "DELETE FROM dead_letters WHERE entity = ?1
   AND (?2 IS NULL OR destination = ?2)
   AND (?3 IS NULL OR event_id IN (SELECT value FROM json_each(?3)))";

/// Keeps the latest time each entity was seen, given as one JSON array of
/// `[entity, at]` pairs. (`WHERE true` tells SQLite's parser the `ON CONFLICT` is the
/// upsert's, not a join's.)
pub const SEEN: &str = "INSERT INTO seen_entities (entity, last_at)
 SELECT value ->> 0, value ->> 1 FROM json_each(?) WHERE true
 ON CONFLICT (entity) DO UPDATE SET last_at = max(last_at, excluded.last_at)";

/// Forgets the entities last seen before `?`: a range of the time index.
pub const FORGET_ENTITIES: &str = "DELETE FROM seen_entities WHERE last_at < ?";

/// A page of the entities that may hold dead letters, in key order: those in the
/// dead-letter list (`?1` destination, `?2`/`?3` died from/until, each NULL for any) and
/// those whose last outbox report counted dead rows (of `?1`), after `?4` (NULL: from the
/// first), `?5` at most; `?6` is the prefix of the source's entity objects' names
/// (`{source}/e/`). The list keeps only the newest letters and reports stop when a row
/// is requeued, so each finds entities the other has lost. Each side walks its primary
/// key from the cursor and stops at `?5`, so a page reads about `?5` keys of each, not
/// the whole list (bench/FINDINGS.md).
pub const DEAD_CANDIDATES: &str = "SELECT entity FROM (
   SELECT DISTINCT entity FROM dead_letters
   WHERE entity > COALESCE(?4, '') AND (?1 IS NULL OR destination = ?1)
     AND (?2 IS NULL OR at >= ?2) AND (?3 IS NULL OR at <= ?3)
   ORDER BY entity LIMIT ?5)
 UNION
 SELECT entity FROM (
   SELECT substr(object, length(?6) + 1) AS entity FROM destination_rows
   WHERE object > ?6 || COALESCE(?4, '') AND substr(object, 1, length(?6)) = ?6
     AND dead > 0 AND (?1 IS NULL OR destination = ?1)
   ORDER BY object LIMIT ?5)
 ORDER BY entity LIMIT ?5";

/// A page of the entities seen at or after `?1`, in key order, after `?2` (NULL: from the
/// first), `?3` at most.
pub const RECORDED_CANDIDATES: &str = "SELECT entity FROM seen_entities
 WHERE entity > COALESCE(?2, '') AND last_at >= ?1 ORDER BY entity LIMIT ?3";

/// Adds to a counter: `family, label, by`.
pub const ADD_COUNT: &str = "INSERT INTO counter (family, label, value) VALUES (?, ?, ?)
 ON CONFLICT (family, label) DO UPDATE SET value = value + excluded.value";

/// Keeps an object's outbox report of one destination: `object, destination, pending,
/// oldest_pending_at, dead`.
pub const KEEP_OUTBOX: &str = "INSERT OR REPLACE INTO destination_rows
   (object, destination, pending, oldest_pending_at, dead) VALUES (?, ?, ?, ?, ?)";

/// Forgets an object's outbox report, every destination's: the key's first column.
pub const FORGET_OUTBOX: &str = "DELETE FROM destination_rows WHERE object = ?";

/// Every counter: `family, label, value`.
pub const COUNTERS: &str = "SELECT family, label, value FROM counter ORDER BY family, label";

/// The objects' outbox rows summed: `pending, oldest, dead`.
pub const OUTBOX_SUMS: &str =
    "SELECT COALESCE(SUM(pending), 0) AS pending, MIN(oldest_pending_at) AS oldest,
        COALESCE(SUM(dead), 0) AS dead
 FROM destination_rows";

/// The objects' outbox rows summed per destination, in name order: `destination, pending,
/// oldest, dead`.
pub const DESTINATION_SUMS: &str = "SELECT destination, SUM(pending) AS pending,
        MIN(oldest_pending_at) AS oldest, SUM(dead) AS dead
 FROM destination_rows GROUP BY destination ORDER BY destination";

/// A page of the feed, newest first: `?1` before (a seq, or NULL), `?2` outcome, `?3` type
/// (each NULL for any), `?4` how many.
pub const PAGE: &str =
    "SELECT seq, received_at, outcome, event_id, event_type, entity, rows_written,
        status, reason
 FROM feed
 WHERE (?1 IS NULL OR seq < ?1) AND (?2 IS NULL OR outcome = ?2)
   AND (?3 IS NULL OR event_type = ?3)
 ORDER BY seq DESC LIMIT ?4";

/// The newest 500 dead letters: `entity, event_id, destination, attempts, last_result, at`.
pub const DEAD_LETTERS: &str =
    "SELECT entity, event_id, destination, attempts, last_result, at FROM dead_letters
 ORDER BY at DESC, entity, event_id, destination LIMIT 500";

/// Adds to a minute's tally of an outcome: `minute, outcome, by`.
pub const ADD_TALLY: &str = "INSERT INTO activity (minute, outcome, count) VALUES (?, ?, ?)
 ON CONFLICT (minute, outcome) DO UPDATE SET count = count + excluded.count";

/// Forgets the tallies of the minutes before `?`: the primary key's first column, so it
/// reads only the rows it deletes.
pub const FORGET_MINUTES: &str = "DELETE FROM activity WHERE minute < ?";

/// The tallies from minute `?` on: `minute, outcome, count`.
pub const TALLIES: &str =
    "SELECT minute, outcome, count FROM activity WHERE minute >= ? ORDER BY minute, outcome";

//! The gate object's SQL text. Plain text, no dependencies: its test runs it natively
//! against SQLite.

/// The one row: the object's name, the settings it last ran with (core's JSON), and the
/// part of its destination's guard that survives a restart (`protect::Durable`).
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS gate (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  name          TEXT NOT NULL,
  settings      TEXT NOT NULL,
  paused_since  INTEGER,
  circuit       TEXT NOT NULL,
  since         INTEGER NOT NULL,
  probe_at      INTEGER,
  cool_down     INTEGER NOT NULL,
  healthy_since INTEGER
);
";

/// The row: `name, settings, paused_since, circuit, since, probe_at, cool_down,
/// healthy_since`.
pub const SAVED: &str = "SELECT name, settings, paused_since, circuit, since, probe_at, cool_down,
       healthy_since FROM gate WHERE id = 1";

/// Writes the row over whatever it held: `name, settings, paused_since, circuit, since,
/// probe_at, cool_down, healthy_since`.
pub const KEEP: &str =
    "INSERT INTO gate (id, name, settings, paused_since, circuit, since, probe_at,
       cool_down, healthy_since)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, settings = excluded.settings,
       paused_since = excluded.paused_since, circuit = excluded.circuit,
       since = excluded.since, probe_at = excluded.probe_at,
       cool_down = excluded.cool_down, healthy_since = excluded.healthy_since";

//! The gate object's store: its one row (core's `gate::Saved`), read when the object
//! starts and written whenever core's `Command::Keep` says it changed.

mod statements;

use hookonce_core::gate::{decode_settings, encode_settings, Saved};
use hookonce_core::protect::{Circuit, Durable};
use hookonce_core::time::{Seconds, UnixSeconds};
use worker::{Result, SqlStorage, State};

use super::rows::{row, ReadRows};
use super::sqlite::{self as sql, int, opt_int, text};

/// A gate object's storage.
pub struct GateStore {
    sql: SqlStorage,
}

impl GateStore {
    /// Creates the schema, for the object's constructor.
    pub fn create(state: &State) {
        sql::create(state, &[statements::SCHEMA]);
    }

    pub fn new(state: &State) -> GateStore {
        GateStore {
            sql: state.storage().sql(),
        }
    }

    /// What the object keeps, if anything (a row this version cannot read reads as none:
    /// the destination starts closed and unpaused, and the next change writes it anew).
    pub fn saved(&self) -> Result<Option<Saved>> {
        row! {
            struct SavedRow {
                name: String,
                settings: String,
                paused_since: Option<i64>,
                circuit: String,
                since: i64,
                probe_at: Option<i64>,
                cool_down: i64,
                healthy_since: Option<i64>,
            }
        }
        let row: Option<SavedRow> = self.sql.exec(statements::SAVED, None)?.first()?;
        Ok(row.and_then(|r| {
            Some(Saved {
                name: r.name,
                settings: decode_settings(&r.settings).ok()?,
                durable: Durable {
                    paused_since: r.paused_since.map(UnixSeconds),
                    circuit: Circuit::parse(&r.circuit)?,
                    since: UnixSeconds(r.since),
                    probe_at: r.probe_at.map(UnixSeconds),
                    cool_down: Seconds(u64::try_from(r.cool_down).ok()?),
                    healthy_since: r.healthy_since.map(UnixSeconds),
                },
            })
        }))
    }

    /// One statement: the row, over whatever it held.
    pub fn keep(&self, saved: &Saved) -> Result<()> {
        let d = &saved.durable;
        let values = [
            text(&saved.name),
            text(&encode_settings(&saved.settings)),
            opt_int(d.paused_since.map(|t| t.0)),
            text(d.circuit.as_str()),
            int(d.since.0),
            opt_int(d.probe_at.map(|t| t.0)),
            int(i64::try_from(d.cool_down.0).unwrap_or(i64::MAX)),
            opt_int(d.healthy_since.map(|t| t.0)),
        ];
        sql::run(&self.sql, statements::KEEP, &values).map(drop)
    }
}

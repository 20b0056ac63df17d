//! Structured log records: one JSON object per decision, per delivery attempt and per
//! rejected delivery. They carry ids, outcomes and counts, and by construction never a
//! secret, a signature, a header or a body: no function here takes one.

use std::fmt;

use serde_json::{json, Value};

use crate::outbox::Transition;

/// How much is logged (`HOOKONCE_LOG`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// Failures only: dead letters, failed feed writes, rejected deliveries are not errors.
    Error,
    /// Every decision, attempt and rejected delivery (the default).
    #[default]
    Info,
    /// Also what is not recorded elsewhere, such as feed notes skipped by sampling.
    Debug,
}

impl LogLevel {
    /// Reads `error`, `info` or `debug`; `None` for anything else.
    pub fn parse(s: &str) -> Option<LogLevel> {
        match s.trim().to_ascii_lowercase().as_str() {
            "error" => Some(LogLevel::Error),
            "info" => Some(LogLevel::Info),
            "debug" => Some(LogLevel::Debug),
            _ => None,
        }
    }

    /// The name printed in each record.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One log record: its level and the JSON line to print.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRecord {
    /// The level it is printed at.
    pub level: LogLevel,
    /// The record, with `level` and `msg` members.
    pub fields: Value,
}

impl LogRecord {
    fn new(level: LogLevel, msg: &str, mut fields: Value) -> LogRecord {
        fields["level"] = json!(level.as_str());
        fields["msg"] = json!(msg);
        LogRecord { level, fields }
    }

    /// Whether it is printed under `threshold`.
    pub fn enabled(&self, threshold: LogLevel) -> bool {
        self.level <= threshold
    }
}

/// What one decision came to.
pub struct DecisionLog<'a> {
    /// The source.
    pub source: &'a str,
    /// The event id.
    pub event_id: &'a str,
    /// The event type.
    pub event_type: &'a str,
    /// The entity, if any.
    pub entity: Option<&'a str>,
    /// The decision's label (`applied`, `duplicate`, …).
    pub outcome: &'a str,
    /// Rows written.
    pub rows_written: usize,
    /// From receipt to answer, in milliseconds.
    pub duration_ms: u64,
}

/// `{"msg":"decision", source, event_id, type, entity, outcome, rows_written, duration_ms}`.
pub fn decision(d: &DecisionLog<'_>) -> LogRecord {
    LogRecord::new(
        LogLevel::Info,
        "decision",
        json!({
            "source": d.source,
            "event_id": d.event_id,
            "type": d.event_type,
            "entity": d.entity,
            "outcome": d.outcome,
            "rows_written": d.rows_written,
            "duration_ms": d.duration_ms,
        }),
    )
}

/// `{"msg":"attempt", source, event_id, attempt, status, result, next_attempt_at}`: one per
/// forwarding attempt (and one when a row dies without one). A dead letter logs at `error`.
pub fn attempt(source: &str, event_id: &str, t: &Transition) -> LogRecord {
    let (attempt, result, next) = match t {
        Transition::Finish {
            attempts, result, ..
        } => (*attempts, result, None),
        Transition::Retry {
            attempts,
            result,
            next_attempt_at,
            ..
        } => (*attempts, result, Some(next_attempt_at.0)),
    };
    let status = t.status();
    let level = if status == crate::outbox::OutboxStatus::Dead {
        LogLevel::Error
    } else {
        LogLevel::Info
    };
    LogRecord::new(
        level,
        "attempt",
        json!({
            "source": source,
            "event_id": event_id,
            "attempt": attempt,
            "status": status.as_str(),
            "result": result,
            "next_attempt_at": next,
        }),
    )
}

/// `{"msg":"rejected", source, status, reason}`: a delivery refused before any entity saw
/// it. `reason` is the problem's detail, which never holds a secret or a signature.
pub fn rejected(source: &str, status: u16, reason: &str) -> LogRecord {
    LogRecord::new(
        LogLevel::Info,
        "rejected",
        json!({ "source": source, "status": status, "reason": reason }),
    )
}

/// `{"msg": msg, source, error}` at `error`: something off the path failed (a feed write).
pub fn failure(msg: &str, source: &str, error: &str) -> LogRecord {
    LogRecord::new(
        LogLevel::Error,
        msg,
        json!({ "source": source, "error": error }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::OutboxStatus;
    use crate::time::UnixSeconds;

    #[test]
    fn levels_parse_and_order() {
        assert_eq!(LogLevel::parse(" DEBUG "), Some(LogLevel::Debug));
        assert_eq!(LogLevel::parse("warn"), None);
        assert_eq!(LogLevel::default(), LogLevel::Info);
        let r = rejected("cockpit", 401, "no signature matches");
        assert!(r.enabled(LogLevel::Info) && r.enabled(LogLevel::Debug));
        assert!(!r.enabled(LogLevel::Error));
    }

    #[test]
    fn a_decision_record_has_its_fields_and_nothing_else() {
        let r = decision(&DecisionLog {
            source: "cockpit",
            event_id: "evt_1",
            event_type: "t",
            entity: Some("ch_1"),
            outcome: "applied",
            rows_written: 3,
            duration_ms: 12,
        });
        let mut keys: Vec<&str> = r
            .fields
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "duration_ms",
                "entity",
                "event_id",
                "level",
                "msg",
                "outcome",
                "rows_written",
                "source",
                "type"
            ]
        );
        assert_eq!(r.fields["msg"], "decision");
    }

    #[test]
    fn an_attempt_record_says_what_comes_next() {
        let retry = Transition::Retry {
            seq: 1,
            attempts: 2,
            first_attempt_at: UnixSeconds(10),
            next_attempt_at: UnixSeconds(20),
            result: "HTTP 500".into(),
        };
        let r = attempt("cockpit", "evt_1", &retry);
        assert_eq!(r.fields["attempt"], 2);
        assert_eq!(r.fields["status"], "pending");
        assert_eq!(r.fields["next_attempt_at"], 20);
        let dead = Transition::Finish {
            seq: 1,
            status: OutboxStatus::Dead,
            attempts: 3,
            first_attempt_at: UnixSeconds(10),
            result: "HTTP 410".into(),
            at: UnixSeconds(30),
        };
        let r = attempt("cockpit", "evt_1", &dead);
        assert_eq!(r.level, LogLevel::Error);
        assert_eq!(r.fields["next_attempt_at"], Value::Null);
    }
}

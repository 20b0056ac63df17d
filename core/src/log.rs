//! Structured log records: one JSON object per decision, per delivery attempt and per
//! rejected delivery. They carry ids, outcomes and counts, and by construction never a
//! secret, a signature, a header or a body: no function here takes one.

use std::fmt;

use serde::Serialize;

use crate::outbox::Transition;

/// How much is logged (`HOOKONCE_LOG`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
// Exhaustive: the edge prints each level through its own console method.
pub enum LogLevel {
    /// Failures only: dead letters, failed feed writes, rejected deliveries are not errors.
    Error,
    /// Also what the operator should fix though hookonce works on: a secret binding of a
    /// source that is not set.
    Warn,
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
            "warn" => Some(LogLevel::Warn),
            "info" => Some(LogLevel::Info),
            "debug" => Some(LogLevel::Debug),
            _ => None,
        }
    }

    /// The name printed in each record.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
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
    /// The record as one JSON object: `level`, `msg`, then its own members.
    pub line: String,
}

impl LogRecord {
    /// Serialised straight from `fields`, with no JSON tree built first: a decision is
    /// logged for every delivery.
    fn new(level: LogLevel, msg: &str, fields: impl Serialize) -> LogRecord {
        #[derive(Serialize)]
        struct Line<'a, F> {
            level: &'static str,
            msg: &'a str,
            #[serde(flatten)]
            fields: F,
        }
        let line = Line {
            level: level.as_str(),
            msg,
            fields,
        };
        // Only a map with keys that are not strings fails to serialise, and none is here.
        let line = serde_json::to_string(&line).unwrap_or_default();
        LogRecord { level, line }
    }

    /// Whether it is printed under `threshold`.
    pub fn enabled(&self, threshold: LogLevel) -> bool {
        self.level <= threshold
    }
}

/// What one decision came to.
#[derive(Serialize)]
pub struct DecisionLog<'a> {
    /// The source.
    pub source: &'a str,
    /// The event id.
    pub event_id: &'a str,
    /// The event type.
    #[serde(rename = "type")]
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
    LogRecord::new(LogLevel::Info, "decision", d)
}

/// `{"msg":"attempt", source, event_id, attempt, status, result, next_attempt_at}`: one per
/// forwarding attempt (and one when a row dies without one). A dead letter logs at `error`.
/// A superseded row is `{"msg":"superseded", source, event_id, by}` instead: no attempt.
pub fn attempt(source: &str, event_id: &str, t: &Transition) -> LogRecord {
    let (attempt, result, next) = match t {
        Transition::Supersede { by, .. } => {
            #[derive(Serialize)]
            struct Superseded<'a> {
                source: &'a str,
                event_id: &'a str,
                by: &'a str,
            }
            let fields = Superseded {
                source,
                event_id,
                by,
            };
            return LogRecord::new(LogLevel::Info, "superseded", fields);
        }
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
    #[derive(Serialize)]
    struct Attempt<'a> {
        source: &'a str,
        event_id: &'a str,
        attempt: u32,
        status: &'static str,
        result: &'a str,
        next_attempt_at: Option<i64>,
    }
    let fields = Attempt {
        source,
        event_id,
        attempt,
        status: status.as_str(),
        result,
        next_attempt_at: next,
    };
    LogRecord::new(level, "attempt", fields)
}

/// `{"msg":"rejected", source, status, reason}`: a delivery refused before any entity saw
/// it. `reason` is the problem's detail, which never holds a secret or a signature.
pub fn rejected(source: &str, status: u16, reason: &str) -> LogRecord {
    LogRecord::new(
        LogLevel::Info,
        "rejected",
        Rejected {
            source,
            status,
            reason,
        },
    )
}

#[derive(Serialize)]
struct Rejected<'a> {
    source: &'a str,
    status: u16,
    reason: &'a str,
}

#[derive(Serialize)]
struct Failure<'a> {
    source: &'a str,
    error: &'a str,
}

/// `{"msg": msg, source, error}` at `error`: something off the path failed (a feed write).
pub fn failure(msg: &str, source: &str, error: &str) -> LogRecord {
    LogRecord::new(LogLevel::Error, msg, Failure { source, error })
}

#[derive(Serialize)]
struct Detail<'a> {
    error: &'a str,
}

/// `{"msg":"configuration_invalid", error}` at `error`: why every request is answered with
/// a configuration problem. The answer says only that the deployment is misconfigured;
/// the field and binding names are here.
pub fn configuration(error: &str) -> LogRecord {
    LogRecord::new(LogLevel::Error, "configuration_invalid", Detail { error })
}

#[derive(Serialize)]
struct ObjectFailed<'a> {
    binding: &'a str,
    error: &'a str,
}

/// `{"msg":"object_failed", binding, error}` at `error`: a Durable Object call failed, with
/// the runtime's text, which the caller's answer does not carry.
pub fn object_failed(binding: &str, error: &str) -> LogRecord {
    LogRecord::new(
        LogLevel::Error,
        "object_failed",
        ObjectFailed { binding, error },
    )
}

#[derive(Serialize)]
struct SecretMissing<'a> {
    source: &'a str,
    binding: &'a str,
}

/// `{"msg":"secret_binding_missing", source, binding}` at `warn`: one of a source's secret
/// bindings is not set while another is (a rotation's new name mistyped, say). Names the
/// binding, never a value.
pub fn secret_missing(source: &str, binding: &str) -> LogRecord {
    LogRecord::new(
        LogLevel::Warn,
        "secret_binding_missing",
        SecretMissing { source, binding },
    )
}

#[derive(Serialize)]
struct DestinationChange<'a> {
    source: &'a str,
    destination: &'a str,
    state: &'static str,
    at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    probe_at: Option<i64>,
}

/// `{"msg":"destination", source, destination, state, at}` (an opening adds `cause` and
/// `probe_at`): a change of a destination's guard (`protect::Transition`). Opening is a
/// `warn`: the destination is failing and its rows wait; the rest are `info`.
pub fn destination(source: &str, destination: &str, t: &crate::protect::Transition) -> LogRecord {
    use crate::protect::Transition;
    let (level, cause, probe_at) = match t {
        Transition::Opened {
            cause, probe_at, ..
        } => (LogLevel::Warn, Some(cause.to_string()), Some(probe_at.0)),
        _ => (LogLevel::Info, None, None),
    };
    let fields = DestinationChange {
        source,
        destination,
        state: t.name(),
        at: t.at().0,
        cause,
        probe_at,
    };
    LogRecord::new(level, "destination", fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::OutboxStatus;
    use crate::time::UnixSeconds;
    use serde_json::Value;

    fn fields(r: &LogRecord) -> Value {
        serde_json::from_str(&r.line).unwrap()
    }

    #[test]
    fn levels_parse_and_order() {
        assert_eq!(LogLevel::parse(" DEBUG "), Some(LogLevel::Debug));
        assert_eq!(LogLevel::parse("warn"), Some(LogLevel::Warn));
        assert_eq!(LogLevel::parse("warning"), None);
        assert!(LogLevel::Error < LogLevel::Warn && LogLevel::Warn < LogLevel::Info);
        assert_eq!(LogLevel::default(), LogLevel::Info);
        let r = rejected("cockpit", 401, "no signature matches");
        assert!(r.enabled(LogLevel::Info) && r.enabled(LogLevel::Debug));
        assert!(!r.enabled(LogLevel::Error));
    }

    #[test]
    fn a_missing_secret_binding_is_a_warning_naming_the_source_and_the_binding_only() {
        let r = secret_missing("cockpit", "COCKPIT_SECRET_NEXT");
        assert_eq!(r.level, LogLevel::Warn);
        assert!(r.enabled(LogLevel::Warn) && !r.enabled(LogLevel::Error));
        assert_eq!(
            fields(&r),
            serde_json::json!({"level": "warn", "msg": "secret_binding_missing",
                               "source": "cockpit", "binding": "COCKPIT_SECRET_NEXT"})
        );
        let c = configuration("cockpit.secrets: none of the bindings is set");
        assert_eq!(fields(&c)["msg"], "configuration_invalid");
        assert!(c.enabled(LogLevel::Error));
        let o = object_failed("ENTITY", "Error: string or blob too big");
        assert_eq!(fields(&o)["binding"], "ENTITY");
        assert_eq!(fields(&o)["error"], "Error: string or blob too big");
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
        let fields = fields(&r);
        let mut keys: Vec<&str> = fields
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
        assert_eq!(fields["msg"], "decision");
        assert_eq!(fields["level"], "info");
        assert_eq!(fields["type"], "t");
        assert!(r
            .line
            .starts_with(r#"{"level":"info","msg":"decision","source":"cockpit""#));
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
        assert_eq!(fields(&r)["attempt"], 2);
        assert_eq!(fields(&r)["status"], "pending");
        assert_eq!(fields(&r)["next_attempt_at"], 20);
        assert_eq!(fields(&r)["result"], "HTTP 500");
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
        assert_eq!(fields(&r)["next_attempt_at"], Value::Null);
        assert_eq!(fields(&r)["level"], "error");
    }
}

//! Step 7's guard in its own Durable Object: the gate object's protocol and what it does
//! with each request, as data.
//!
//! One gate object per (source, destination), named by [`names::gate_name`], holds the
//! [`Protect`] that all the source's entities share for that destination (issue 54). Its
//! callers send it a [`Call`]: the destination's [`Settings`] (the caller reads them from
//! the configuration, so the object needs none of its own) and a [`Request`]:
//!
//! - [`Request::Ask`] and [`Request::Report`]: an entity's drain, before and after the
//!   attempts of a lease ([`Protect::ask_batch`], [`Protect::report_batch`]: a lease may
//!   cover up to [`BATCH`](crate::protect::BATCH) attempts); [`Request::Renew`], both in
//!   one call, when the drain's next row goes to the same destination (a backlog pays one
//!   round trip per batch of attempts);
//! - [`Request::Pause`], [`Request::Resume`] and [`Request::Status`]: the admin API.
//!
//! [`Gate::handle`] runs it and returns the [`Command`]s the object carries out in order,
//! one IO each: [`Command::Keep`] the state that must survive a restart (only when it
//! changed, and before anything else goes out), [`Command::Log`] each
//! [`Transition`](crate::protect::Transition), [`Command::SetAlarm`] for
//! [`Protect::next_deadline`] (only when no alarm is set for then or earlier: an early
//! alarm ticks and sets the next one), and last [`Command::Answer`]. [`Gate::alarm`] is
//! the alarm's turn: a tick, the same commands, no answer.
//!
//! The wire: a call is JSON, `{"settings":{…},"request":{"op":"ask","entity":"ch_1","rows":16}}`
//! (`rows` and a report's `earlier` absent: 1 and 0, as an earlier version wrote them); an
//! answer to an ask or a report is JSON tagged by `answer` (`grant`, `wait`, `paused`,
//! `counted`, `unknown`); an ask's carries `healthy_since` too, so the entity computes its
//! row's retry window ([`window_start`]) with no second call; an answer to the admin
//! requests is the destination's status document, which the admin API returns as it is
//! ([`Answer::Status`]).
//!
//! Waiters whose turn has come ([`Protect::poll_wake`]) are woken after every call
//! ([`Command::Wake`], an operation on the entity's object that sets its alarm for now), so
//! a freed slot does not idle until the second their `Wait` named.

use std::fmt;

use serde_json::{json, Value};

use crate::config::SourceConfig;
use crate::log::{self, LogRecord};
use crate::names::gate_parts;
use crate::ops::{self, Alert};
use crate::protect::{
    Ask, Circuit, Durable, Grant, LeaseId, Protect, Reported, Settings, SettingsError, Status,
    WaitReason, SHUT_SPREAD,
};
use crate::retry::AttemptResult;
use crate::time::{Seconds, UnixSeconds};

/// The configured settings of `source`'s destination named `destination`, or `None`
/// when it has no such destination.
#[must_use]
pub fn settings_for(source: &SourceConfig, destination: &str) -> Option<Settings> {
    source.destination(destination).map(|d| d.forward.protect)
}

/// What a caller asks the gate object.
#[derive(Clone, Debug, PartialEq, Eq)]
// Exhaustive: the object serves every variant; a new one must fail its build.
pub enum Request {
    /// May `entity` make up to `rows` attempts now ([`Protect::ask_batch`])?
    Ask {
        /// The entity's key.
        entity: String,
        /// The attempts wanted under one lease; 1 when absent on the wire.
        rows: u32,
    },
    /// The results of the attempts `entity` made under `lease`: `earlier` that were not
    /// outages, then `result` ([`Protect::report_batch`]).
    Report {
        /// The entity's key.
        entity: String,
        /// The grant's lease.
        lease: LeaseId,
        /// Attempts before the last, none an outage; 0 when absent on the wire.
        earlier: u32,
        /// How the last attempt ended.
        result: AttemptResult,
    },
    /// The results of the attempts `entity` made under `lease`, and may it make up to
    /// `rows` more now? A [`Request::Report`] then a [`Request::Ask`], answered as the ask.
    Renew {
        /// The entity's key.
        entity: String,
        /// The grant's lease.
        lease: LeaseId,
        /// Attempts before the last, none an outage.
        earlier: u32,
        /// How the last attempt ended.
        result: AttemptResult,
        /// The attempts wanted under the next lease.
        rows: u32,
    },
    /// An operator pauses the destination.
    Pause,
    /// An operator resumes it.
    Resume,
    /// The destination's state.
    Status,
}

/// A request with the settings the caller's configuration gives the destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The destination's settings.
    pub settings: Settings,
    /// What is asked.
    pub request: Request,
}

/// Bytes that are not a call this version of hookonce wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError {
    /// Not JSON of a call.
    Malformed,
    /// The settings are out of range; it names the field.
    Settings(SettingsError),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Malformed => f.write_str("not a call to a gate object"),
            CallError::Settings(e) => write!(f, "the call's settings are invalid: {e}"),
        }
    }
}

impl std::error::Error for CallError {}

// The wire is built on `serde_json::Value` by hand: derived tagged enums buffer their
// input generically and cost the worker's wasm about 70 KiB; `Value` is in it already.

/// `v[k]` as an integer of type `T`.
fn int<T: TryFrom<i64>>(v: &Value, k: &str) -> Option<T> {
    T::try_from(v.get(k)?.as_i64()?).ok()
}

/// `v[k]` as an unsigned integer of type `T`.
fn uint<T: TryFrom<u64>>(v: &Value, k: &str) -> Option<T> {
    T::try_from(v.get(k)?.as_u64()?).ok()
}

/// `v[k]` as an integer, or `null` (or absent) for none; `None` for anything else.
fn nullable<T: TryFrom<i64>>(v: &Value, k: &str) -> Option<Option<T>> {
    match v.get(k) {
        None | Some(Value::Null) => Some(None),
        Some(_) => int(v, k).map(Some),
    }
}

fn string<'v>(v: &'v Value, k: &str) -> Option<&'v str> {
    v.get(k)?.as_str()
}

fn boolean(v: &Value, k: &str) -> Option<bool> {
    v.get(k)?.as_bool()
}

fn settings_json(s: &Settings) -> Value {
    json!({
        "failure_threshold": s.failure_threshold(),
        "failure_rate": s.failure_rate(),
        "min_attempts": s.min_attempts(),
        "window_secs": s.window().0,
        "cool_down_secs": s.cool_down().0,
        "max_cool_down_secs": s.max_cool_down().0,
        "max_in_flight": s.max_in_flight(),
        "max_per_second": s.max_per_second(),
        "lease_secs": s.lease().0,
    })
}

fn settings_of(v: &Value) -> Result<Settings, CallError> {
    let bad = CallError::Malformed;
    Settings::builder()
        .failure_threshold(uint(v, "failure_threshold").ok_or(bad.clone())?)
        .failure_rate(uint(v, "failure_rate").ok_or(bad.clone())?)
        .min_attempts(uint(v, "min_attempts").ok_or(bad.clone())?)
        .window_secs(uint(v, "window_secs").ok_or(bad.clone())?)
        .cool_down_secs(uint(v, "cool_down_secs").ok_or(bad.clone())?)
        .max_cool_down_secs(uint(v, "max_cool_down_secs").ok_or(bad.clone())?)
        .max_in_flight(uint(v, "max_in_flight").ok_or(bad.clone())?)
        .max_per_second(match v.get("max_per_second") {
            None | Some(Value::Null) => None,
            Some(_) => Some(uint(v, "max_per_second").ok_or(bad.clone())?),
        })
        .lease_secs(uint(v, "lease_secs").ok_or(bad)?)
        .build()
        .map_err(CallError::Settings)
}

/// `settings` as the JSON the gate object keeps and a call carries.
#[must_use]
pub fn encode_settings(settings: &Settings) -> String {
    settings_json(settings).to_string()
}

/// Reads back what [`encode_settings`] wrote, checked as the configuration checks them.
pub fn decode_settings(text: &str) -> Result<Settings, CallError> {
    let v: Value = serde_json::from_str(text).map_err(|_| CallError::Malformed)?;
    settings_of(&v)
}

/// An attempt's result, whole, so the gate sees what the drain saw.
fn result_json(r: &AttemptResult) -> Value {
    match r {
        AttemptResult::Status { code, retry_after } => {
            json!({ "kind": "status", "code": code, "retry_after": retry_after.map(|s| s.0) })
        }
        AttemptResult::Timeout => json!({ "kind": "timeout" }),
        AttemptResult::NetworkError => json!({ "kind": "network_error" }),
        AttemptResult::Enqueued => json!({ "kind": "enqueued" }),
        AttemptResult::QueueError => json!({ "kind": "queue_error" }),
        AttemptResult::TooLarge { bytes } => json!({ "kind": "too_large", "bytes": bytes }),
        AttemptResult::Redirect { code, location } => {
            json!({ "kind": "redirect", "code": code, "location": location })
        }
    }
}

fn result_of(v: &Value) -> Option<AttemptResult> {
    Some(match string(v, "kind")? {
        "status" => AttemptResult::Status {
            code: uint(v, "code")?,
            retry_after: match v.get("retry_after") {
                None | Some(Value::Null) => None,
                Some(_) => Some(Seconds(uint(v, "retry_after")?)),
            },
        },
        "timeout" => AttemptResult::Timeout,
        "network_error" => AttemptResult::NetworkError,
        "enqueued" => AttemptResult::Enqueued,
        "queue_error" => AttemptResult::QueueError,
        "too_large" => AttemptResult::TooLarge {
            bytes: uint(v, "bytes")?,
        },
        "redirect" => AttemptResult::Redirect {
            code: uint(v, "code")?,
            location: match v.get("location") {
                None | Some(Value::Null) => None,
                Some(l) => Some(l.as_str()?.to_owned()),
            },
        },
        _ => return None,
    })
}

impl Call {
    /// The call's bytes, for the body of the request to the gate object.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let request = match &self.request {
            Request::Ask { entity, rows } => json!({ "op": "ask", "entity": entity, "rows": rows }),
            Request::Report {
                entity,
                lease,
                earlier,
                result,
            } => json!({ "op": "report", "entity": entity, "lease": lease.0,
                         "earlier": earlier, "result": result_json(result) }),
            Request::Renew {
                entity,
                lease,
                earlier,
                result,
                rows,
            } => json!({ "op": "renew", "entity": entity, "lease": lease.0,
                         "earlier": earlier, "result": result_json(result), "rows": rows }),
            Request::Pause => json!({ "op": "pause" }),
            Request::Resume => json!({ "op": "resume" }),
            Request::Status => json!({ "op": "status" }),
        };
        json!({ "settings": settings_json(&self.settings), "request": request })
            .to_string()
            .into_bytes()
    }

    /// Reads back what [`Call::encode`] wrote.
    pub fn decode(bytes: &[u8]) -> Result<Call, CallError> {
        let v: Value = serde_json::from_slice(bytes).map_err(|_| CallError::Malformed)?;
        let settings = settings_of(v.get("settings").ok_or(CallError::Malformed)?)?;
        let r = v.get("request").ok_or(CallError::Malformed)?;
        let entity = || string(r, "entity").map(str::to_owned);
        // Absent from a call an earlier version wrote: one attempt per lease.
        let count = |k: &str, absent: u32| match r.get(k) {
            None => Some(absent),
            Some(_) => uint(r, k),
        };
        let request = match string(r, "op") {
            Some("ask") => (|| {
                Some(Request::Ask {
                    entity: entity()?,
                    rows: count("rows", 1)?,
                })
            })(),
            Some(op @ ("report" | "renew")) => (|| {
                let (entity, lease) = (entity()?, LeaseId(uint(r, "lease")?));
                let earlier = count("earlier", 0)?;
                let result = result_of(r.get("result")?)?;
                Some(match op {
                    "report" => Request::Report {
                        entity,
                        lease,
                        earlier,
                        result,
                    },
                    _ => Request::Renew {
                        entity,
                        lease,
                        earlier,
                        result,
                        rows: count("rows", 1)?,
                    },
                })
            })(),
            Some("pause") => Some(Request::Pause),
            Some("resume") => Some(Request::Resume),
            Some("status") => Some(Request::Status),
            _ => None,
        };
        Ok(Call {
            settings,
            request: request.ok_or(CallError::Malformed)?,
        })
    }
}

/// What the gate object answers.
#[derive(Clone, Debug, PartialEq, Eq)]
// Exhaustive: a caller reads every variant; a new one must fail its build.
pub enum Answer {
    /// To [`Request::Ask`], with [`Status::healthy_since`], which a granted attempt's retry
    /// window counts from ([`window_start`]).
    Ask {
        /// Whether the attempt may go out.
        ask: Ask,
        /// See [`Status::healthy_since`].
        healthy_since: Option<UnixSeconds>,
    },
    /// To [`Request::Report`].
    Reported(Reported),
    /// To [`Request::Pause`], [`Request::Resume`] (`changed`: whether it was not already
    /// so) and [`Request::Status`] (`changed` is `None`).
    Status {
        /// The destination's state after the request.
        status: Status,
        /// Whether a pause or a resume changed it.
        changed: Option<bool>,
    },
}

const REASONS: [(WaitReason, &str); 5] = [
    (WaitReason::Open, "open"),
    (WaitReason::Probing, "probing"),
    (WaitReason::Full, "full"),
    (WaitReason::Rate, "rate"),
    (WaitReason::Turn, "turn"),
];

/// `open`, `probing`, `full`, `rate` or `turn`.
#[must_use]
pub fn reason_name(reason: WaitReason) -> &'static str {
    REASONS
        .iter()
        .find(|(r, _)| *r == reason)
        .map_or("", |(_, name)| name)
}

/// The status document, what the admin API returns: `state` (`paused`, or the breaker's),
/// then each field of [`Status`], and `changed` after a pause or a resume.
fn status_json(s: &Status, changed: Option<bool>) -> Value {
    let t = |t: Option<UnixSeconds>| t.map(|t| t.0);
    let mut doc = json!({
        "state": s.state(),
        "circuit": s.circuit.as_str(),
        "since": s.since.0,
        "paused_since": t(s.paused_since),
        "in_flight": s.in_flight,
        "limit": s.limit,
        "consecutive_failures": s.consecutive_failures,
        "recent_attempts": s.recent_attempts,
        "recent_failures": s.recent_failures,
        "next_probe_at": t(s.next_probe_at),
        "cool_down_secs": s.cool_down.0,
        "healthy_since": t(s.healthy_since),
        "waiting": s.waiting,
    });
    if let Some(changed) = changed {
        doc["changed"] = json!(changed);
    }
    doc
}

fn status_of(v: &Value) -> Option<Status> {
    let at = |k| nullable(v, k).map(|t: Option<i64>| t.map(UnixSeconds));
    Some(Status {
        circuit: Circuit::parse(string(v, "circuit")?)?,
        since: UnixSeconds(int(v, "since")?),
        paused_since: at("paused_since")?,
        in_flight: uint(v, "in_flight")?,
        limit: uint(v, "limit")?,
        consecutive_failures: uint(v, "consecutive_failures")?,
        recent_attempts: uint(v, "recent_attempts")?,
        recent_failures: uint(v, "recent_failures")?,
        next_probe_at: at("next_probe_at")?,
        cool_down: Seconds(uint(v, "cool_down_secs")?),
        healthy_since: at("healthy_since")?,
        waiting: uint(v, "waiting")?,
    })
}

impl Answer {
    /// The answer's bytes, for the body of the gate object's response: an ask's or a
    /// report's tagged by `answer`, a status the document [`status_json`] describes.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let mut v = match self {
            Answer::Ask {
                ask: Ask::Grant(g), ..
            } => json!({ "answer": "grant", "lease": g.lease.0, "until": g.until.0,
                         "probe": g.probe, "rows": g.rows, "rows_until": g.rows_until.0 }),
            Answer::Ask {
                ask: Ask::Wait { until, reason },
                ..
            } => json!({ "answer": "wait", "until": until.0, "reason": reason_name(*reason) }),
            Answer::Ask {
                ask: Ask::Paused, ..
            } => json!({ "answer": "paused" }),
            Answer::Reported(Reported::Counted { outage }) => {
                json!({ "answer": "counted", "outage": outage })
            }
            Answer::Reported(Reported::Unknown) => json!({ "answer": "unknown" }),
            Answer::Status { status, changed } => status_json(status, *changed),
        };
        if let Answer::Ask { healthy_since, .. } = self {
            v["healthy_since"] = json!(healthy_since.map(|t| t.0));
        }
        v.to_string().into_bytes()
    }

    /// Reads back what [`Answer::encode`] wrote; `None` for anything else.
    #[must_use]
    pub fn decode(bytes: &[u8]) -> Option<Answer> {
        let v: Value = serde_json::from_slice(bytes).ok()?;
        let until = || int(&v, "until").map(UnixSeconds);
        let asked = |ask| {
            let healthy_since = nullable(&v, "healthy_since")?.map(UnixSeconds);
            Some(Answer::Ask { ask, healthy_since })
        };
        Some(match v.get("answer") {
            None => Answer::Status {
                status: status_of(&v)?,
                changed: match v.get("changed") {
                    None => None,
                    Some(c) => Some(c.as_bool()?),
                },
            },
            Some(tag) => match tag.as_str()? {
                // Absent from an answer an earlier version wrote: one attempt.
                "grant" => asked(Ask::Grant(Grant {
                    lease: LeaseId(uint(&v, "lease")?),
                    until: until()?,
                    probe: boolean(&v, "probe")?,
                    rows: match v.get("rows") {
                        None => 1,
                        Some(_) => uint(&v, "rows")?,
                    },
                    rows_until: match v.get("rows_until") {
                        None => until()?,
                        Some(_) => UnixSeconds(int(&v, "rows_until")?),
                    },
                }))?,
                "wait" => {
                    let reason = string(&v, "reason")?;
                    asked(Ask::Wait {
                        until: until()?,
                        reason: REASONS.iter().find(|(_, n)| *n == reason)?.0,
                    })?
                }
                "paused" => asked(Ask::Paused)?,
                "counted" => Answer::Reported(Reported::Counted {
                    outage: boolean(&v, "outage")?,
                }),
                "unknown" => Answer::Reported(Reported::Unknown),
                _ => return None,
            },
        })
    }
}

/// The instant a row first tried at `first_attempt_at` counts its retry window from,
/// after an attempt made at `now` under `grant`, given the `healthy_since` its answer
/// carried: [`Protect::window_start`] as the gate would say it, with no second call. A
/// probe's window does not run (the destination is held); any other counts from the
/// later of its first attempt and the recovery.
#[must_use]
pub fn window_start(
    grant: &Grant,
    healthy_since: Option<UnixSeconds>,
    first_attempt_at: UnixSeconds,
    now: UnixSeconds,
) -> UnixSeconds {
    match (grant.probe, healthy_since) {
        (true, _) => now.max(first_attempt_at),
        (false, Some(h)) => h.max(first_attempt_at),
        (false, None) => first_attempt_at,
    }
}

/// How long an isolate keeps a pause its gate answered ([`Held`]): an entity of the
/// isolate asking within it is told paused with no call, and polls again
/// [`PAUSED_POLL`](crate::drain::PAUSED_POLL) later, so a resume reaches that entity's rows
/// at most this much later than without the cache (20 s after the resume at worst, not 15).
pub const PAUSE_KEPT: Seconds = Seconds(5);

/// A destination its gate holds, as an isolate keeps it (the adapter's per-isolate map,
/// keyed by source and destination) so that the isolate's other entities ask no gate while
/// it lasts: most of an outage's calls. An open breaker's wait is kept until
/// [`SHUT_SPREAD`] seconds before the instant its answer named, which is no later than
/// the probe's time (the gate names the probe's time plus 1 to [`SHUT_SPREAD`] seconds):
/// nothing changes an open breaker before its probe, and from the probe's time the gate
/// is asked again, so the line's head it wakes for the probe takes it. A pause is kept
/// [`PAUSE_KEPT`], since an operator's resume may come at any moment. Any other answer
/// ends what was kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    answer: Ask,
    /// Answered with no call before this instant.
    until: UnixSeconds,
}

impl Held {
    /// What to keep of `answer`, given at `now`; `None` to keep nothing (a grant, or a wait
    /// that may end at any moment: a slot, the rate, a turn, the probe's result).
    #[must_use]
    pub fn of(answer: &Ask, now: UnixSeconds) -> Option<Held> {
        match *answer {
            Ask::Wait {
                until,
                reason: WaitReason::Open,
            } => Some(Held {
                answer: *answer,
                until: until.minus(Seconds(u64::from(SHUT_SPREAD))),
            })
            .filter(|h| h.until > now),
            Ask::Paused => Some(Held {
                answer: Ask::Paused,
                until: now.plus(PAUSE_KEPT),
            }),
            _ => None,
        }
    }

    /// The gate's answer to `entity`'s ask at `now` with no call, while what was kept
    /// lasts. An ask that carries a lease's results (`reporting`: a `Renew`) calls anyway:
    /// they must reach the gate. An open breaker's wait ends for each entity up to
    /// [`SHUT_SPREAD`] seconds after the one kept, by a hash of its key, as the gate spreads
    /// its line's: the isolate's entities, not in the gate's line, come back spread out
    /// rather than all in the same second.
    #[must_use]
    pub fn answer(&self, entity: &str, reporting: bool, now: UnixSeconds) -> Option<Ask> {
        if reporting || now >= self.until {
            return None;
        }
        Some(match self.answer {
            Ask::Wait { until, reason } => {
                // FNV-1a: stable across isolates and versions, unlike std's hasher.
                let hash = entity.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                });
                let spread = Seconds(hash % u64::from(SHUT_SPREAD));
                Ask::Wait {
                    until: until.plus(spread),
                    reason,
                }
            }
            other => other,
        })
    }
}

/// What the gate object keeps in its one row: its name (an alarm has no caller to say
/// it), the settings it last ran with (so an alarm can rebuild its state), and the
/// [`Durable`] part of its state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Saved {
    /// The object's name ([`crate::names::gate_name`]).
    pub name: String,
    /// The settings it last ran with.
    pub settings: Settings,
    /// What survives a restart.
    pub durable: Durable,
}

/// What the gate object does next, in order, one IO each.
#[derive(Clone, Debug, PartialEq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum Command {
    /// Write this over the object's one row (before anything else goes out).
    Keep(Saved),
    /// Print this log record (a change of the destination's state).
    Log(LogRecord),
    /// Raise this operational alert (`ops`), after the log record of its change.
    Raise(Alert),
    /// Set the object's alarm for this instant.
    SetAlarm(UnixSeconds),
    /// Wake this entity's object (its name): a slot is free for it, and its `Wait` named
    /// the next second; woken, its drain asks again at once, so the slot does not idle.
    Wake(String),
    /// Answer the caller with this; the last command of a request.
    Answer(Answer),
}

/// A gate object's state: its [`Protect`], built from what it keeps on the first call.
#[derive(Clone, Debug)]
pub struct Gate {
    protect: Option<Protect<String>>,
    saved: Option<Saved>,
    /// The alarm this object set and has not seen fire.
    armed: Option<UnixSeconds>,
}

impl Gate {
    /// A gate object that keeps `saved` (read from its row when it starts).
    #[must_use]
    pub fn new(saved: Option<Saved>) -> Gate {
        Gate {
            protect: None,
            saved,
            armed: None,
        }
    }

    /// What the object named `name` does with `call` at `now`.
    pub fn handle(&mut self, name: &str, call: Call, now: UnixSeconds) -> Vec<Command> {
        let protect = self.protect(call.settings, now);
        let answer = match call.request {
            Request::Ask { entity, rows } => Answer::Ask {
                ask: protect.ask_batch(&entity, rows, now),
                healthy_since: protect.durable().healthy_since,
            },
            Request::Report {
                entity,
                lease,
                earlier,
                result,
            } => Answer::Reported(protect.report_batch(&entity, lease, earlier, &result, now)),
            // Reported first: an ask ends the entity's lease as lost.
            Request::Renew {
                entity,
                lease,
                earlier,
                result,
                rows,
            } => {
                let _ = protect.report_batch(&entity, lease, earlier, &result, now);
                Answer::Ask {
                    ask: protect.ask_batch(&entity, rows, now),
                    healthy_since: protect.durable().healthy_since,
                }
            }
            Request::Pause => {
                let changed = Some(protect.pause(now));
                let status = protect.status(now);
                Answer::Status { status, changed }
            }
            Request::Resume => {
                let changed = Some(protect.resume(now));
                let status = protect.status(now);
                Answer::Status { status, changed }
            }
            Request::Status => Answer::Status {
                status: protect.status(now),
                changed: None,
            },
        };
        let mut out = self.effects(name);
        out.push(Command::Answer(answer));
        out
    }

    /// The object's alarm fired at `now`: what time alone changed. An object that keeps
    /// nothing has nothing to do.
    pub fn alarm(&mut self, now: UnixSeconds) -> Vec<Command> {
        self.armed = None;
        let Some(saved) = self.saved.clone() else {
            return Vec::new();
        };
        self.protect(saved.settings, now).tick(now);
        self.effects(&saved.name)
    }

    /// The state, built on first use from what is kept, and rebuilt the same way when the
    /// caller's settings differ from the ones it runs with (a new configuration: the leases
    /// out are then forgotten, as after a restart).
    fn protect(&mut self, settings: Settings, now: UnixSeconds) -> &mut Protect<String> {
        let current = self.protect.take().filter(|p| *p.settings() == settings);
        let protect = current.unwrap_or_else(|| match &self.saved {
            Some(saved) => Protect::restore(settings, &saved.durable, now),
            None => Protect::new(settings, now),
        });
        self.protect.insert(protect)
    }

    /// The commands that follow a call: keep what changed, log the transitions, and set
    /// the alarm if none is set for the next deadline or earlier.
    fn effects(&mut self, name: &str) -> Vec<Command> {
        let mut out = Vec::new();
        let Some(protect) = self.protect.as_mut() else {
            return out;
        };
        let keep = Saved {
            name: name.to_owned(),
            settings: *protect.settings(),
            durable: protect.durable(),
        };
        if self.saved.as_ref() != Some(&keep) {
            self.saved = Some(keep.clone());
            out.push(Command::Keep(keep));
        }
        let (source, destination) = gate_parts(name).unwrap_or((name, ""));
        while let Some(t) = protect.poll_transition() {
            out.push(Command::Log(log::destination(source, destination, &t)));
            if let Some(alert) = ops::on_transition(source, destination, &t) {
                out.push(Command::Raise(alert));
            }
        }
        if let Some(at) = protect.next_deadline() {
            if self.armed.is_none_or(|armed| armed > at) {
                self.armed = Some(at);
                out.push(Command::SetAlarm(at));
            }
        }
        while let Some(entity) = protect.poll_wake() {
            out.push(Command::Wake(entity));
        }
        out
    }
}

//! Forwarding to the application: where (`url`, `service` or `queue`), how (async or
//! sync), and the retry schedule, timeout and lease.

use serde_json::Value;

use crate::protect::{Settings, SettingsError};
use crate::retry::{Schedule, ScheduleError};
use crate::time::Seconds;
use crate::urls::is_http_url;

use super::{ConfigError, FieldError, Reader};

/// Default lease for synchronous forwarding: how long one copy may hold a claim.
pub const DEFAULT_LEASE: Seconds = Seconds(30);
/// Default timeout of one forwarded request.
pub const DEFAULT_FORWARD_TIMEOUT: Seconds = Seconds(10);

/// How applied events reach the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ForwardMode {
    /// Through the durable outbox, after answering the provider (the default).
    Async,
    /// While the provider waits: claim with a lease, call, then answer.
    Sync,
}

/// Which of an entity's pending rows a destination is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Deliver {
    /// Every row, in order (the default).
    #[default]
    Each,
    /// Of a run of pending snapshot rows, only the newest: the older ones are superseded,
    /// never sent. For an application that needs current state only, so a backlog after
    /// an outage takes one request per entity. Ledger and notify rows are always sent.
    Latest,
}

/// Where forwarded events go: exactly one of `url`, `service` or `queue` in the
/// configuration. `S` is `String` as configured, `&str` in an outbox [`Target`](crate::outbox::Target).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Exhaustive: the edge sends to every kind of destination; a new kind must fail its build.
pub enum Destination<S = String> {
    /// An http(s) URL: one signed POST per attempt.
    Url(S),
    /// Another Worker, through this service binding: the same POST, through the binding.
    Service(S),
    /// A Cloudflare Queue, through this producer binding: one message per attempt.
    Queue(S),
}

impl<S: AsRef<str>> Destination<S> {
    /// The same destination, borrowed.
    pub fn as_deref(&self) -> Destination<&str> {
        match self {
            Destination::Url(u) => Destination::Url(u.as_ref()),
            Destination::Service(b) => Destination::Service(b.as_ref()),
            Destination::Queue(b) => Destination::Queue(b.as_ref()),
        }
    }

    /// The configuration field it was read from, for errors that name it.
    pub fn field(&self) -> &'static str {
        match self {
            Destination::Url(_) => "url",
            Destination::Service(_) => "service",
            Destination::Queue(_) => "queue",
        }
    }
}

/// Forwarding to the application behind hookonce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forward {
    /// Where events go.
    pub destination: Destination,
    /// Async (outbox) or sync (lease).
    pub mode: ForwardMode,
    /// Delays between attempts, and the retry window.
    pub schedule: Schedule,
    /// Timeout of one attempt.
    pub timeout: Seconds,
    /// Lease held by a synchronous call.
    pub lease: Seconds,
    /// Its breaker and caps (`max_in_flight`, `max_per_second`, `breaker`), shared by
    /// every entity sending to it.
    pub protect: Settings,
    /// Every row, or only each entity's newest snapshot (`deliver`).
    pub deliver: Deliver,
}

/// A Worker binding name, as wrangler accepts them: a JavaScript identifier without `$`.
pub(super) fn is_binding_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && name.len() <= 64
}

pub(super) fn parse_forward(at: &str, value: &Value) -> Result<Forward, ConfigError> {
    let mut r = Reader::new(at.to_owned(), value)?;
    let forward = forward_fields(at, &mut r)?;
    r.finish()?;
    Ok(forward)
}

/// Reads `forward`'s fields from `r` (at `at`), leaving other fields to the caller, which
/// refuses those it does not read either ([`Reader::finish`]).
pub(super) fn forward_fields(at: &str, r: &mut Reader) -> Result<Forward, ConfigError> {
    let mut destination = None;
    for (key, make) in [
        ("url", Destination::Url as fn(String) -> Destination),
        ("service", Destination::Service),
        ("queue", Destination::Queue),
    ] {
        let Some(value) = r.string(key)? else {
            continue;
        };
        if destination.is_some() {
            return Err(r.invalid(key, "only one of url, service or queue"));
        }
        let valid = match key {
            "url" => is_http_url(value),
            _ => is_binding_name(value),
        };
        if !valid {
            return Err(r.invalid(
                key,
                match key {
                    "url" => "expected an https:// URL with a host and no credentials",
                    _ => "expected a binding name: a letter or _, then letters, digits or _",
                },
            ));
        }
        destination = Some(make(value.to_owned()));
    }
    let Some(destination) = destination else {
        return Err(ConfigError::Invalid(
            at.to_owned(),
            FieldError::Value("expected one of url, service or queue"),
        ));
    };
    let mode = match r.string("mode")? {
        None | Some("async") => ForwardMode::Async,
        Some("sync") => ForwardMode::Sync,
        Some(_) => return Err(r.invalid("mode", "expected async or sync")),
    };
    // Sync mode makes the provider's answer wait for the application's; a queue send only
    // enqueues, so sync would add the claim's waits and 409s and promise nothing more.
    if mode == ForwardMode::Sync && matches!(destination, Destination::Queue(_)) {
        return Err(r.invalid(
            "mode",
            "sync needs an answer from the application (url or service); a queue only enqueues: use async",
        ));
    }
    let deliver = match r.string("deliver")? {
        None | Some("each") => Deliver::Each,
        Some("latest") => Deliver::Latest,
        Some(_) => return Err(r.invalid("deliver", "expected each or latest")),
    };
    // A sync call sends the event the provider is waiting on; there is nothing to skip.
    if deliver == Deliver::Latest && mode == ForwardMode::Sync {
        return Err(r.invalid(
            "deliver",
            "latest applies to the outbox's backlog; a sync destination sends each event as it arrives",
        ));
    }
    let delays = match r.get("schedule_secs") {
        None => Schedule::default().delays().to_vec(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_u64().map(Seconds))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| r.invalid("schedule_secs", "expected a list of whole seconds"))?,
        Some(_) => return Err(r.invalid("schedule_secs", "expected a list of whole seconds")),
    };
    let window = r
        .seconds("window_secs")?
        .unwrap_or(Schedule::DEFAULT_WINDOW);
    let schedule = Schedule::new(delays, window).map_err(|e| match e {
        ScheduleError::ZeroWindow | ScheduleError::WindowTooLong => {
            r.refused("window_secs", FieldError::Schedule(e))
        }
        _ => r.refused("schedule_secs", FieldError::Schedule(e)),
    })?;
    let positive = |r: &mut Reader, key: &'static str, default: Seconds| match r.seconds(key)? {
        None => Ok(default),
        Some(Seconds(0)) => Err(r.invalid(key, "must be positive")),
        Some(s) => Ok(s),
    };
    let timeout = positive(r, "timeout_secs", DEFAULT_FORWARD_TIMEOUT)?;
    let lease = positive(r, "lease_secs", DEFAULT_LEASE)?;
    if lease <= timeout {
        return Err(r.invalid("lease_secs", "must be longer than timeout_secs"));
    }
    let protect = protection(r)?;
    Ok(Forward {
        destination,
        mode,
        schedule,
        timeout,
        lease,
        protect,
        deliver,
    })
}

/// Reads `max_in_flight`, `max_per_second` and the `breaker` table; what is absent keeps
/// [`Settings::default`]'s value, and [`Settings::builder`] checks the ranges.
fn protection(r: &mut Reader) -> Result<Settings, ConfigError> {
    let mut b = Settings::builder();
    if let Some(n) = count(r, "max_in_flight")? {
        b = b.max_in_flight(n);
    }
    if let Some(n) = count(r, "max_per_second")? {
        b = b.max_per_second(Some(n));
    }
    if let Some(table) = r.get("breaker") {
        let mut t = Reader::new(r.path("breaker"), table)?;
        if let Some(n) = count(&mut t, "failures")? {
            b = b.failure_threshold(n);
        }
        if let Some(n) = count(&mut t, "failure_rate")? {
            // Above 255 is out of range either way: the builder refuses it as 255.
            b = b.failure_rate(u8::try_from(n).unwrap_or(u8::MAX));
        }
        if let Some(n) = count(&mut t, "min_attempts")? {
            b = b.min_attempts(n);
        }
        if let Some(s) = t.seconds("window_secs")? {
            b = b.window_secs(s.0);
        }
        if let Some(s) = t.seconds("cool_down_secs")? {
            b = b.cool_down_secs(s.0);
        }
        if let Some(s) = t.seconds("max_cool_down_secs")? {
            b = b.max_cool_down_secs(s.0);
        }
        t.finish()?;
    }
    b.build().map_err(|e| {
        let key = match e {
            SettingsError::MaxInFlight | SettingsError::MaxPerSecond | SettingsError::LeaseSecs => {
                e.field().to_owned()
            }
            SettingsError::FailureThreshold => "breaker.failures".to_owned(),
            _ => format!("breaker.{}", e.field()),
        };
        r.refused(&key, FieldError::Protect(e))
    })
}

/// A whole number, if the field is there; one beyond `u32` is kept as `u32::MAX`, which
/// every count's range refuses.
fn count(r: &mut Reader, key: &'static str) -> Result<Option<u32>, ConfigError> {
    match r.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(u32::try_from(n).unwrap_or(u32::MAX)))
            .ok_or_else(|| r.invalid(key, "expected a whole number")),
    }
}

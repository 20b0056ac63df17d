//! Operational webhooks: what hookonce tells an operator's endpoint about itself.
//!
//! A deployment that sets `HOOKONCE_OPS` has one more source, [`SOURCE`], that no provider
//! can post to: its events are [`Alert`]s that hookonce raises, and they travel the path
//! every event takes (steps 4 to 7): deduplicated by id in an entity object, kept in its
//! durable outbox, delivered at least once to the destination [`DESTINATION`] with the
//! event id as `Idempotency-Key` (the same on every retry), signed with the ops secret
//! (Standard Webhooks), behind their own gate, so an ops endpoint that is down holds back
//! nothing but its own alerts.
//!
//! **One outage is one alert.** An alert's id is its kind, its subject (source, and
//! destination where one applies) and the *quiet window* it falls in (`now / quiet_secs`):
//! the second raise of the same kind about the same subject within a window is a
//! duplicate, and the entity object drops it like any other. No state is kept for it
//! anywhere else, and a crash cannot make an alert go out twice.
//!
//! Who raises what:
//! - the gate object ([`crate::gate`]): `destination.failing` when its breaker opens after
//!   a run of failures, `destination.recovered` when it closes;
//! - the feed object, from the exact outbox figures each entity reports
//!   ([`watch`]): `event.dead_lettered` when a destination's dead letters grow,
//!   `backlog.high` when its pending rows or the age of the oldest reach a threshold;
//! - the Worker: `source.misconfigured` when a source's deliveries are refused for their
//!   signature or shape (sampled like the feed's notes of them).
//!
//! Alerts about the ops source itself are never raised: they would go to the endpoint
//! they are about.

use serde_json::{json, Map, Value};

use crate::metrics::DestinationRows;
use crate::protect::{Cause, Transition};
use crate::time::{Seconds, UnixSeconds};

/// The name of the ops source. [`crate::config::Sources`] refuses it for a configured one.
pub const SOURCE: &str = crate::config::OPS_SOURCE;
/// The name of the ops source's one destination.
pub const DESTINATION: &str = "ops";
/// The binding of the ops secret unless `HOOKONCE_OPS.secret` names another.
pub const DEFAULT_SECRET: &str = "HOOKONCE_OPS_SECRET";
/// The quiet window unless `quiet_secs` says otherwise: an hour, so a destination down
/// for an afternoon raises a handful of alerts, not one per failed attempt.
pub const DEFAULT_QUIET: Seconds = Seconds(3600);
/// `backlog.high` when a destination has this many rows pending, unless configured.
pub const DEFAULT_BACKLOG_PENDING: u64 = 1000;
/// `backlog.high` when a destination's oldest pending row is this old, unless configured:
/// 15 minutes is past the breaker's longest cool-down and the first retries.
pub const DEFAULT_BACKLOG_AGE: Seconds = Seconds(900);

/// The keys of `HOOKONCE_OPS` that are the ops channel's own; every other key configures
/// its destination, as a source's `destinations.<name>` table would.
const OWN_KEYS: [&str; 4] = [
    "secret",
    "quiet_secs",
    "backlog_pending",
    "backlog_age_secs",
];

/// What `HOOKONCE_OPS` configures besides the destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpsConfig {
    /// The binding of the secret that signs alerts ([`DEFAULT_SECRET`]).
    pub secret: String,
    /// Within one window, one alert of a kind per subject.
    pub quiet: Seconds,
    /// `backlog.high` at this many pending rows of one destination.
    pub backlog_pending: u64,
    /// `backlog.high` when the oldest pending row of one destination is this old.
    pub backlog_age: Seconds,
}

impl OpsConfig {
    /// Parses `HOOKONCE_OPS`, and returns with it the ops source's own configuration (a
    /// Standard Webhooks source whose events are all `notify`, about the subject in
    /// `/data/subject`, with the one destination). Errors name the field as
    /// `HOOKONCE_OPS.<field>`.
    pub fn from_json(value: &Value) -> Result<(OpsConfig, Value), String> {
        let field = |f: &str| format!("HOOKONCE_OPS.{f}");
        let map = value
            .as_object()
            .ok_or_else(|| "HOOKONCE_OPS: expected an object".to_owned())?;
        let whole = |key: &str, min: u64, max: u64| -> Result<Option<u64>, String> {
            match map.get(key) {
                None => Ok(None),
                Some(v) => v
                    .as_u64()
                    .filter(|n| (min..=max).contains(n))
                    .map(Some)
                    .ok_or_else(|| {
                        format!("{}: expected a whole number {min} to {max}", field(key))
                    }),
            }
        };
        let secret = match map.get("secret") {
            None => DEFAULT_SECRET.to_owned(),
            Some(Value::String(s)) if is_binding(s) => s.clone(),
            Some(_) => return Err(format!("{}: expected a binding name", field("secret"))),
        };
        let config = OpsConfig {
            secret: secret.clone(),
            quiet: Seconds(whole("quiet_secs", 60, 7 * 86_400)?.unwrap_or(DEFAULT_QUIET.0)),
            backlog_pending: whole("backlog_pending", 1, u64::from(u32::MAX))?
                .unwrap_or(DEFAULT_BACKLOG_PENDING),
            backlog_age: Seconds(
                whole("backlog_age_secs", 60, 30 * 86_400)?.unwrap_or(DEFAULT_BACKLOG_AGE.0),
            ),
        };
        let mut destination: Map<String, Value> = map
            .iter()
            .filter(|(k, _)| !OWN_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if destination.contains_key("types") || destination.contains_key("secrets") {
            return Err(format!(
                "{}: alerts of every type go out, signed with HOOKONCE_OPS.secret",
                field(if destination.contains_key("types") {
                    "types"
                } else {
                    "secrets"
                })
            ));
        }
        destination.insert("secrets".into(), json!([secret]));
        let source = json!({
            "scheme": "standard-webhooks",
            "secrets": [secret],
            "fields": { "entity": "/data/subject", "created_at": "", "object": "" },
            "effects": { "*": "notify" },
            "destinations": { DESTINATION: destination },
        });
        Ok((config, source))
    }

    /// Rewrites an error about the ops source's configuration to name `HOOKONCE_OPS`'s
    /// own field: the destination's fields are the variable's.
    #[must_use]
    pub fn field_of(error: &str) -> String {
        let prefix = format!("{SOURCE}.destinations.{DESTINATION}");
        match error.strip_prefix(&prefix) {
            Some(rest) => format!("HOOKONCE_OPS{rest}"),
            None => error.replacen(SOURCE, "HOOKONCE_OPS", 1),
        }
    }
}

/// Whether `name` may name a binding: what wrangler accepts for a secret's name.
fn is_binding(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Something an operator should hear about.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Alert {
    /// A destination's dead letters grew.
    DeadLettered {
        /// The source.
        source: String,
        /// Its destination.
        destination: String,
        /// How many it held before.
        before: u64,
        /// How many it holds now.
        dead: u64,
    },
    /// A destination's breaker opened after a run of failures.
    Failing {
        /// The source.
        source: String,
        /// Its destination.
        destination: String,
        /// Why it opened, as the log says.
        cause: String,
        /// When the probe may go out.
        probe_at: UnixSeconds,
    },
    /// A destination's breaker closed: its probe succeeded.
    Recovered {
        /// The source.
        source: String,
        /// Its destination.
        destination: String,
    },
    /// A destination's backlog reached a threshold.
    BacklogHigh {
        /// The source.
        source: String,
        /// Its destination.
        destination: String,
        /// Rows pending.
        pending: u64,
        /// How old the oldest of them is.
        oldest_age_secs: Option<i64>,
    },
    /// A source's deliveries are being refused: its secret or its shape is likely wrong.
    Misconfigured {
        /// The source.
        source: String,
        /// The status the refusal was answered with.
        status: u16,
        /// Why, as answered.
        reason: String,
    },
}

/// An alert as the ops source's event: its id (also the `Idempotency-Key` its endpoint
/// sees) and its body, a Standard Webhooks payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// `{type}:{subject}:{window}`.
    pub id: String,
    /// `{"id","type","timestamp","data":{"subject",…}}`.
    pub body: Vec<u8>,
}

impl Alert {
    /// The event type the endpoint receives.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Alert::DeadLettered { .. } => "event.dead_lettered",
            Alert::Failing { .. } => "destination.failing",
            Alert::Recovered { .. } => "destination.recovered",
            Alert::BacklogHigh { .. } => "backlog.high",
            Alert::Misconfigured { .. } => "source.misconfigured",
        }
    }

    /// The source it is about.
    #[must_use]
    pub fn source(&self) -> &str {
        match self {
            Alert::DeadLettered { source, .. }
            | Alert::Failing { source, .. }
            | Alert::Recovered { source, .. }
            | Alert::BacklogHigh { source, .. }
            | Alert::Misconfigured { source, .. } => source,
        }
    }

    /// The destination it is about, where one applies.
    fn destination(&self) -> Option<&str> {
        match self {
            Alert::DeadLettered { destination, .. }
            | Alert::Failing { destination, .. }
            | Alert::Recovered { destination, .. }
            | Alert::BacklogHigh { destination, .. } => Some(destination),
            Alert::Misconfigured { .. } => None,
        }
    }

    /// Its subject, the ops source's entity: alerts about one subject are delivered in
    /// the order they were raised. Source names hold no `:`.
    #[must_use]
    pub fn subject(&self) -> String {
        match self.destination() {
            Some(d) => format!("{}:{d}", self.source()),
            None => self.source().to_owned(),
        }
    }

    /// The event raised at `now`; its id names the quiet window `now` falls in.
    #[must_use]
    pub fn message(&self, now: UnixSeconds, quiet: Seconds) -> Message {
        let window = now.0.div_euclid(quiet.0.max(1) as i64);
        let id = format!("{}:{}:{window}", self.kind(), self.subject());
        let mut data = json!({ "subject": self.subject(), "source": self.source() });
        if let Some(d) = self.destination() {
            data["destination"] = json!(d);
        }
        let more = match self {
            Alert::DeadLettered { before, dead, .. } => {
                json!({ "dead": dead, "new": dead.saturating_sub(*before) })
            }
            Alert::Failing {
                cause, probe_at, ..
            } => json!({ "cause": cause, "probe_at": probe_at.0 }),
            Alert::Recovered { .. } => json!({}),
            Alert::BacklogHigh {
                pending,
                oldest_age_secs,
                ..
            } => json!({ "pending": pending, "oldest_pending_age_seconds": oldest_age_secs }),
            Alert::Misconfigured { status, reason, .. } => {
                json!({ "status": status, "reason": reason })
            }
        };
        if let (Some(data), Value::Object(more)) = (data.as_object_mut(), more) {
            data.extend(more);
        }
        let body = json!({ "id": id, "type": self.kind(), "timestamp": now.0, "data": data });
        Message {
            id,
            body: body.to_string().into_bytes(),
        }
    }
}

/// What the gate of `source`'s `destination` raises for a change of its breaker: a breaker
/// that opens after a run of failures is failing, one that closes has recovered; a failed
/// probe reopening it is the same outage, and a pause is an operator's own doing.
#[must_use]
pub fn on_transition(source: &str, destination: &str, t: &Transition) -> Option<Alert> {
    if source == SOURCE {
        return None;
    }
    let (source, destination) = (source.to_owned(), destination.to_owned());
    match t {
        Transition::Opened {
            probe_at,
            cause: cause @ (Cause::ConsecutiveFailures { .. } | Cause::FailureRate { .. }),
            ..
        } => Some(Alert::Failing {
            source,
            destination,
            cause: cause.to_string(),
            probe_at: *probe_at,
        }),
        Transition::Closed { .. } => Some(Alert::Recovered {
            source,
            destination,
        }),
        _ => None,
    }
}

/// What `source`'s feed should raise after an entity's report changed its per-destination
/// figures from `before` to `after` (both the feed's sums over every entity), at `now`.
#[must_use]
pub fn watch(
    config: &OpsConfig,
    source: &str,
    before: &[DestinationRows],
    after: &[DestinationRows],
    now: UnixSeconds,
) -> Vec<Alert> {
    if source == SOURCE {
        return Vec::new();
    }
    let mut out = Vec::new();
    for rows in after {
        let dead_before = before
            .iter()
            .find(|b| b.destination == rows.destination)
            .map_or(0, |b| b.dead);
        if rows.dead > dead_before {
            out.push(Alert::DeadLettered {
                source: source.to_owned(),
                destination: rows.destination.clone(),
                before: dead_before,
                dead: rows.dead,
            });
        }
        let age = rows.oldest_pending_at.map(|t| (now.0 - t).max(0));
        let old = age.is_some_and(|a| a >= config.backlog_age.0 as i64);
        if rows.pending >= config.backlog_pending || old {
            out.push(Alert::BacklogHigh {
                source: source.to_owned(),
                destination: rows.destination.clone(),
                pending: rows.pending,
                oldest_age_secs: age,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{SourceConfig, Sources};

    fn rows(destination: &str, pending: u64, oldest: Option<i64>, dead: u64) -> DestinationRows {
        DestinationRows {
            destination: destination.into(),
            pending,
            oldest_pending_at: oldest,
            dead,
        }
    }

    fn config() -> OpsConfig {
        OpsConfig::from_json(&json!({ "url": "https://ops.example/hooks" }))
            .unwrap()
            .0
    }

    #[test]
    fn the_ops_variable_makes_a_source_with_one_destination_signed_with_the_ops_secret() {
        let (ops, source) = OpsConfig::from_json(&json!({
            "url": "https://ops.example/hooks", "timeout_secs": 5, "quiet_secs": 600
        }))
        .unwrap();
        assert_eq!(ops.quiet, Seconds(600));
        assert_eq!(ops.secret, DEFAULT_SECRET);
        let source = SourceConfig::from_json(SOURCE, &source).unwrap();
        let d = source.destination(DESTINATION).unwrap();
        assert_eq!(d.secrets, vec![DEFAULT_SECRET.to_owned()]);
        assert_eq!(source.destinations.len(), 1);
    }

    #[test]
    fn bad_ops_settings_are_errors_that_name_the_field() {
        let err = |v: Value| OpsConfig::from_json(&v).unwrap_err();
        assert!(err(json!({"url": "https://o.example", "quiet_secs": 5}))
            .starts_with("HOOKONCE_OPS.quiet_secs:"));
        assert!(
            err(json!({"url": "https://o.example", "backlog_pending": 0}))
                .starts_with("HOOKONCE_OPS.backlog_pending:")
        );
        assert!(
            err(json!({"url": "https://o.example", "secret": "not a name"}))
                .starts_with("HOOKONCE_OPS.secret:")
        );
        assert!(err(json!({"url": "https://o.example", "types": ["a"]}))
            .starts_with("HOOKONCE_OPS.types:"));
        assert!(err(json!("https://o.example")).starts_with("HOOKONCE_OPS:"));
        let (_, source) =
            OpsConfig::from_json(&json!({"url": "https://o.example", "timeout_secs": -1})).unwrap();
        let e = SourceConfig::from_json(SOURCE, &source)
            .unwrap_err()
            .to_string();
        assert!(
            OpsConfig::field_of(&e).starts_with("HOOKONCE_OPS.timeout_secs"),
            "{e}"
        );
    }

    #[test]
    fn no_configured_source_may_take_the_ops_sources_name() {
        let e = Sources::from_json(&json!({ SOURCE: { "scheme": "stripe", "secrets": ["S"] } }))
            .unwrap_err()
            .to_string();
        assert!(e.contains("reserved"), "{e}");
    }

    #[test]
    fn the_same_alert_in_one_quiet_window_has_one_id_and_in_the_next_another() {
        let failing = Alert::Failing {
            source: "stripe".into(),
            destination: "billing".into(),
            cause: "10 failures in a row".into(),
            probe_at: UnixSeconds(3_630),
        };
        let q = Seconds(3600);
        let a = failing.message(UnixSeconds(3_600), q);
        assert_eq!(a.id, "destination.failing:stripe:billing:1");
        assert_eq!(failing.message(UnixSeconds(7_199), q).id, a.id);
        assert_ne!(failing.message(UnixSeconds(7_200), q).id, a.id);
        let body: Value = serde_json::from_slice(&a.body).unwrap();
        assert_eq!(body["type"], "destination.failing");
        assert_eq!(body["id"], a.id.as_str());
        assert_eq!(body["data"]["subject"], "stripe:billing");
        assert_eq!(body["data"]["destination"], "billing");
        assert_eq!(body["data"]["probe_at"], 3_630);
    }

    #[test]
    fn a_breaker_opening_on_failures_is_failing_and_closing_is_recovered_and_nothing_else_alerts() {
        let at = UnixSeconds(100);
        let opened = |cause| Transition::Opened {
            at,
            probe_at: UnixSeconds(130),
            cause,
        };
        let failing = on_transition(
            "stripe",
            "billing",
            &opened(Cause::ConsecutiveFailures { count: 10 }),
        );
        assert_eq!(failing.map(|a| a.kind()), Some("destination.failing"));
        assert_eq!(
            on_transition("stripe", "billing", &opened(Cause::ProbeFailed)),
            None
        );
        assert_eq!(
            on_transition("stripe", "billing", &Transition::Paused { at }),
            None
        );
        let closed = on_transition("stripe", "billing", &Transition::Closed { at });
        assert_eq!(closed.map(|a| a.kind()), Some("destination.recovered"));
        assert_eq!(
            on_transition(SOURCE, DESTINATION, &Transition::Closed { at }),
            None
        );
    }

    #[test]
    fn growing_dead_letters_and_a_backlog_over_a_threshold_raise_and_nothing_else_does() {
        let c = config();
        let now = UnixSeconds(10_000);
        let before = [
            rows("billing", 5, Some(9_990), 2),
            rows("crm", 1, Some(9_999), 0),
        ];
        assert!(watch(&c, "stripe", &before, &before, now).is_empty());
        let after = [
            rows("billing", 5, Some(9_990), 3),
            rows("crm", 1, Some(9_000), 0),
        ];
        let raised = watch(&c, "stripe", &before, &after, now);
        assert_eq!(
            raised,
            vec![
                Alert::DeadLettered {
                    source: "stripe".into(),
                    destination: "billing".into(),
                    before: 2,
                    dead: 3
                },
                Alert::BacklogHigh {
                    source: "stripe".into(),
                    destination: "crm".into(),
                    pending: 1,
                    oldest_age_secs: Some(1_000)
                },
            ]
        );
        let many = [rows("billing", 1000, Some(9_999), 0)];
        assert_eq!(watch(&c, "stripe", &[], &many, now).len(), 1);
        assert!(watch(&c, SOURCE, &before, &after, now).is_empty());
    }
}

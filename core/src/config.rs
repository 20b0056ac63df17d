//! Per-source configuration, validated once, with errors that name the bad field.
//!
//! Sources arrive as JSON (in the Worker: `[vars.HOOKONCE_SOURCES.<name>]` in
//! `wrangler.toml`). A bad field fails the whole configuration: hookonce never falls back
//! to accepting unsigned input.

use crate::small_map::SmallMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::body::MAX_STORABLE_BODY;
use crate::custom::{is_header_name, parse_template, Encoding, HmacSpec, Part, SpecError};
use crate::extract::Pointers;
use crate::outbound::{self, Policy, Refusal};
use crate::retention::{
    Lifetimes, Retention, RetentionError, DEFAULT_BODY_RETENTION, MAX_BODY_RETENTION, MIN_RETENTION,
};
use crate::retry::{Schedule, ScheduleError};
use crate::time::{Seconds, UnixSeconds};
use crate::urls::is_http_url;
use crate::verify::Scheme;

/// Largest body accepted by default (1 MiB).
pub const DEFAULT_MAX_BODY: usize = 1 << 20;
/// What `max_body_bytes` may be, as a configuration error says it.
const MAX_BODY_RANGE: &str = "expected 1 to 1800000: an entity's Durable Object stores a \
    body of at most 1800000 bytes (its SQLite keeps rows of at most 2 MB)";

/// Default lease for synchronous forwarding: how long one copy may hold a claim.
pub const DEFAULT_LEASE: Seconds = Seconds(30);
/// Default timeout of one forwarded request.
pub const DEFAULT_FORWARD_TIMEOUT: Seconds = Seconds(10);
/// Bucket objects per source for events about no entity (`buckets`).
pub const DEFAULT_BUCKETS: u32 = 64;
/// The most `buckets` a source may have. One object serves several hundred events a
/// second, so 1,024 buckets carry far more than any provider sends; more only adds
/// objects, each with its own pages and alarm, holding fewer ids apiece.
pub const MAX_BUCKETS: u32 = 1024;
/// How long after a source's buckets were made an id new to its bucket is looked up in
/// the object an earlier version gave each event (`legacy_lookup_secs`): 30 days, longer
/// than providers redeliver (Stripe retries for 3 days, GitHub redelivers 3 days back).
pub const DEFAULT_LEGACY_LOOKUP: Seconds = Seconds(30 * 86_400);

/// Where an event field is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldSource {
    /// A JSON pointer into the body (RFC 6901).
    Pointer(String),
    /// A request header (for providers that keep the id there, e.g. `X-GitHub-Delivery`).
    Header(String),
    /// The source does not report it.
    Absent,
}

/// What one event type does when applied.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Effect {
    /// Store the reported object; ordered by version, so older events are stale.
    Snapshot,
    /// Accumulate the amount at this JSON pointer, once per event id.
    Ledger {
        /// JSON pointer to an integer amount.
        amount: String,
    },
    /// Pass on only.
    Notify,
}

/// Effects per event type, with a fallback (`"*"`, default `notify`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effects {
    by_type: SmallMap<String, Effect>,
    fallback: Effect,
}

impl Effects {
    /// The effect configured for `event_type`.
    pub fn for_type(&self, event_type: &str) -> &Effect {
        self.by_type.get(event_type).unwrap_or(&self.fallback)
    }

    /// Every effect a type can have, the fallback's included.
    fn all(&self) -> impl Iterator<Item = &Effect> {
        self.by_type.values().chain(std::iter::once(&self.fallback))
    }

    /// Every ledger amount pointer any type reads.
    pub(crate) fn amount_pointers(&self) -> impl Iterator<Item = &str> {
        self.all().filter_map(|e| match e {
            Effect::Ledger { amount } => Some(amount.as_str()),
            _ => None,
        })
    }
}

/// How a source's events are read: where each field lives and what each type does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The event id (dedupe key).
    pub id: FieldSource,
    /// The event type.
    pub kind: FieldSource,
    /// The creation time (RFC 3339 string or unix seconds).
    pub created_at: FieldSource,
    /// The entity key; events without one are keyed by their own id.
    pub entity: FieldSource,
    /// The object a snapshot stores.
    pub object: FieldSource,
    /// Effect per event type.
    pub effects: Effects,
    /// Every pointer above, and every ledger amount's (the type is one of the values
    /// read), walked in one pass over a body.
    pub(crate) reads: Pointers,
}

impl Shape {
    fn new(fields: [FieldSource; 5], effects: Effects) -> Shape {
        let pointers = fields.iter().filter_map(|f| match f {
            FieldSource::Pointer(p) => Some(p.as_str()),
            _ => None,
        });
        let reads = Pointers::new(pointers.chain(effects.amount_pointers()));
        let [id, kind, created_at, entity, object] = fields;
        Shape {
            id,
            kind,
            created_at,
            entity,
            object,
            effects,
            reads,
        }
    }
}

/// How applied events reach the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ForwardMode {
    /// Through the durable outbox, after answering the provider (the default).
    Async,
    /// While the provider waits: claim with a lease, call, then answer.
    Sync,
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
}

/// One webhook source, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceConfig {
    /// The name in the URL, `/webhooks/{name}`.
    pub name: String,
    /// Signature scheme.
    pub scheme: Scheme,
    /// Secret binding names, newest first; several allow rotation without downtime.
    pub secrets: Vec<String>,
    /// Allowed clock skew for signed timestamps.
    pub tolerance: Seconds,
    /// Where fields live and what event types do.
    pub shape: Shape,
    /// Forwarding, if any.
    pub forward: Option<Forward>,
    /// How long processed ids are kept.
    pub retention: Retention,
    /// How long a raw body is kept after it arrived (pending forwards keep theirs longer).
    pub body_retention: Seconds,
    /// Whether raw bodies are kept for replay.
    pub keep_raw_bodies: bool,
    /// Largest accepted body, in bytes (`max_body_bytes`): at most [`MAX_STORABLE_BODY`],
    /// the largest body an entity's Durable Object can store.
    pub max_body: usize,
    /// Whether fields read from headers the signature does not cover may decide a
    /// snapshot's version and entity or a ledger's id (`trust_unsigned_headers`).
    pub trust_unsigned_headers: bool,
    /// How many bucket objects share the events about no entity (`buckets`).
    pub buckets: u32,
    /// For how long after its buckets were made a bucket asks an event's own object, as
    /// versions before buckets kept them, about an id it does not know
    /// (`legacy_lookup_secs`; 0: never).
    pub legacy_lookup: Seconds,
}

/// A configuration problem, naming the field as `source.path`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// The whole value is not a JSON object of sources.
    NotAnObject(String),
    /// A required field is absent.
    Missing(String),
    /// A field is present but wrong: its path, and why.
    Invalid(String, FieldError),
    /// A field hookonce does not know (likely a typo).
    Unknown(String),
    /// A destination the outbound guard refuses.
    Destination(String, Refusal),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NotAnObject(at) => write!(f, "{at}: expected an object"),
            ConfigError::Missing(at) => write!(f, "{at}: missing"),
            ConfigError::Invalid(at, why) => write!(f, "{at}: {why}"),
            ConfigError::Unknown(at) => write!(f, "{at}: unknown field"),
            ConfigError::Destination(at, refusal) => write!(f, "{at}: {refusal}"),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Invalid(_, why) => why.cause(),
            ConfigError::Destination(_, refusal) => Some(refusal),
            _ => None,
        }
    }
}

/// Why a field's value is refused: in words, or the typed error of the part that refused it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldError {
    /// The value is not one the field takes; the text says what it takes.
    Value(&'static str),
    /// A retention period the retention rules refuse.
    Retention(RetentionError),
    /// A retry schedule or window the schedule refuses.
    Schedule(ScheduleError),
    /// An HMAC description (its template, its header names) the spec refuses.
    Spec(SpecError),
}

impl FieldError {
    fn cause(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FieldError::Value(_) => None,
            FieldError::Retention(e) => Some(e),
            FieldError::Schedule(e) => Some(e),
            FieldError::Spec(e) => Some(e),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldError::Value(why) => f.write_str(why),
            FieldError::Retention(RetentionError::TooShort(_)) => {
                write!(f, "must be at least {} (24 h)", MIN_RETENTION.0)
            }
            FieldError::Schedule(ScheduleError::ZeroWindow | ScheduleError::WindowTooLong) => {
                f.write_str("expected 1 s to 30 days")
            }
            FieldError::Schedule(e) => write!(
                f,
                "expected positive, non-decreasing delays within the window ({e})"
            ),
            FieldError::Spec(e) => e.fmt(f),
        }
    }
}

/// All sources by name.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Sources(SmallMap<String, SourceConfig>);

impl Sources {
    /// Parses `{ "<name>": { …source… }, … }`.
    pub fn from_json(value: &Value) -> Result<Sources, ConfigError> {
        let map = value
            .as_object()
            .ok_or_else(|| ConfigError::NotAnObject("sources".into()))?;
        let mut out = SmallMap::new();
        for (name, source) in map {
            let valid_name = !name.is_empty()
                && name.len() <= 64
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !valid_name {
                return Err(ConfigError::Invalid(
                    name.clone(),
                    FieldError::Value("source names are 1-64 of [A-Za-z0-9_-]"),
                ));
            }
            out.insert(name.clone(), SourceConfig::from_json(name, source)?);
        }
        Ok(Sources(out))
    }

    /// The source called `name`.
    pub fn get(&self, name: &str) -> Option<&SourceConfig> {
        self.0.get(name)
    }

    /// Every source, by name.
    pub fn iter(&self) -> impl Iterator<Item = &SourceConfig> {
        self.0.values()
    }

    /// Every configured URL destination through the outbound guard: the first one it
    /// refuses, with its field.
    pub fn check_outbound(&self, policy: Policy) -> Result<(), ConfigError> {
        for source in self.iter() {
            if let Some(Destination::Url(url)) = source.forward.as_ref().map(|f| &f.destination) {
                outbound::check(url, policy, None).map_err(|r| {
                    ConfigError::Destination(format!("{}.forward.url", source.name), r)
                })?;
            }
        }
        Ok(())
    }
}

/// Reads fields of one JSON object, remembering the path for errors and which keys were used.
struct Reader<'a> {
    at: String,
    map: &'a Map<String, Value>,
    used: Vec<&'static str>,
}

impl<'a> Reader<'a> {
    fn new(at: String, value: &'a Value) -> Result<Self, ConfigError> {
        let map = value
            .as_object()
            .ok_or_else(|| ConfigError::NotAnObject(at.clone()))?;
        Ok(Reader {
            at,
            map,
            used: Vec::new(),
        })
    }

    fn path(&self, key: &str) -> String {
        format!("{}.{key}", self.at)
    }

    fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.used.push(key);
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn invalid(&self, key: &str, why: &'static str) -> ConfigError {
        self.refused(key, FieldError::Value(why))
    }

    fn refused(&self, key: &str, why: FieldError) -> ConfigError {
        ConfigError::Invalid(self.path(key), why)
    }

    fn string(&mut self, key: &'static str) -> Result<Option<&'a str>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.invalid(key, "expected a string")),
        }
    }

    fn seconds(&mut self, key: &'static str) -> Result<Option<Seconds>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .map(|n| Some(Seconds(n)))
                .ok_or_else(|| self.invalid(key, "expected a whole number of seconds")),
        }
    }

    fn pointer(&mut self, key: &'static str) -> Result<Option<FieldSource>, ConfigError> {
        match self.string(key)? {
            None => Ok(None),
            Some("") => Ok(Some(FieldSource::Absent)),
            Some(p) if p.starts_with('/') => Ok(Some(FieldSource::Pointer(p.to_owned()))),
            Some(_) => Err(self.invalid(key, "expected a JSON pointer starting with /")),
        }
    }

    /// Refuses keys that no `get` asked for: a typo must not silently become a default.
    fn finish(self) -> Result<(), ConfigError> {
        match self.map.keys().find(|k| !self.used.contains(&k.as_str())) {
            Some(k) => Err(ConfigError::Unknown(self.path(k))),
            None => Ok(()),
        }
    }
}

/// Field defaults per scheme: the seeds' shape for Standard Webhooks, Stripe's and GitHub's own.
fn default_shape(scheme: &Scheme) -> [FieldSource; 5] {
    let p = |s: &str| FieldSource::Pointer(s.to_owned());
    let h = |s: &str| FieldSource::Header(s.to_owned());
    match scheme {
        Scheme::StandardWebhooks => [
            p("/id"),
            p("/type"),
            p("/created_at"),
            p("/data/object/id"),
            p("/data/object"),
        ],
        Scheme::Stripe => [
            p("/id"),
            p("/type"),
            p("/created"),
            p("/data/object/id"),
            p("/data/object"),
        ],
        // GitHub keeps the id and the type in headers and reports no creation time.
        Scheme::GitHub => [
            h("x-github-delivery"),
            h("x-github-event"),
            FieldSource::Absent,
            FieldSource::Absent,
            FieldSource::Absent,
        ],
        // Shopify: the event id is X-Shopify-Event-Id, the same across the webhooks of
        // several subscriptions (never X-Shopify-Webhook-Id, which differs per
        // subscription); the body is the resource itself.
        Scheme::Shopify => [
            h("x-shopify-event-id"),
            h("x-shopify-topic"),
            // The version comes from the signed body: the topic's resource carries its
            // own `updated_at`, where X-Shopify-Triggered-At is outside the HMAC.
            p("/updated_at"),
            p("/id"),
            p(""),
        ],
        // Slack's Events API: the envelope's event_id and event_time, the inner event's type.
        Scheme::Slack => [
            p("/event_id"),
            p("/event/type"),
            p("/event_time"),
            FieldSource::Absent,
            p("/event"),
        ],
        Scheme::Hmac(_) => [
            p("/id"),
            p("/type"),
            p("/created_at"),
            FieldSource::Absent,
            FieldSource::Absent,
        ],
    }
}

impl SourceConfig {
    /// Whether an applied event's body is kept for replay: `keep_raw_bodies`, and a
    /// `body_retention_secs` above 0. Kept for 0 seconds is not kept: the alternative, a
    /// body written and an alarm woken at once to prune it, halved throughput.
    pub fn keeps_bodies(&self) -> bool {
        self.keep_raw_bodies && self.body_retention > Seconds(0)
    }

    /// How long this source's ids and bodies are kept.
    pub fn lifetimes(&self) -> Lifetimes {
        Lifetimes {
            ids: self.retention,
            bodies: self.body_retention,
        }
    }

    /// Whether buckets recorded with `recorded` as their count serve this configuration:
    /// another count would send a recorded id to another bucket, which would apply it again.
    /// The error names the field and the count to set back.
    pub fn check_buckets(&self, recorded: u32) -> Result<(), String> {
        match recorded == self.buckets {
            true => Ok(()),
            false => Err(format!(
                "{}.buckets is {}, but its events about no entity are recorded in {recorded} \
                 buckets: another count would send a recorded id to another bucket and apply \
                 it again; set buckets back to {recorded}",
                self.name, self.buckets
            )),
        }
    }

    /// Whether a bucket whose source's buckets were made at `since` looks up an id it does
    /// not know in the event's own object, at `now`, for an event created at `created_at`
    /// (if the source reads one): within `legacy_lookup_secs`, and only for an event that
    /// an earlier version could have seen. One created more than a day after `since` could
    /// not: the earlier version stopped serving when the deployment that made the buckets
    /// finished, which takes minutes, so a day covers it and any provider's clock skew. Each
    /// look-up is a call to another object, and on workerd leaves an empty database (one
    /// 4 KiB page) for an id no earlier version saw, so it is bounded.
    pub fn looks_up_per_event_objects(
        &self,
        since: UnixSeconds,
        now: UnixSeconds,
        created_at: Option<UnixSeconds>,
    ) -> bool {
        let after_the_upgrade = created_at.is_some_and(|c| c > since.plus(Seconds::DAY));
        self.legacy_lookup > Seconds(0)
            && now < since.plus(self.legacy_lookup)
            && !after_the_upgrade
    }

    /// Every request header this source reads: the scheme's signature headers and any
    /// event field configured to come from a header.
    pub fn headers_read(&self) -> Vec<&str> {
        let shape = &self.shape;
        let mut names: Vec<&str> = self.scheme.headers();
        for field in [&shape.id, &shape.kind, &shape.created_at, &shape.entity] {
            if let FieldSource::Header(name) = field {
                names.push(name);
            }
        }
        names
    }

    /// Parses and validates one source; `name` prefixes every error's field path.
    pub fn from_json(name: &str, value: &Value) -> Result<SourceConfig, ConfigError> {
        let mut r = Reader::new(name.to_owned(), value)?;
        let scheme = match r.string("scheme")? {
            None => return Err(ConfigError::Missing(r.path("scheme"))),
            Some("standard-webhooks") => Scheme::StandardWebhooks,
            Some("stripe") => Scheme::Stripe,
            Some("github") => Scheme::GitHub,
            Some("shopify") => Scheme::Shopify,
            Some("slack") => Scheme::Slack,
            Some("hmac") => match r.get("hmac") {
                None => return Err(ConfigError::Missing(r.path("hmac"))),
                Some(v) => Scheme::Hmac(Box::new(parse_hmac(&r.path("hmac"), v)?)),
            },
            Some(_) => {
                return Err(r.invalid(
                    "scheme",
                    "expected standard-webhooks, stripe, github, shopify, slack or hmac",
                ))
            }
        };
        if !matches!(scheme, Scheme::Hmac(_)) && r.get("hmac").is_some() {
            return Err(r.invalid("hmac", "only for scheme = \"hmac\""));
        }
        let secrets = match r.get("secrets") {
            None => return Err(ConfigError::Missing(r.path("secrets"))),
            Some(Value::Array(items)) if !items.is_empty() => items
                .iter()
                .map(|v| v.as_str().filter(|s| !s.is_empty()).map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| r.invalid("secrets", "expected names of secret bindings"))?,
            Some(_) => {
                return Err(r.invalid("secrets", "expected a non-empty list of binding names"))
            }
        };
        let tolerance = r
            .seconds("tolerance_secs")?
            .unwrap_or_else(|| scheme.default_tolerance());

        let [mut id, mut kind, mut created_at, mut entity, mut object] = default_shape(&scheme);
        if let Some(fields) = r.get("fields") {
            let mut f = Reader::new(r.path("fields"), fields)?;
            for (key, slot) in [
                ("id", &mut id),
                ("type", &mut kind),
                ("created_at", &mut created_at),
                ("entity", &mut entity),
                ("object", &mut object),
            ] {
                if let Some(source) = f.pointer(key)? {
                    *slot = source;
                }
            }
            f.finish()?;
        }
        if let Some(header) = r.string("id_header")? {
            if header.is_empty() || !header.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                return Err(r.invalid("id_header", "expected a header name"));
            }
            id = FieldSource::Header(header.to_ascii_lowercase());
        }
        if id == FieldSource::Absent {
            return Err(r.invalid("fields.id", "every event needs an id"));
        }

        let effects = match r.get("effects") {
            None => Effects {
                by_type: SmallMap::new(),
                fallback: Effect::Notify,
            },
            Some(v) => parse_effects(&r.path("effects"), v)?,
        };
        let forward = match r.get("forward") {
            None => None,
            Some(v) => Some(parse_forward(&r.path("forward"), v)?),
        };
        let retention = match r.seconds("retention_secs")? {
            None => Retention::Forever,
            Some(keep) => Retention::keep_for(keep)
                .map_err(|e| r.refused("retention_secs", FieldError::Retention(e)))?,
        };
        let body_retention = match r.seconds("body_retention_secs")? {
            None => DEFAULT_BODY_RETENTION,
            Some(keep) if keep <= MAX_BODY_RETENTION => keep,
            Some(_) => {
                return Err(r.invalid(
                    "body_retention_secs",
                    "must be at most 315360000 (10 years)",
                ))
            }
        };
        let keep_raw_bodies = match r.get("keep_raw_bodies") {
            None => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(r.invalid("keep_raw_bodies", "expected true or false")),
        };
        let max_body = match r.get("max_body_bytes") {
            None => DEFAULT_MAX_BODY,
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| (1..=MAX_STORABLE_BODY).contains(n))
                .ok_or_else(|| r.invalid("max_body_bytes", MAX_BODY_RANGE))?,
        };
        let trust_unsigned_headers = match r.get("trust_unsigned_headers") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(r.invalid("trust_unsigned_headers", "expected true or false")),
        };
        let buckets = match r.get("buckets") {
            None => DEFAULT_BUCKETS,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=u64::from(MAX_BUCKETS)).contains(n))
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| r.invalid("buckets", "expected 1 to 1024"))?,
        };
        let legacy_lookup = match r.seconds("legacy_lookup_secs")? {
            None => DEFAULT_LEGACY_LOOKUP,
            Some(secs) if secs <= MAX_BODY_RETENTION => secs,
            Some(_) => {
                return Err(r.invalid("legacy_lookup_secs", "must be at most 315360000 (10 years)"))
            }
        };
        r.finish()?;
        if !trust_unsigned_headers {
            signed_where_it_matters(name, &scheme, [&id, &created_at, &entity], &effects)?;
        }

        Ok(SourceConfig {
            name: name.to_owned(),
            scheme,
            secrets,
            tolerance,
            shape: Shape::new([id, kind, created_at, entity, object], effects),
            forward,
            retention,
            body_retention,
            keep_raw_bodies,
            max_body,
            trust_unsigned_headers,
            buckets,
            legacy_lookup,
        })
    }
}

/// A snapshot's version and entity, and a ledger's id and entity, must come from what the
/// signature covers: with an unsigned version, one captured body sent again with a far
/// future one wedges its entity (every later event is stale); with an unsigned id, it
/// counts its amount again. `trust_unsigned_headers = true` accepts that risk.
fn signed_where_it_matters(
    name: &str,
    scheme: &Scheme,
    [id, created_at, entity]: [&FieldSource; 3],
    effects: &Effects,
) -> Result<(), ConfigError> {
    let signed = scheme.signed_headers();
    let unsigned =
        |f: &FieldSource| matches!(f, FieldSource::Header(h) if !signed.contains(&h.as_str()));
    let snapshot = effects.all().any(|e| matches!(e, Effect::Snapshot));
    let ledger = effects.all().any(|e| matches!(e, Effect::Ledger { .. }));
    for (needed, field, path, why) in [
        (
            snapshot,
            created_at,
            "created_at",
            "a snapshot effect orders by this version, but its header is not signed; use a body \
          pointer or sign the header, or set trust_unsigned_headers = true to accept the risk",
        ),
        (
            snapshot || ledger,
            entity,
            "entity",
            "snapshot and ledger effects key state by this entity, but its header is not signed; \
          use a body pointer or sign the header, or set trust_unsigned_headers = true",
        ),
        (
            ledger,
            id,
            "id",
            "a ledger effect counts each id once, but this id's header is not signed; use a body \
          pointer or sign the header, or set trust_unsigned_headers = true to accept the risk",
        ),
    ] {
        if needed && unsigned(field) {
            return Err(ConfigError::Invalid(
                format!("{name}.fields.{path}"),
                FieldError::Value(why),
            ));
        }
    }
    Ok(())
}

/// `hmac = { header, prefix, encoding, signed, timestamp_header, separator }`.
fn parse_hmac(at: &str, value: &Value) -> Result<HmacSpec, ConfigError> {
    let mut r = Reader::new(at.to_owned(), value)?;
    let header = |r: &mut Reader, key: &'static str| -> Result<Option<String>, ConfigError> {
        match r.string(key)? {
            None => Ok(None),
            Some(h) if is_header_name(h) => Ok(Some(h.to_ascii_lowercase())),
            Some(_) => Err(r.invalid(key, "expected a header name")),
        }
    };
    let name = header(&mut r, "header")?.ok_or_else(|| ConfigError::Missing(r.path("header")))?;
    let prefix = r.string("prefix")?.unwrap_or("").to_owned();
    let encoding = match r.string("encoding")? {
        None | Some("hex") => Encoding::Hex,
        Some("base64") => Encoding::Base64,
        Some(_) => return Err(r.invalid("encoding", "expected hex or base64")),
    };
    let signed = match r.string("signed")? {
        None => vec![Part::Body],
        Some(t) => parse_template(t).map_err(|e| r.refused("signed", FieldError::Spec(e)))?,
    };
    let timestamp_header = header(&mut r, "timestamp_header")?;
    let separator = match r.string("separator")? {
        None => None,
        Some("") => return Err(r.invalid("separator", "expected a non-empty string")),
        Some(s) => Some(s.to_owned()),
    };
    r.finish()?;
    let spec = HmacSpec {
        header: name,
        prefix,
        encoding,
        signed,
        timestamp_header,
        separator,
    };
    spec.validate().map_err(|e| match e {
        SpecError::TimestampWithoutHeader => {
            ConfigError::Invalid(format!("{at}.timestamp_header"), FieldError::Spec(e))
        }
        _ => ConfigError::Invalid(at.to_owned(), FieldError::Spec(e)),
    })?;
    Ok(spec)
}

/// A Worker binding name, as wrangler accepts them: a JavaScript identifier without `$`.
fn is_binding_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && name.len() <= 64
}

fn parse_effects(at: &str, value: &Value) -> Result<Effects, ConfigError> {
    let map = value
        .as_object()
        .ok_or_else(|| ConfigError::NotAnObject(at.to_owned()))?;
    let mut by_type = SmallMap::new();
    let mut fallback = Effect::Notify;
    for (event_type, spec) in map {
        let path = format!("{at}.{event_type}");
        let effect = match spec {
            Value::String(s) if s == "snapshot" => Effect::Snapshot,
            Value::String(s) if s == "notify" => Effect::Notify,
            Value::Object(o) if o.len() == 1 && o.contains_key("ledger") => {
                match o["ledger"].as_str() {
                    Some(p) if p.starts_with('/') => Effect::Ledger {
                        amount: p.to_owned(),
                    },
                    _ => {
                        return Err(ConfigError::Invalid(
                            format!("{path}.ledger"),
                            FieldError::Value("expected a JSON pointer to the amount"),
                        ))
                    }
                }
            }
            _ => {
                return Err(ConfigError::Invalid(
                    path,
                    FieldError::Value(
                        "expected \"snapshot\", \"notify\" or { ledger = \"/pointer\" }",
                    ),
                ))
            }
        };
        if event_type == "*" {
            fallback = effect;
        } else {
            by_type.insert(event_type.clone(), effect);
        }
    }
    Ok(Effects { by_type, fallback })
}

fn parse_forward(at: &str, value: &Value) -> Result<Forward, ConfigError> {
    let mut r = Reader::new(at.to_owned(), value)?;
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
    let timeout = positive(&mut r, "timeout_secs", DEFAULT_FORWARD_TIMEOUT)?;
    let lease = positive(&mut r, "lease_secs", DEFAULT_LEASE)?;
    if lease <= timeout {
        return Err(r.invalid("lease_secs", "must be longer than timeout_secs"));
    }
    r.finish()?;
    Ok(Forward {
        destination,
        mode,
        schedule,
        timeout,
        lease,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cockpit() -> Value {
        json!({
            "scheme": "standard-webhooks",
            "secrets": ["COCKPIT_SECRET"],
            "effects": {
                "cardholder.created": "snapshot",
                "payment.captured": { "ledger": "/data/object/amount" },
                "*": "notify"
            }
        })
    }

    #[test]
    fn the_sample_source_parses_with_the_seeds_defaults() {
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        assert_eq!(s.scheme, Scheme::StandardWebhooks);
        assert_eq!(s.tolerance, Seconds(300));
        assert_eq!(s.shape.id, FieldSource::Pointer("/id".into()));
        assert_eq!(
            s.shape.entity,
            FieldSource::Pointer("/data/object/id".into())
        );
        assert_eq!(
            s.shape.effects.for_type("cardholder.created"),
            &Effect::Snapshot
        );
        assert_eq!(s.shape.effects.for_type("anything.else"), &Effect::Notify);
        assert_eq!(s.retention, Retention::Forever);
        assert_eq!(s.max_body, DEFAULT_MAX_BODY);
        assert!(s.keep_raw_bodies);
    }

    #[test]
    fn errors_name_the_bad_field() {
        let mut v = cockpit();
        v["tolerance_secs"] = json!("soon");
        assert_eq!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Invalid(
                "cockpit.tolerance_secs".into(),
                FieldError::Value("expected a whole number of seconds")
            ))
        );
        let mut v = cockpit();
        v.as_object_mut().unwrap().remove("secrets");
        assert_eq!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Missing("cockpit.secrets".into()))
        );
    }

    #[test]
    fn max_body_bytes_is_capped_at_what_an_entity_stores() {
        let with = |n: Value| {
            let mut v = cockpit();
            v["max_body_bytes"] = n;
            SourceConfig::from_json("cockpit", &v).map(|s| s.max_body)
        };
        assert_eq!(with(json!(MAX_STORABLE_BODY)), Ok(MAX_STORABLE_BODY));
        assert_eq!(with(json!(1)), Ok(1));
        for bad in [
            json!(MAX_STORABLE_BODY + 1),
            json!(32 << 20),
            json!(0),
            json!(-1),
            json!(1.5),
            json!("1048576"),
            json!(u64::MAX),
        ] {
            let err = with(bad.clone()).expect_err("refused").to_string();
            assert!(err.starts_with("cockpit.max_body_bytes: "), "{bad}: {err}");
            assert!(
                err.contains(&MAX_STORABLE_BODY.to_string()),
                "{bad}: the error names the cap: {err}"
            );
        }
    }

    #[test]
    fn a_typo_is_an_error_not_a_default() {
        let mut v = cockpit();
        v["tolerence_secs"] = json!(10);
        assert_eq!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Unknown("cockpit.tolerence_secs".into()))
        );
    }

    #[test]
    fn retention_shorter_than_a_day_is_refused() {
        let mut v = cockpit();
        v["retention_secs"] = json!(3600);
        let e = SourceConfig::from_json("cockpit", &v).unwrap_err();
        assert_eq!(
            e,
            ConfigError::Invalid(
                "cockpit.retention_secs".into(),
                FieldError::Retention(RetentionError::TooShort(Seconds(3600)))
            )
        );
        assert_eq!(
            e.to_string(),
            "cockpit.retention_secs: must be at least 86400 (24 h)"
        );
        v["retention_secs"] = json!(86_400 * 30);
        assert!(SourceConfig::from_json("cockpit", &v).is_ok());
    }

    #[test]
    fn bodies_are_kept_30_days_by_default_and_body_retention_secs_sets_it() {
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        assert_eq!(s.lifetimes().bodies, Seconds(30 * 86_400));
        assert_eq!(s.lifetimes().ids, Retention::Forever);
        let mut v = cockpit();
        v["body_retention_secs"] = json!(0);
        let s = SourceConfig::from_json("cockpit", &v).unwrap();
        assert_eq!(s.body_retention, Seconds(0));
    }

    #[test]
    fn a_bad_body_retention_names_the_field() {
        for bad in [json!(-1), json!("30d"), json!(1.5), json!(315_360_001_u64)] {
            let mut v = cockpit();
            v["body_retention_secs"] = bad.clone();
            assert!(
                matches!(
                    SourceConfig::from_json("cockpit", &v),
                    Err(ConfigError::Invalid(f, _)) if f == "cockpit.body_retention_secs"
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn buckets_default_to_64_and_a_count_outside_1_to_1024_names_the_field() {
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        assert_eq!(
            (s.buckets, s.legacy_lookup),
            (DEFAULT_BUCKETS, DEFAULT_LEGACY_LOOKUP)
        );
        let with = |key: &str, v: Value| {
            let mut c = cockpit();
            c[key] = v;
            SourceConfig::from_json("cockpit", &c)
        };
        assert_eq!(with("buckets", json!(1)).unwrap().buckets, 1);
        assert_eq!(with("buckets", json!(1024)).unwrap().buckets, 1024);
        for bad in [json!(0), json!(1025), json!(-1), json!(2.5), json!("64")] {
            let e = with("buckets", bad.clone()).unwrap_err();
            assert_eq!(
                e.to_string(),
                "cockpit.buckets: expected 1 to 1024",
                "{bad}"
            );
        }
    }

    #[test]
    fn buckets_made_with_another_count_are_refused_naming_the_field() {
        let mut c = cockpit();
        c["buckets"] = json!(8);
        let s = SourceConfig::from_json("cockpit", &c).unwrap();
        assert_eq!(s.check_buckets(8), Ok(()));
        let e = s.check_buckets(64).unwrap_err();
        assert!(
            e.starts_with(
                "cockpit.buckets is 8, but its events about no entity are recorded in 64 buckets"
            ) && e.ends_with("set buckets back to 64"),
            "{e}"
        );
    }

    #[test]
    fn ids_are_looked_up_in_per_event_objects_only_within_legacy_lookup_secs() {
        let since = UnixSeconds(1_000_000);
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        let looks = |now: i64, created: Option<i64>| {
            s.looks_up_per_event_objects(since, UnixSeconds(now), created.map(UnixSeconds))
        };
        assert!(looks(1_000_000, None));
        assert!(looks(1_000_000 + 30 * 86_400 - 1, None));
        assert!(!looks(1_000_000 + 30 * 86_400, None));
        // An event created before the buckets, or up to a day after, may be an earlier
        // version's; one created later cannot be.
        assert!(looks(1_000_000 + 5 * 86_400, Some(900_000)));
        assert!(looks(1_000_000 + 5 * 86_400, Some(1_000_000 + 86_400)));
        assert!(!looks(1_000_000 + 5 * 86_400, Some(1_000_000 + 86_401)));
        let mut c = cockpit();
        c["legacy_lookup_secs"] = json!(0);
        let off = SourceConfig::from_json("cockpit", &c).unwrap();
        assert!(!off.looks_up_per_event_objects(since, since, None));
        c["legacy_lookup_secs"] = json!(315_360_001);
        assert_eq!(
            SourceConfig::from_json("cockpit", &c)
                .unwrap_err()
                .to_string(),
            "cockpit.legacy_lookup_secs: must be at most 315360000 (10 years)"
        );
    }

    #[test]
    fn an_unknown_scheme_is_refused() {
        let mut v = cockpit();
        v["scheme"] = json!("none");
        assert!(matches!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Invalid(f, _)) if f == "cockpit.scheme"
        ));
    }

    #[test]
    fn a_source_reads_its_signature_headers_and_configured_header_fields() {
        let s =
            SourceConfig::from_json("gh", &json!({"scheme": "github", "secrets": ["GH"]})).unwrap();
        assert_eq!(
            s.headers_read(),
            ["x-hub-signature-256", "x-github-delivery", "x-github-event"]
        );
        let s = SourceConfig::from_json("cockpit", &cockpit()).unwrap();
        assert_eq!(
            s.headers_read(),
            ["webhook-id", "webhook-timestamp", "webhook-signature"]
        );
    }

    #[test]
    fn github_reads_id_and_type_from_headers() {
        let s =
            SourceConfig::from_json("gh", &json!({"scheme": "github", "secrets": ["GH"]})).unwrap();
        assert_eq!(s.shape.id, FieldSource::Header("x-github-delivery".into()));
        assert_eq!(s.shape.kind, FieldSource::Header("x-github-event".into()));
    }

    #[test]
    fn a_sync_lease_must_outlast_the_call() {
        let mut v = cockpit();
        v["forward"] = json!({"url": "http://127.0.0.1:9/", "mode": "sync", "timeout_secs": 30, "lease_secs": 10});
        assert!(matches!(
            SourceConfig::from_json("cockpit", &v),
            Err(ConfigError::Invalid(f, _)) if f == "cockpit.forward.lease_secs"
        ));
    }

    #[test]
    fn a_source_forwards_to_exactly_one_url_service_or_queue() {
        let forward = |f: Value| {
            let mut v = cockpit();
            v["forward"] = f;
            SourceConfig::from_json("cockpit", &v).map(|s| s.forward.unwrap().destination)
        };
        assert_eq!(
            forward(json!({"service": "APP"})),
            Ok(Destination::Service("APP".into()))
        );
        assert_eq!(
            forward(json!({"queue": "EVENTS_2"})),
            Ok(Destination::Queue("EVENTS_2".into()))
        );
        assert_eq!(
            forward(json!({"url": "https://app.example/hooks"})),
            Ok(Destination::Url("https://app.example/hooks".into()))
        );
        let error = |f: Value| forward(f).unwrap_err().to_string();
        assert_eq!(
            error(json!({"mode": "async"})),
            "cockpit.forward: expected one of url, service or queue"
        );
        assert_eq!(
            error(json!({"url": "https://a.example/", "queue": "EVENTS"})),
            "cockpit.forward.queue: only one of url, service or queue"
        );
        for bad in ["", "9lives", "my-app", "a.b", "APP "] {
            assert!(
                error(json!({ "service": bad }))
                    .starts_with("cockpit.forward.service: expected a binding name"),
                "{bad:?}"
            );
        }
        assert!(
            error(json!({ "queue": 7 })).starts_with("cockpit.forward.queue: expected a string")
        );
        assert!(error(json!({ "url": "ftp://x" })).starts_with("cockpit.forward.url:"));
    }

    #[test]
    fn sync_mode_needs_an_answering_destination_not_a_queue() {
        let mut v = cockpit();
        v["forward"] = json!({"queue": "EVENTS", "mode": "sync"});
        assert!(SourceConfig::from_json("cockpit", &v)
            .unwrap_err()
            .to_string()
            .starts_with("cockpit.forward.mode: sync needs an answer"));
        v["forward"] = json!({"service": "APP", "mode": "sync"});
        let s = SourceConfig::from_json("cockpit", &v).unwrap();
        assert_eq!(s.forward.unwrap().mode, ForwardMode::Sync);
    }

    #[test]
    fn source_names_are_url_safe() {
        assert!(matches!(
            Sources::from_json(&json!({"a/b": cockpit()})),
            Err(ConfigError::Invalid(..))
        ));
        assert!(Sources::from_json(&json!({"cockpit": cockpit()})).is_ok());
    }

    #[test]
    fn a_generic_hmac_source_is_described_in_its_config_and_errors_name_the_field() {
        let mut v = cockpit();
        v["scheme"] = json!("hmac");
        v["hmac"] = json!({
            "header": "X-Acme-Signature", "prefix": "sha256=", "encoding": "base64",
            "signed": "{timestamp}.{body}", "timestamp_header": "x-acme-timestamp",
        });
        let s = SourceConfig::from_json("acme", &v).unwrap();
        let spec = s.scheme.spec().unwrap();
        assert_eq!(spec.header, "x-acme-signature");
        assert_eq!(s.tolerance, Seconds(300));
        assert!(s.headers_read().contains(&"x-acme-timestamp"));

        let bad = |field: &str, value: Value| {
            let mut v = v.clone();
            v["hmac"][field] = value;
            SourceConfig::from_json("acme", &v).unwrap_err().to_string()
        };
        assert!(bad("signed", json!("{ts}.{body}"))
            .starts_with("acme.hmac.signed: unknown placeholder"));
        assert!(bad("encoding", json!("hex64")).starts_with("acme.hmac.encoding:"));
        assert!(bad("nope", json!(1)).starts_with("acme.hmac.nope: unknown field"));
        let mut no_ts = v.clone();
        no_ts["hmac"]
            .as_object_mut()
            .unwrap()
            .remove("timestamp_header");
        assert!(SourceConfig::from_json("acme", &no_ts)
            .unwrap_err()
            .to_string()
            .starts_with("acme.hmac.timestamp_header:"));
        let mut missing = v.clone();
        missing.as_object_mut().unwrap().remove("hmac");
        assert_eq!(
            SourceConfig::from_json("acme", &missing),
            Err(ConfigError::Missing("acme.hmac".into()))
        );
    }

    #[test]
    fn a_configured_url_passes_the_outbound_guard_or_fails_the_configuration() {
        let with_url = |url: &str| {
            let mut v = cockpit();
            v["forward"] = json!({ "url": url });
            Sources::from_json(&json!({ "cockpit": v })).unwrap()
        };
        let strict = Policy::default();
        let open = Policy::from_var(Some("true")).unwrap();
        assert_eq!(
            with_url("https://app.example/in").check_outbound(strict),
            Ok(())
        );
        let local = with_url("http://127.0.0.1:9000/in");
        assert_eq!(local.check_outbound(open), Ok(()));
        let e = local.check_outbound(strict).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cockpit.forward.url: plain http://"),
            "{e}"
        );
        let e = with_url("https://169.254.169.254/")
            .check_outbound(strict)
            .unwrap_err();
        assert!(e.to_string().contains("no-private-destinations"), "{e}");
        assert!(Policy::from_var(Some("yes")).is_err());
        assert_eq!(Policy::from_var(Some("false")), Ok(strict));
    }

    #[test]
    fn state_is_never_decided_by_a_header_the_signature_does_not_cover() {
        let source = |scheme: &str, effects: Value, extra: Value| {
            let mut v = json!({ "scheme": scheme, "secrets": ["S"], "effects": effects });
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            SourceConfig::from_json("src", &v)
        };
        let ledger = json!({ "paid": { "ledger": "/amount" } });
        let field = |r: Result<SourceConfig, ConfigError>| match r {
            Err(ConfigError::Invalid(at, why)) => {
                assert!(why.to_string().contains("trust_unsigned_headers"), "{why}");
                at
            }
            other => panic!("expected a refusal, got {other:?}"),
        };
        // Shopify and GitHub sign only the body; their ids come from headers.
        assert_eq!(
            field(source("shopify", ledger.clone(), json!({}))),
            "src.fields.id"
        );
        assert_eq!(
            field(source("github", ledger.clone(), json!({}))),
            "src.fields.id"
        );
        // Snapshots take their version from the body (Shopify's /updated_at): signed.
        let snap = json!({ "*": "snapshot" });
        assert!(source("shopify", snap, json!({})).is_ok());
        // The generic scheme: headers it reads must be in `signed`, or trusted explicitly.
        let hmac = |signed: &str| json!({ "hmac": { "header": "x-sig", "signed": signed }, "id_header": "x-id" });
        assert_eq!(
            field(source("hmac", ledger.clone(), hmac("{body}"))),
            "src.fields.id"
        );
        assert!(source("hmac", ledger.clone(), hmac("{header:x-id}.{body}")).is_ok());
        // Standard Webhooks signs webhook-id.
        let swh = json!({ "id_header": "webhook-id" });
        assert!(source("standard-webhooks", ledger.clone(), swh).is_ok());
        // The opt-in.
        let trusted = source("shopify", ledger, json!({ "trust_unsigned_headers": true }));
        assert!(trusted.unwrap().trust_unsigned_headers);
        // Notify effects decide no state: an unsigned id only names the event.
        assert!(source("github", json!({ "*": "notify" }), json!({})).is_ok());
    }

    #[test]
    fn presets_read_their_providers_fields() {
        let mut v = cockpit();
        v["scheme"] = json!("shopify");
        v["effects"] = json!({ "orders/updated": "snapshot" });
        let s = SourceConfig::from_json("shop", &v).unwrap();
        assert_eq!(s.shape.id, FieldSource::Header("x-shopify-event-id".into()));
        assert_eq!(s.shape.kind, FieldSource::Header("x-shopify-topic".into()));
        assert_eq!(
            s.shape.created_at,
            FieldSource::Pointer("/updated_at".into()),
            "Shopify's version is the signed resource's own"
        );
        v["scheme"] = json!("slack");
        let s = SourceConfig::from_json("slack", &v).unwrap();
        assert_eq!(s.shape.id, FieldSource::Pointer("/event_id".into()));
        assert_eq!(s.tolerance, Seconds(300));
        v["scheme"] = json!("paypal");
        assert!(SourceConfig::from_json("x", &v).is_err());
        v["scheme"] = json!("slack");
        v["hmac"] = json!({ "header": "x" });
        assert!(
            SourceConfig::from_json("x", &v).is_err(),
            "hmac only with scheme = hmac"
        );
    }

    #[test]
    fn a_refusal_by_the_schedule_or_the_hmac_spec_is_kept_typed_and_named_in_the_message() {
        let mut v = cockpit();
        v["forward"] = json!({"url": "https://app.example/in", "schedule_secs": [10, 0]});
        let e = SourceConfig::from_json("cockpit", &v).unwrap_err();
        assert_eq!(
            e,
            ConfigError::Invalid(
                "cockpit.forward.schedule_secs".into(),
                FieldError::Schedule(ScheduleError::ZeroDelay { index: 1 })
            )
        );
        assert_eq!(
            e.to_string(),
            "cockpit.forward.schedule_secs: expected positive, non-decreasing delays within the \
             window (retry delay 1 is zero)"
        );
        let cause = std::error::Error::source(&e).expect("the schedule's error is the cause");
        assert_eq!(cause.to_string(), "retry delay 1 is zero");

        let mut v = cockpit();
        v["scheme"] = json!("hmac");
        v["hmac"] = json!({"header": "x-sig", "signed": "{ts}.{body}"});
        let e = SourceConfig::from_json("acme", &v).unwrap_err();
        assert_eq!(
            e,
            ConfigError::Invalid(
                "acme.hmac.signed".into(),
                FieldError::Spec(SpecError::UnknownPlaceholder("ts".into()))
            )
        );
        assert_eq!(
            e.to_string(),
            "acme.hmac.signed: unknown placeholder {ts}: expected {body}, {timestamp} or \
             {header:NAME}"
        );
    }
}

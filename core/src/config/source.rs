//! One source: what it verifies, where its events' fields live, what each type does,
//! how long its ids and bodies are kept; read from its JSON table.

use serde_json::Value;

use crate::body::MAX_STORABLE_BODY;
use crate::extract::Pointers;
use crate::retention::{Lifetimes, Retention, DEFAULT_BODY_RETENTION, MAX_BODY_RETENTION};
use crate::small_map::SmallMap;
use crate::time::{Seconds, UnixSeconds};
use crate::verify::Scheme;

use super::{
    parse_destinations, parse_hmac, BucketsChanged, ConfigError, DestinationConfig, FieldError,
    ForwardMode, Reader,
};

/// Largest body accepted by default (1 MiB).
pub const DEFAULT_MAX_BODY: usize = 1 << 20;
/// What `max_body_bytes` may be, as a configuration error says it.
const MAX_BODY_RANGE: &str = "expected 1 to 1800000: an entity's Durable Object stores a \
    body of at most 1800000 bytes (its SQLite keeps rows of at most 2 MB)";

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
    /// Where applied events are forwarded, in name order: `destinations`, or `forward` as
    /// the one destination [`DEFAULT_DESTINATION`](super::DEFAULT_DESTINATION). At most
    /// one is synchronous.
    pub destinations: Vec<DestinationConfig>,
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

/// A field read from a JSON pointer: `""` for a field the source does not report.
fn pointer(r: &mut Reader, key: &'static str) -> Result<Option<FieldSource>, ConfigError> {
    match r.string(key)? {
        None => Ok(None),
        Some("") => Ok(Some(FieldSource::Absent)),
        Some(p) if p.starts_with('/') => Ok(Some(FieldSource::Pointer(p.to_owned()))),
        Some(_) => Err(r.invalid(key, "expected a JSON pointer starting with /")),
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
    /// `body_retention_secs` above 0. Kept for 0 seconds is not kept: writing a body and
    /// waking an alarm at once to prune it would halve throughput.
    pub fn keeps_bodies(&self) -> bool {
        self.keep_raw_bodies && self.body_retention > Seconds(0)
    }

    /// The destination called `name`, if it is configured.
    pub fn destination(&self, name: &str) -> Option<&DestinationConfig> {
        self.destinations.iter().find(|d| d.name == name)
    }

    /// Why `name` names none of this source's destinations, for an operator: the names it
    /// has, or that it forwards nowhere.
    pub fn no_destination(&self, name: &str) -> String {
        let source = &self.name;
        let names: Vec<&str> = self.destinations.iter().map(|d| d.name.as_str()).collect();
        match names.as_slice() {
            [] => format!("source {source} has no destination named {name}: it forwards nowhere"),
            _ => format!(
                "source {source} has no destination named {name} (it has {})",
                names.join(", ")
            ),
        }
    }

    /// The destination called while the provider waits, if one is synchronous.
    pub fn sync_destination(&self) -> Option<&DestinationConfig> {
        self.destinations
            .iter()
            .find(|d| d.forward.mode == ForwardMode::Sync)
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
    pub fn check_buckets(&self, recorded: u32) -> Result<(), BucketsChanged> {
        match recorded == self.buckets {
            true => Ok(()),
            false => Err(BucketsChanged {
                source: self.name.clone(),
                configured: self.buckets,
                recorded,
            }),
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
                if let Some(source) = pointer(&mut f, key)? {
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
        let destinations = parse_destinations(&mut r)?;
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
            destinations,
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

//! Step 3 of the flow, parse: what a verified body says, in types.
//!
//! [`Event::parse`] takes a [`Verified`] body, so nothing unverified becomes an event.
//! The dedupe key is the provider's event id and nothing else: not the object id
//! (`card.created` and `card.frozen` share one), not a hash of the body (two
//! identical updates are two events), not a delivery id (a replay is a new delivery
//! of the same event).

use std::cmp::Ordering;
use std::fmt;

use crate::extract::extract;

use crate::config::{Effect as EffectSpec, FieldSource, Shape};
use crate::verify::{Headers, Scheme, Verified};

/// Longest id, key or type we accept, in bytes (the Idempotency-Key draft's limit, reused).
pub const MAX_ID_LEN: usize = 255;

/// Largest ledger amount in magnitude: 2^53 - 1, so it survives a JavaScript number
/// (the Worker's SQLite bindings) exactly.
pub const MAX_SAFE_AMOUNT: u64 = (1 << 53) - 1;

macro_rules! text_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// Checks the value: 1 to [`MAX_ID_LEN`] bytes, no control characters.
            pub fn new(value: impl Into<String>) -> Option<Self> {
                let value = value.into();
                let ok = !value.is_empty()
                    && value.len() <= MAX_ID_LEN
                    && !value.chars().any(char::is_control);
                ok.then_some(Self(value))
            }

            /// The value as given by the provider.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

text_newtype!(
    /// The provider's event id, unique per event and kept across retries and replays
    /// (Standard Webhooks `webhook-id`/payload `id`, Stripe `evt_…`, GitHub `X-GitHub-Delivery`).
    EventId
);
text_newtype!(
    /// The object an event is about (e.g. `data.object.id`); names the Durable Object that orders its events.
    EntityKey
);
text_newtype!(
    /// The event type, e.g. `cardholder.created` (Standard Webhooks payload `type`).
    EventType
);

/// When the provider created the event: RFC 3339 §5.6 `date-time`, or unix seconds.
/// Nanosecond precision so that sub-second ordering survives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CreatedAt {
    secs: i64,
    nanos: u32,
}

impl CreatedAt {
    /// From whole unix seconds.
    pub fn from_unix(secs: i64) -> Self {
        Self { secs, nanos: 0 }
    }

    /// The times an event may carry: the years 0000 to 9999 of RFC 3339 §5.6, in unix
    /// seconds. Storage and the read API keep them exactly (they are far below 2^53).
    pub const RANGE: std::ops::RangeInclusive<i64> = -62_167_219_200..=253_402_300_799;

    /// From unix seconds and nanoseconds; `None` if `nanos` is not below 10^9.
    pub fn from_parts(secs: i64, nanos: u32) -> Option<Self> {
        (nanos < 1_000_000_000).then_some(Self { secs, nanos })
    }

    /// Whole seconds since the epoch.
    pub fn secs(self) -> i64 {
        self.secs
    }

    /// Nanoseconds within the second.
    pub fn nanos(self) -> u32 {
        self.nanos
    }

    /// Parses an RFC 3339 `date-time` (`2026-10-06T07:06:30Z`, `…30.123+02:00`).
    pub fn parse_rfc3339(s: &str) -> Option<Self> {
        let (secs, nanos) = crate::time::parse_rfc3339(s)?;
        Some(Self { secs, nanos })
    }
}

/// An entity's version: the total order in which snapshot events overwrite each other.
/// `created_at` first, then the event id as a deterministic tiebreak, so every delivery
/// order converges on the same final state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    /// When the event that wrote this version was created.
    pub created_at: CreatedAt,
    /// The event that wrote it.
    pub event_id: EventId,
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.created_at, &self.event_id).cmp(&(other.created_at, &other.event_id))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What applying an event does to its entity's store.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Effect {
    /// Store the full object the event reports (JSON text); running it twice is harmless.
    Snapshot {
        /// `data.object` (or the configured pointer), serialised.
        state: String,
    },
    /// Add `amount` to the entity's ledger, one row per event id under a unique constraint.
    Ledger {
        /// Minor units, as the provider reports them.
        amount: i64,
    },
    /// Pass the event on; nothing to store beyond the processed id.
    Notify,
}

/// A parsed, verified event. Only [`Event::parse`] makes one (and the Worker's hand-off,
/// [`handoff::decode`](crate::handoff::decode), reads one back).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    id: EventId,
    kind: EventType,
    created_at: Option<CreatedAt>,
    entity: Option<EntityKey>,
    effect: Effect,
}

/// The event field a [`ParseError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Field {
    /// The event id.
    Id,
    /// The event type.
    Type,
    /// The creation time.
    CreatedAt,
    /// The entity key.
    Entity,
    /// The object a snapshot stores.
    Object,
    /// The amount a ledger entry adds.
    Amount,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::Id => "id",
            Field::Type => "type",
            Field::CreatedAt => "created_at",
            Field::Entity => "entity",
            Field::Object => "object",
            Field::Amount => "amount",
        })
    }
}

/// Why a verified body is not a usable event.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseError {
    /// The body is not JSON.
    NotJson,
    /// A field the configuration requires is absent.
    Missing(Field),
    /// A field is present but unusable (wrong type, too long, bad date).
    Invalid(Field),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::NotJson => f.write_str("body is not valid JSON"),
            ParseError::Missing(field) => write!(f, "missing field {field}"),
            ParseError::Invalid(field) => write!(f, "invalid field {field}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A value read at a pointer, as the fields use it.
enum Scalar {
    /// Nothing there, or `null`.
    Absent,
    String(String),
    Number(serde_json::Number),
    /// An object, array or boolean.
    Other,
}

fn scalar(raw: Option<&str>) -> Scalar {
    let Some(text) = raw else {
        return Scalar::Absent;
    };
    // The raw text is valid JSON already: its first byte says what it is.
    match text.as_bytes().first() {
        Some(b'n') => Scalar::Absent,
        Some(b'"') => serde_json::from_str(text).map_or(Scalar::Other, Scalar::String),
        Some(b'-' | b'0'..=b'9') => {
            serde_json::from_str(text).map_or(Scalar::Other, Scalar::Number)
        }
        _ => Scalar::Other,
    }
}

impl Event {
    /// Step 3 of the flow: reads the verified body (and, where configured, headers)
    /// through the source's [`Shape`].
    pub fn parse<K: AsRef<str>, V: AsRef<str>>(
        verified: &Verified<'_>,
        headers: &[(K, V)],
        shape: &Shape,
    ) -> Result<Event, ParseError> {
        let found = extract(verified.body(), &shape.reads).map_err(|_| ParseError::NotJson)?;
        let at = |p: &str| -> Option<&str> { found[shape.reads.slot(p)?] };
        let text = |source: &FieldSource, field: Field| -> Result<Option<String>, ParseError> {
            match source {
                FieldSource::Absent => Ok(None),
                FieldSource::Header(name) => Ok(headers.header(name).map(str::to_owned)),
                FieldSource::Pointer(p) => match scalar(at(p)) {
                    Scalar::Absent => Ok(None),
                    Scalar::String(s) => Ok(Some(s)),
                    // Numeric ids are common (GitHub's `id`); they are still ids.
                    Scalar::Number(n) => Ok(Some(n.to_string())),
                    Scalar::Other => Err(ParseError::Invalid(field)),
                },
            }
        };
        let required = |source: &FieldSource, field: Field| {
            text(source, field)?.ok_or(ParseError::Missing(field))
        };

        let id =
            EventId::new(required(&shape.id, Field::Id)?).ok_or(ParseError::Invalid(Field::Id))?;
        let kind = EventType::new(required(&shape.kind, Field::Type)?)
            .ok_or(ParseError::Invalid(Field::Type))?;
        let created_at = match &shape.created_at {
            FieldSource::Pointer(p) => match scalar(at(p)) {
                Scalar::Absent => None,
                Scalar::String(s) => Some(
                    CreatedAt::parse_rfc3339(&s).ok_or(ParseError::Invalid(Field::CreatedAt))?,
                ),
                Scalar::Number(n) => Some(CreatedAt::from_unix(
                    n.as_i64().ok_or(ParseError::Invalid(Field::CreatedAt))?,
                )),
                Scalar::Other => return Err(ParseError::Invalid(Field::CreatedAt)),
            },
            FieldSource::Header(name) => match headers.header(name) {
                None => None,
                Some(v) => Some(
                    v.trim()
                        .parse::<i64>()
                        .ok()
                        .map(CreatedAt::from_unix)
                        .or_else(|| CreatedAt::parse_rfc3339(v.trim()))
                        .ok_or(ParseError::Invalid(Field::CreatedAt))?,
                ),
            },
            FieldSource::Absent => None,
        };
        // Beyond RFC 3339's years, and beyond what a JavaScript number stores exactly.
        if created_at.is_some_and(|c| !CreatedAt::RANGE.contains(&c.secs())) {
            return Err(ParseError::Invalid(Field::CreatedAt));
        }
        let entity = match text(&shape.entity, Field::Entity)? {
            None => None,
            Some(e) => Some(EntityKey::new(e).ok_or(ParseError::Invalid(Field::Entity))?),
        };

        let effect = match shape.effects.for_type(kind.as_str()) {
            EffectSpec::Notify => Effect::Notify,
            EffectSpec::Snapshot => {
                // A snapshot without an entity or an order could overwrite newer state.
                entity.as_ref().ok_or(ParseError::Missing(Field::Entity))?;
                created_at.ok_or(ParseError::Missing(Field::CreatedAt))?;
                let object = match &shape.object {
                    FieldSource::Pointer(p) => at(p),
                    _ => None,
                };
                match object {
                    None | Some("null") => return Err(ParseError::Missing(Field::Object)),
                    // As the provider sent it: the read API re-serialises what it shows.
                    Some(state) => Effect::Snapshot {
                        state: state.to_owned(),
                    },
                }
            }
            EffectSpec::Ledger { amount } => {
                entity.as_ref().ok_or(ParseError::Missing(Field::Entity))?;
                match scalar(at(amount)) {
                    Scalar::Absent => return Err(ParseError::Missing(Field::Amount)),
                    Scalar::Number(n) => Effect::Ledger {
                        amount: n
                            .as_i64()
                            .filter(|a| a.unsigned_abs() <= MAX_SAFE_AMOUNT)
                            .ok_or(ParseError::Invalid(Field::Amount))?,
                    },
                    Scalar::String(_) | Scalar::Other => {
                        return Err(ParseError::Invalid(Field::Amount))
                    }
                }
            }
        };

        Ok(Event {
            id,
            kind,
            created_at,
            entity,
            effect,
        })
    }

    /// An event from parts that [`Event::parse`] produced earlier, read back from the
    /// Worker's hand-off (`handoff`); nothing else builds one.
    pub(crate) fn from_parts(
        id: EventId,
        kind: EventType,
        created_at: Option<CreatedAt>,
        entity: Option<EntityKey>,
        effect: Effect,
    ) -> Event {
        Event {
            id,
            kind,
            created_at,
            entity,
            effect,
        }
    }

    /// The dedupe key.
    pub fn id(&self) -> &EventId {
        &self.id
    }

    /// The event type.
    pub fn kind(&self) -> &EventType {
        &self.kind
    }

    /// When the provider created it, if the source reports it.
    pub fn created_at(&self) -> Option<CreatedAt> {
        self.created_at
    }

    /// The entity it is about, if any.
    pub fn entity(&self) -> Option<&EntityKey> {
        self.entity.as_ref()
    }

    /// What applying it does.
    pub fn effect(&self) -> &Effect {
        &self.effect
    }

    /// The version a snapshot event would write; `None` for other effects.
    pub fn version(&self) -> Option<Version> {
        match (&self.effect, self.created_at) {
            (Effect::Snapshot { .. }, Some(created_at)) => Some(Version {
                created_at,
                event_id: self.id.clone(),
            }),
            _ => None,
        }
    }

    /// Whether the event has a [`Event::version`], without making it.
    #[must_use]
    pub fn has_version(&self) -> bool {
        matches!(
            (&self.effect, self.created_at),
            (Effect::Snapshot { .. }, Some(_))
        )
    }
}

/// Slack's `url_verification` handshake: a verified body `{"type": "url_verification",
/// "challenge": "…"}` is answered with the challenge, not treated as an event. `None` for
/// anything else, and for every other scheme.
#[must_use]
pub fn challenge(verified: &Verified<'_>) -> Option<String> {
    if verified.scheme() != &Scheme::Slack {
        return None;
    }
    let body: serde_json::Value = serde_json::from_slice(verified.body()).ok()?;
    (body.get("type")?.as_str()? == "url_verification")
        .then(|| body.get("challenge")?.as_str().map(str::to_owned))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Option<(i64, u32)> {
        CreatedAt::parse_rfc3339(s).map(|c| (c.secs(), c.nanos()))
    }

    #[test]
    fn rfc3339_in_utc_matches_unix_seconds() {
        assert_eq!(at("1970-01-01T00:00:00Z"), Some((0, 0)));
        assert_eq!(at("2026-10-06T07:06:30Z"), Some((1_791_270_390, 0)));
        assert_eq!(at("2000-02-29T23:59:59z"), Some((951_868_799, 0)));
    }

    #[test]
    fn rfc3339_offsets_and_fractions_are_honoured() {
        assert_eq!(at("2026-10-06T09:06:30+02:00"), at("2026-10-06T07:06:30Z"));
        assert_eq!(
            at("2026-10-06T07:06:30.5Z"),
            Some((1_791_270_390, 500_000_000))
        );
        assert_eq!(
            at("2026-10-06T07:06:30.123456789123Z"),
            Some((1_791_270_390, 123_456_789))
        );
    }

    #[test]
    fn malformed_dates_are_refused() {
        for bad in [
            "",
            "2026-10-06",
            "2026-10-06T07:06:30",
            "2026-13-06T07:06:30Z",
            "2026-02-30T07:06:30Z",
            "2026-10-06T24:06:30Z",
            "2026-10-06T07:06:30.Z",
            "2026-10-06T07:06:30+2:00",
            "2026/10/06T07:06:30Z",
            "2026-10-06T07:06:30Zjunk",
        ] {
            assert_eq!(at(bad), None, "{bad}");
        }
    }

    #[test]
    fn versions_order_by_time_then_event_id() {
        let v = |secs, id: &str| Version {
            created_at: CreatedAt::from_unix(secs),
            event_id: EventId::new(id).unwrap(),
        };
        assert!(v(1, "evt_b") < v(2, "evt_a"));
        assert!(v(1, "evt_a") < v(1, "evt_b"));
        assert_eq!(v(1, "evt_a").cmp(&v(1, "evt_a")), Ordering::Equal);
    }

    #[test]
    fn ids_must_be_short_printable_and_present() {
        assert!(EventId::new("").is_none());
        assert!(EventId::new("a\nb").is_none());
        assert!(EventId::new("x".repeat(MAX_ID_LEN)).is_some());
        assert!(EventId::new("x".repeat(MAX_ID_LEN + 1)).is_none());
    }
}

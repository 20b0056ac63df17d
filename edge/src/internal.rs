//! The protocol between the Worker and its Durable Objects: binding names, internal
//! headers and the operations an entity object serves. A leaf: it imports nothing local.

use hookonce_core::route::{encode_component, query_param};

/// The entity objects' namespace binding.
pub const ENTITY_BINDING: &str = "ENTITY";
/// The publish keys' namespace binding.
pub const KEYS_BINDING: &str = "KEYS";
/// The feed objects' namespace binding (one per source).
pub const FEED_BINDING: &str = "FEED";
/// The gate objects' namespace binding (one per source and destination).
pub const GATE_BINDING: &str = "GATE";

/// The decision label on a delivery's answer (`Decision::label`).
pub const OUTCOME_HEADER: &str = "hookonce-outcome";
/// The publish request's Idempotency-Key, unescaped.
pub const KEY_HEADER: &str = "x-hookonce-key";
/// The (token, key) scope, which message ids are derived from.
pub const SCOPE_HEADER: &str = "x-hookonce-scope";

/// The URL a key object is called at to publish.
pub const PUBLISH_URL: &str = "https://key.hookonce/publish";
/// The URL a key object is called at for its message's delivery status.
pub const STATUS_URL: &str = "https://key.hookonce/status";
/// The URL a gate object is called at: a POST of core's `gate::Call`.
pub const GATE_URL: &str = "https://gate.hookonce/call";

/// What an entity object is asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Decide and apply a delivery the Worker verified and parsed (core's hand-off).
    Ingest,
    /// Read the entity: state, ledger, and a page of events and outbox rows (before the
    /// cursor, as the client sent it).
    Entity(Option<String>),
    /// Read one stored event.
    Event(String),
    /// Requeue the dead letters (of this destination only).
    RetryDead(Option<String>),
    /// Run a stored event through the pipeline again.
    Replay(String),
    /// Send an applied event again (to this destination only).
    Redeliver(String, Option<String>),
    /// Send a destination the entity's kept events since a time, unix seconds.
    Backfill(String, i64),
    /// Set the alarm for now: the destination's gate has a slot for this object's rows.
    Wake,
    /// Requeue the dead letters a filter admits, or count them: `entity::requeue::DeadFilter`'s
    /// query, and `dry_run=true` for a dry run.
    Requeue(String),
    /// Bucket 0 of a source: its record of the source's buckets (`store::bucket::Bucket`), made now
    /// with this count if it has none.
    Buckets(u32),
}

impl Op {
    /// The internal URL that carries this operation.
    pub fn url(&self) -> String {
        let base = "https://entity.hookonce";
        match self {
            Op::Ingest => format!("{base}/ingest"),
            Op::Entity(None) => format!("{base}/entity"),
            Op::Entity(Some(c)) => format!("{base}/entity?before={}", encode_component(c)),
            Op::Event(id) => format!("{base}/event?id={}", encode_component(id)),
            Op::RetryDead(None) => format!("{base}/outbox/retry"),
            Op::RetryDead(Some(d)) => {
                format!("{base}/outbox/retry?destination={}", encode_component(d))
            }
            Op::Replay(id) => format!("{base}/replay?id={}", encode_component(id)),
            Op::Redeliver(id, None) => format!("{base}/redeliver?id={}", encode_component(id)),
            Op::Redeliver(id, Some(d)) => format!(
                "{base}/redeliver?id={}&destination={}",
                encode_component(id),
                encode_component(d)
            ),
            Op::Backfill(d, since) => {
                format!(
                    "{base}/backfill?destination={}&since={since}",
                    encode_component(d)
                )
            }
            Op::Buckets(n) => format!("{base}/buckets?count={n}"),
            Op::Wake => format!("{base}/wake"),
            Op::Requeue(q) => format!("{base}/requeue?{q}"),
        }
    }

    /// Whether the call is a POST (a GET otherwise).
    pub fn is_post(&self) -> bool {
        matches!(
            self,
            Op::Ingest
                | Op::RetryDead(_)
                | Op::Replay(_)
                | Op::Redeliver(..)
                | Op::Backfill(..)
                | Op::Buckets(_)
                | Op::Wake
                | Op::Requeue(_)
        )
    }

    /// Reads back what [`Op::url`] wrote.
    pub fn parse(path: &str, query: &str) -> Option<Op> {
        let id = || query_param(query, "id")?.ok();
        let destination = || query_param(query, "destination")?.ok();
        Some(match path {
            "/ingest" => Op::Ingest,
            "/entity" => Op::Entity(query_param(query, "before").and_then(Result::ok)),
            "/event" => Op::Event(id()?),
            "/outbox/retry" => {
                Op::RetryDead(query_param(query, "destination").and_then(Result::ok))
            }
            "/replay" => Op::Replay(id()?),
            "/redeliver" => Op::Redeliver(id()?, destination()),
            "/backfill" => Op::Backfill(
                destination()?,
                query_param(query, "since")?.ok()?.parse().ok()?,
            ),
            "/wake" => Op::Wake,
            "/buckets" => Op::Buckets(query_param(query, "count")?.ok()?.parse().ok()?),
            "/requeue" => Op::Requeue(query.to_owned()),
            _ => return None,
        })
    }
}

/// What a source's feed object is asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedOp {
    /// Take notes, in order (a JSON array of `hookonce_core::feed::Note`).
    Notes,
    /// A page of the feed; the query as `FeedQuery::to_query` wrote it.
    Events(String),
    /// The dead letters.
    Dead,
    /// An entity object's outbox rows after an alarm pass (`metrics::OutboxSnapshot`),
    /// kept under the object's name.
    Outbox(String),
    /// The source's figures for `/metrics` (`metrics::SourceFigures`).
    Metrics,
    /// The last hour's deliveries per minute and each destination's health
    /// (`activity::document`).
    Activity,
    /// A page of candidate entities; the query as `sweep::CandidateQuery::to_query` wrote it.
    Candidates(String),
}

impl FeedOp {
    /// The internal URL that carries this operation.
    pub fn url(&self) -> String {
        let base = "https://feed.hookonce";
        match self {
            FeedOp::Notes => format!("{base}/notes"),
            FeedOp::Events(q) => format!("{base}/events?{q}"),
            FeedOp::Dead => format!("{base}/dead"),
            FeedOp::Outbox(object) => {
                format!("{base}/outbox?object={}", encode_component(object))
            }
            FeedOp::Metrics => format!("{base}/metrics"),
            FeedOp::Activity => format!("{base}/activity"),
            FeedOp::Candidates(q) => format!("{base}/candidates?{q}"),
        }
    }

    /// Reads back what [`FeedOp::url`] wrote.
    pub fn parse(path: &str, query: &str) -> Option<FeedOp> {
        Some(match path {
            "/notes" => FeedOp::Notes,
            "/events" => FeedOp::Events(query.to_owned()),
            "/dead" => FeedOp::Dead,
            "/outbox" => FeedOp::Outbox(query_param(query, "object")?.ok()?),
            "/metrics" => FeedOp::Metrics,
            "/activity" => FeedOp::Activity,
            "/candidates" => FeedOp::Candidates(query.to_owned()),
            _ => return None,
        })
    }
}

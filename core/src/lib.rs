//! # hookonce-core
//!
//! Everything hookonce *decides*, and nothing it *does*.
//!
//! ## Contract
//! - **No IO.** No sockets, files, storage or randomness. The adapter (`edge`) reads
//!   what the store holds, passes it in, and carries out what comes back.
//! - **Time is an argument.** Nothing here reads a clock; "now" is a
//!   [`UnixSeconds`] handed in by the caller. Tests advance it by hand.
//! - **Synchronous and deterministic.** Same inputs, same decision, on x86_64 and wasm32.
//! - **`#![forbid(unsafe_code)]`.**
//!
//! ## The flow of one delivery
//! 1. **Route** the request ([`Route::parse`]): which operation, with its path decoded.
//! 2. **Verify** the signature over the raw bytes, before anything is parsed
//!    ([`Verifier::verify`] → [`Verified`], a type only verification can construct).
//! 3. **Parse** the verified body into an [`Event`]: id, type, created_at, entity and
//!    the effect its type is configured for ([`Event::parse`]). [`object_for`]
//!    names the Durable Object that owns it, and [`encode_handoff`] carries the event to
//!    it, so the object, reachable only through its binding, neither verifies nor parses
//!    again.
//! 4. **Decide** from what the entity's store holds ([`Stored`]) and `now`:
//!    [`Decision`] is `Apply`, `Duplicate`, `Stale`, `InFlight` or `Claim`, and
//!    carries the rows to write as [`Write`]s. The common case needs no read:
//!    [`decide_unread`] decides from the snapshot version the object keeps, and its
//!    record tests the id as it is written.
//! 5. **Write** exactly those rows, one statement each, as one atomic unit (the adapter's
//!    job; a duplicate writes nothing).
//! 6. **Respond**: 200 for applied, duplicate and stale alike, so a provider never retries
//!    a duplicate; 409 with `Retry-After` while another event of the entity holds its claim.
//! 7. **Forward**: the entity's alarm runs its [`Drain`], one run at a time: it reads the
//!    head row, asks [`outbox_step`] what is due, sends it, and writes what
//!    [`after_attempt`] returns, only if the row is still as it was read, durably, before
//!    the next row.
//!
//! ## Example
//!
//! ```
//! use hookonce_core::{decide, signature_headers, Decision, Delivery, Event, Plan, SourceConfig,
//!                     Stored, UnixSeconds, Verifier, Write};
//!
//! let source = SourceConfig::from_json("cockpit", &serde_json::json!({
//!     "scheme": "standard-webhooks",
//!     "secrets": ["COCKPIT_SECRET"],
//!     "effects": { "cardholder.created": "snapshot" },
//! })).unwrap();
//! let secret = source.scheme.parse_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
//! let now = UnixSeconds(1_791_270_400); // handed in: the core has no clock
//!
//! // What the provider sends.
//! let body = br#"{"id":"evt_1","type":"cardholder.created","created_at":"2026-10-06T07:06:30Z",
//!                 "data":{"object":{"id":"ch_1","status":"active"}}}"#;
//! let headers: Vec<(String, String)> = signature_headers(&source.scheme, &secret, "evt_1", now, body)
//!     .into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
//!
//! // 2. verify, 3. parse, 4. decide against what the store holds.
//! let verifier = Verifier::new(source.scheme.clone(), vec![secret], source.tolerance).unwrap();
//! let verified = verifier.verify(&headers, body, now).unwrap();
//! let event = Event::parse(&verified, &headers, &source.shape).unwrap();
//! let delivery = Delivery { source: &source, event: &event, headers: &headers, body };
//! match decide(delivery, &Stored::default(), Plan::for_source(&source), now) {
//!     // 5. the adapter writes exactly these rows in one transaction, 6. answers 200.
//!     Decision::Apply { writes, .. } => assert!(writes.iter().any(|w| matches!(w,
//!         Write::Snapshot { state, .. } if *state == r#"{"id":"ch_1","status":"active"}"#))),
//!     other => panic!("a new event is applied, not {other:?}"),
//! }
//! ```
//!
//! The publish API has its own, separate flow in [`decide_key`]: webhook deduplication
//! and request idempotency solve different problems and share no state.

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

pub mod b64;
pub mod body;
pub mod config;
pub mod custom;
pub mod decide;
pub mod drain;
pub mod entity;
pub mod event;
pub mod extract;
pub mod feed;
pub mod flush;
pub mod forward;
pub mod handoff;
pub mod hex;
pub mod idempotency;
pub mod log;
pub mod metrics;
pub mod names;
pub mod outbound;
pub mod outbox;
pub mod packing;
pub mod publish;
pub mod retention;
pub mod retry;
pub mod route;
pub mod seen;
pub mod sign;
pub mod small_map;
pub mod time;
pub mod token;
pub mod urls;
pub mod verify;

// Configuration.
pub use body::{BodyLimit, TooLarge, MAX_STORABLE_BODY};
pub use config::{
    ConfigError, Destination, Effect as ConfiguredEffect, FieldSource, Forward, ForwardMode, Shape,
    SourceConfig, Sources, DEFAULT_BUCKETS, DEFAULT_FORWARD_TIMEOUT, DEFAULT_LEASE,
    DEFAULT_LEGACY_LOOKUP, DEFAULT_MAX_BODY, MAX_BUCKETS,
};
pub use retention::{
    first_prune, next_prune, plan as prune_plan, Kept, Lifetimes, Prune, Retention, RetentionError,
    DEFAULT_BODY_RETENTION, MAX_BODY_RETENTION, MIN_RETENTION, PRUNE_BATCH, PRUNE_IDS_EVERY,
};
pub use retry::{
    parse_retry_after, AttemptResult, DeadReason, Next, Schedule, ScheduleError, MAX_RETRY_AFTER,
};

// Steps 1 to 3: route, verify, parse.
pub use custom::{challenge, parse_template, Encoding, HmacSpec, Part, SpecError};
pub use event::{
    CreatedAt, Effect, EntityKey, Event, EventId, EventType, Field, ParseError, Version,
    MAX_ID_LEN, MAX_SAFE_AMOUNT,
};
pub use handoff::{decode as decode_handoff, encode as encode_handoff, Handoff, HandoffError};
pub use names::{
    bucket_name, bucket_of, entity_of, forwarded_key, object_for, object_kind, object_name,
    order_of, per_event_object, source_of, ObjectKind,
};
pub use packing::{pack, unpack, Codec, Packed, UnpackError};
pub use route::{
    decode_segment, encode_component, query_param, split_url, Route, RouteError, ROUTES,
};
pub use seen::{CopyCheck, SeenIds, SEEN_MAX, SEEN_TTL};
pub use sign::{
    github as sign_github, headers as signature_headers,
    standard_webhooks as sign_standard_webhooks, stripe as sign_stripe,
};
pub use urls::is_http_url;
pub use verify::{Headers, Scheme, Secret, Verified, Verifier, VerifyError};

// Step 4 and 7: decisions and the commands they return.
pub use decide::{
    decide, decide_unread, release, replay_headers, Claim, Decision, Delivery, Lease, Outcome,
    Plan, Stored, Write, OTHER_EVENT_RETRY,
};
pub use drain::{
    Command as DrainCommand, Drain, Input as DrainInput, Run as DrainRun, BUSY_RETRY, RUN_LIMIT,
};
pub use forward::{
    headers as forward_headers, queue_message, Outgoing, QueueMessageError, MAX_QUEUE_MESSAGE,
    SERVICE_URL,
};
pub use outbox::{
    after_attempt, step as outbox_step, target as outbox_target, Head, Order, OutboxStatus,
    SigningKey, Step, Target, Transition,
};

// The publish API.
pub use idempotency::{
    decide as decide_key, Fingerprint, FingerprintError, IdempotencyKey, KeyDecision, KeyError,
    KeyPolicy, KeyPolicyError, KeyState, StoredResponse, MAX_KEY_LEN,
};
pub use publish::{
    accept as accept_message, message_id, scope as key_scope, Accepted, Message, PublishError,
    MAX_BODY as PUBLISH_MAX_BODY, PATH as PUBLISH_PATH, SOURCE as PUBLISH_SOURCE,
};

// The source-wide feed and structured logs.
pub use feed::{
    admit as feed_admit, admit_batch as feed_admit_batch, feed_cursor, next_cursor, DeadLetter,
    EntityCursor, FeedConfig, FeedOutcome, FeedPolicy, FeedQuery, FeedRow, FeedState, FeedWrite,
    Note, QueryError, RejectWindow, DEFAULT_KEEP as FEED_DEFAULT_KEEP,
    DEFAULT_LIMIT as FEED_DEFAULT_LIMIT, DEFAULT_MAX_AGE as FEED_DEFAULT_MAX_AGE,
    DEFAULT_REJECTED_PER_MINUTE as FEED_DEFAULT_REJECTED_PER_MINUTE, ENTITY_EVENTS, ENTITY_OUTBOX,
    MAX_KEEP as FEED_MAX_KEEP, MAX_LIMIT as FEED_MAX_LIMIT, MAX_REASON as FEED_MAX_REASON,
    PRUNE_EVERY as FEED_PRUNE_EVERY,
};
pub use flush::{FlushId, FlushLease, Renewal, FLUSH_RUN_MS, FLUSH_STALL_MS};
pub use log::{
    attempt as attempt_log, configuration as configuration_log, decision as decision_log,
    failure as failure_log, object_failed as object_failed_log, rejected as rejected_log,
    secret_missing as secret_missing_log, DecisionLog, LogLevel, LogRecord,
};

// Bearer tokens of the admin and publish APIs.
pub use token::token_matches;

// Time, and the small ordered map that configuration and the adapter's tables use.
pub use small_map::SmallMap;
pub use time::{CivilDate, Seconds, UnixSeconds};

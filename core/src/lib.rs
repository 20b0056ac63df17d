//! # hookonce-core
//!
//! Everything hookonce *decides*, and nothing it *does*.
//!
//! ## Contract
//! - **No IO.** No sockets, files, storage or randomness. The adapter (`edge`) reads
//!   what the store holds, passes it in, and carries out what comes back.
//! - **Time is an argument.** Nothing here reads a clock; "now" is a
//!   [`UnixSeconds`](time::UnixSeconds) handed in by the caller. Tests advance it by hand.
//! - **Synchronous and deterministic.** Same inputs, same decision, on x86_64 and wasm32.
//! - **`#![forbid(unsafe_code)]`.**
//!
//! ## The flow of one delivery
//! 1. **Route** the request ([`route::Route::parse`]): which operation, with its path decoded.
//! 2. **Verify** the signature over the raw bytes, before anything is parsed
//!    ([`verify::Verifier::verify`] → [`verify::Verified`], a type only verification can
//!    construct).
//! 3. **Parse** the verified body into an [`event::Event`]: id, type, created_at, entity and
//!    the effect its type is configured for ([`event::Event::parse`]). [`names::object_for`]
//!    names the Durable Object that owns it, and [`handoff::encode`] carries the event to
//!    it, so the object, reachable only through its binding, neither verifies nor parses
//!    again.
//! 4. **Decide** from what the entity's store holds ([`decide::Stored`]) and `now`:
//!    [`decide::Decision`] is `Apply`, `Duplicate`, `Stale`, `InFlight` or `Claim`, and
//!    carries the rows to write as [`decide::Write`]s. The common case needs no read:
//!    [`decide::decide_unread`] decides from the snapshot version the object keeps, and its
//!    record tests the id as it is written.
//! 5. **Write** exactly those rows, one statement each, as one atomic unit (the adapter's
//!    job; a duplicate writes nothing).
//! 6. **Respond**: 200 for applied, duplicate and stale alike, so a provider never retries
//!    a duplicate; 409 with `Retry-After` while another event of the entity holds its claim.
//! 7. **Forward**: the entity's alarm runs its [`drain::Drain`], one run at a time: it reads
//!    the head row, asks [`outbox::step`] what is due, sends it, and writes what
//!    [`outbox::after_attempt`] returns, only if the row is still as it was read, durably,
//!    before the next row.
//!
//! The *sequence* of steps 4 to 7 in an entity's object is core's too: [`entity::Ingest`]
//! runs one delivery (what to read, one decision, the writes, the answer, the log record and
//! the feed note, a sync send), [`entity::upkeep`] what an alarm does after its drain,
//! [`entity::admin`] a replay and [`entity::requeue`] a requeue, each as `Command`s that the
//! adapter carries out with one exhaustive `match`, feeding each result back in. An admin
//! operation across a whole source is one page of entities at a time ([`sweep::Sweep`]).
//!
//! ## Example
//!
//! ```
//! use hookonce_core::config::SourceConfig;
//! use hookonce_core::decide::{decide, Decision, Delivery, Plan, Stored, Write};
//! use hookonce_core::event::Event;
//! use hookonce_core::sign;
//! use hookonce_core::time::UnixSeconds;
//! use hookonce_core::verify::Verifier;
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
//! let headers: Vec<(String, String)> = sign::headers(&source.scheme, &secret, "evt_1", now, body)
//!     .into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
//!
//! // 2. verify, 3. parse, 4. decide against what the store holds.
//! let verifier = Verifier::new(source.scheme.clone(), vec![secret], source.tolerance).unwrap();
//! let verified = verifier.verify(&headers, body, now).unwrap();
//! let event = Event::parse(&verified, &headers, &source.shape).unwrap();
//! let delivery = Delivery { source: &source, event: &event, headers: &headers, body };
//! match decide(delivery, &Stored::default(), Plan::for_source(&source, event.kind().as_str()), now) {
//!     // 5. the adapter writes exactly these rows in one transaction, 6. answers 200.
//!     Decision::Apply { writes, .. } => assert!(writes.iter().any(|w| matches!(w,
//!         Write::Snapshot { state, .. } if *state == r#"{"id":"ch_1","status":"active"}"#))),
//!     other => panic!("a new event is applied, not {other:?}"),
//! }
//! ```
//!
//! The publish API has its own, separate flow in [`idempotency::decide`]: webhook
//! deduplication and request idempotency solve different problems and share no state.

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

// Steps 1 to 3: route, verify, parse; and the hand-off to the entity's object.
pub mod custom;
pub mod dead;
pub mod event;
pub mod handoff;
pub mod names;
pub mod page;
pub mod percent;
pub mod route;
pub mod seen;
pub mod sign;
pub mod verify;

// Steps 4 to 7: decide, write, respond, forward; the entity's sequences of them.
pub mod decide;
pub mod drain;
pub mod entity;
pub mod filter;
pub mod forward;
pub mod gate;
pub mod outbox;
pub mod packing;
pub mod protect;
pub mod retention;
pub mod retry;
pub mod sweep;

// Configuration, and what a request may carry or reach.
pub mod body;
pub mod config;
pub mod outbound;
pub mod token;
pub mod urls;

// The publish API.
pub mod idempotency;
pub mod publish;

// The source-wide feed, metrics and structured logs.
pub mod activity;
pub mod feed;
pub mod flush;
pub mod intake;
pub mod log;
pub mod metrics;
pub mod ops;

// Time, and the small ordered map that configuration and the adapter's tables use.
pub mod small_map;
pub mod time;

// Encodings and the JSON scanner, used inside the crate only.
mod b64;
mod extract;
mod hex;

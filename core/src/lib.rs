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
//! 1. **Verify** the signature over the raw bytes, before anything is parsed
//!    ([`verify::Verifier::verify`] → [`verify::Verified`], a type only verification can construct).
//! 2. **Parse** the verified body into an [`event::Event`]: id, type, created_at, entity and
//!    the effect its type is configured for ([`event::Event::parse`]).
//! 3. **Decide** from what the entity's store holds ([`decide::Stored`]) and `now`:
//!    [`decide::Decision`] is `Apply`, `Duplicate`, `Stale`, `InFlight` or `Claim`.
//! 4. **Write** exactly the rows the decision carries, as one atomic unit (the adapter's job;
//!    a duplicate writes nothing).
//! 5. **Respond**: 200 for applied, duplicate and stale alike, so a provider never retries
//!    a duplicate; 409 with `Retry-After` while another copy holds the claim.
//!
//! ## Example
//!
//! ```
//! use hookonce_core::config::SourceConfig;
//! use hookonce_core::decide::{decide, Decision, Plan, Stored};
//! use hookonce_core::event::Event;
//! use hookonce_core::verify::Verifier;
//! use hookonce_core::{sign, UnixSeconds};
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
//! let signature = sign::standard_webhooks(&secret, "evt_1", now, body);
//! let ts = now.0.to_string();
//! let headers = [("webhook-id", "evt_1"), ("webhook-timestamp", ts.as_str()),
//!                ("webhook-signature", signature.as_str())];
//!
//! // 1. verify, 2. parse, 3. decide against what the store holds.
//! let verifier = Verifier::new(source.scheme, vec![secret], source.tolerance).unwrap();
//! let verified = verifier.verify(&headers, body, now).unwrap();
//! let event = Event::parse(&verified, &headers, &source.shape).unwrap();
//! match decide(&event, &Stored::default(), Plan::Apply { forward: false }, now) {
//!     // 4. the adapter writes exactly these rows in one transaction, 5. answers 200.
//!     Decision::Apply(apply) => assert_eq!(apply.snapshot.unwrap().0, r#"{"id":"ch_1","status":"active"}"#),
//!     other => panic!("a new event is applied, not {other:?}"),
//! }
//! ```
//!
//! The publish API has its own, separate flow in [`idempotency`]: webhook deduplication
//! and request idempotency solve different problems and share no state.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod decide;
pub mod event;
pub mod idempotency;
pub mod retention;
pub mod retry;
pub mod route;
pub mod sign;
pub mod time;
pub mod verify;

pub use config::{ConfigError, SourceConfig, Sources};
pub use event::{EntityKey, Event, EventId, EventType, ParseError};
pub use route::{Route, RouteError, ROUTES};
pub use time::{Seconds, UnixSeconds};
pub use verify::{Headers, Scheme, Secret, Verified, Verifier, VerifyError};

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
pub mod sign;
pub mod time;
pub mod verify;

pub use time::{Seconds, UnixSeconds};

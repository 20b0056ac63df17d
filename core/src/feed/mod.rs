//! The source-wide feed: what a row says (`note`), how many rows a source keeps and for
//! how long (`policy`), and which rows to write and prune, rejected requests sampled
//! (`admit`). Reading it a page at a time is [`crate::page`]'s.
//!
//! The edge keeps one feed store per source. Entity objects and the Worker post it a
//! [`Note`] after they have answered; [`admit`] turns a note, with what the store holds
//! ([`FeedState`]), into the [`FeedWrite`]s to run, one statement each.

mod admit;
mod note;
mod policy;

pub use admit::{admit, admit_batch, FeedState, FeedWrite, RejectWindow};
pub use note::{DeadLetter, FeedOutcome, FeedRow, Note};
pub use policy::{
    FeedConfig, FeedPolicy, DEFAULT_KEEP, DEFAULT_MAX_AGE, DEFAULT_REJECTED_PER_MINUTE, MAX_KEEP,
    MAX_REASON, PRUNE_EVERY,
};

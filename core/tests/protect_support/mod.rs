//! Shared helpers for the destination-protection tests (`hookonce_core::protect`).
#![allow(dead_code)]

use hookonce_core::protect::{Ask, Grant, Protect, Settings, Transition};
use hookonce_core::retry::AttemptResult;
use hookonce_core::time::{Seconds, UnixSeconds};

pub const T0: UnixSeconds = UnixSeconds(1_791_270_400);

/// `T0 + s` seconds.
pub fn at(s: u64) -> UnixSeconds {
    T0.plus(Seconds(s))
}

pub fn answered(code: u16) -> AttemptResult {
    AttemptResult::Status {
        code,
        retry_after: None,
    }
}

pub fn ok() -> AttemptResult {
    answered(200)
}

pub fn down() -> AttemptResult {
    answered(503)
}

pub fn protect(settings: Settings) -> Protect<u32> {
    Protect::new(settings, T0)
}

/// The grant `entity` gets at `now`, or a panic naming what it got instead.
#[track_caller]
pub fn grant(p: &mut Protect<u32>, entity: u32, now: UnixSeconds) -> Grant {
    match p.ask(&entity, now) {
        Ask::Grant(g) => g,
        other => panic!("entity {entity} at {now} expected a grant, got {other:?}"),
    }
}

/// Asks for `entity` and reports `result` at the same instant; the grant it used.
#[track_caller]
pub fn attempt(
    p: &mut Protect<u32>,
    entity: u32,
    result: &AttemptResult,
    now: UnixSeconds,
) -> Grant {
    let g = grant(p, entity, now);
    let _ = p.report(&entity, g.lease, result, now);
    g
}

/// Every transition not yet taken.
pub fn transitions(p: &mut Protect<u32>) -> Vec<Transition> {
    std::iter::from_fn(|| p.poll_transition()).collect()
}

/// The transitions' names, for compact assertions.
pub fn names(p: &mut Protect<u32>) -> Vec<&'static str> {
    transitions(p).iter().map(Transition::name).collect()
}

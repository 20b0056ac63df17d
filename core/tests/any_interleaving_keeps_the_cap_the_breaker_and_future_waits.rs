//! Property: for any interleaving of asks, results (on time, late or for leases that were
//! replaced), lease expiries, pauses, resumes and time steps, under any valid settings:
//! (a) the leases out never exceed `max_in_flight`, nor, after a recovery, one more than
//!     the successes reported since (the slow start);
//! (b) between `opened` and `closed`, nothing is granted but one probe per `half-open`;
//! (c) every `Wait` names an instant after `now`, and a paused destination answers
//!     `Paused` and nothing else;
//! (d) nothing panics; a waiter woken for a free slot that asks at once gets it; and the in-flight shown, the results counted, and the breaker
//!     opening after `failure_threshold` outage failures in a row all agree with an oracle
//!     that keeps its own books from what it asked and was told.

mod protect_support;

use hookonce_core::protect::{Ask, Protect, Reported, Settings, Transition};
use hookonce_core::retry::AttemptResult;
use hookonce_core::time::{Seconds, UnixSeconds};
use proptest::prelude::*;
use protect_support::*;

#[derive(Clone, Debug)]
enum Op {
    Ask(u32),
    /// Take a waiter to wake, and have it ask at once.
    Wake,
    /// Report the `n`th grant ever made (modulo their number) with a result.
    Report(usize, u16),
    /// Report a lease that was never granted.
    Bogus(u32),
    Pause,
    Resume,
    Tick,
    Step(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u32..8).prop_map(Op::Ask),
        2 => Just(Op::Wake),
        4 => (any::<usize>(), prop::sample::select(vec![200u16, 404, 429, 503, 0]))
            .prop_map(|(n, code)| Op::Report(n, code)),
        1 => (0u32..8).prop_map(Op::Bogus),
        1 => Just(Op::Pause),
        1 => Just(Op::Resume),
        1 => Just(Op::Tick),
        3 => (0u64..12).prop_map(Op::Step),
    ]
}

fn settings() -> impl Strategy<Value = Settings> {
    (
        1u32..5,
        20u8..=100,
        1u32..8,
        1u64..20,
        (1u64..10, 0u64..20),
        1u32..6,
        prop::option::of(1u32..5),
        1u64..12,
    )
        .prop_map(
            |(n, rate, m, window, (cool, extra), cap, per_second, lease)| {
                Settings::builder()
                    .failure_threshold(n)
                    .failure_rate(rate)
                    .min_attempts(m)
                    .window_secs(window)
                    .cool_down_secs(cool)
                    .max_cool_down_secs(cool + extra)
                    .max_in_flight(cap)
                    .max_per_second(per_second)
                    .lease_secs(lease)
                    .build()
                    .unwrap()
            },
        )
}

/// The oracle's own classification: 0 stands for a timeout.
fn result(code: u16) -> (AttemptResult, bool) {
    match code {
        0 => (AttemptResult::Timeout, true),
        200 | 404 => (answered(code), false),
        _ => (answered(code), true),
    }
}

#[derive(Default)]
struct Oracle {
    /// Every grant: (entity, lease id, until).
    grants: Vec<(u32, hookonce_core::protect::LeaseId, UnixSeconds)>,
    /// Indices into `grants` of the leases out.
    out: Vec<usize>,
    paused: bool,
    open: bool,
    half_open: bool,
    probes: u32,
    /// Non-outage results counted since the last close, if it ever closed after opening.
    since_close: Option<u32>,
    /// Outage results in a row counted while closed.
    run: u32,
}

impl Oracle {
    fn expire(&mut self, now: UnixSeconds) {
        let grants = &self.grants;
        self.out.retain(|&i| grants[i].2 > now);
    }

    fn saw(&mut self, t: Transition) -> Result<(), TestCaseError> {
        match t {
            Transition::Opened { .. } => {
                (self.open, self.half_open, self.run) = (true, false, 0);
                self.since_close = None;
            }
            Transition::HalfOpen { .. } => {
                prop_assert!(self.open, "half-open while closed");
                (self.half_open, self.probes) = (true, 0);
            }
            Transition::Closed { .. } => {
                prop_assert!(self.half_open, "closed without a probe");
                (self.open, self.half_open, self.run) = (false, false, 0);
                self.since_close = Some(0);
            }
            Transition::Paused { .. } => prop_assert!(self.paused),
            Transition::Resumed { .. } => prop_assert!(!self.paused),
            other => prop_assert!(false, "unknown transition {other:?}"),
        }
        Ok(())
    }
}

fn run(settings: Settings, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut p: Protect<u32> = Protect::new(settings, T0);
    let mut o = Oracle::default();
    let mut now = T0;
    let cap = settings.max_in_flight() as usize;
    for op in ops {
        o.expire(now);
        let mut granted = None;
        match op {
            Op::Step(s) => now = now.plus(Seconds(s)),
            Op::Tick => {
                p.tick(now);
            }
            Op::Pause => {
                let was = o.paused;
                o.paused = true;
                prop_assert_eq!(p.pause(now), !was);
            }
            Op::Resume => {
                let was = o.paused;
                o.paused = false;
                prop_assert_eq!(p.resume(now), was);
            }
            Op::Bogus(entity) => {
                let lease = hookonce_core::protect::LeaseId(u64::MAX - u64::from(entity));
                prop_assert_eq!(p.report(&entity, lease, &ok(), now), Reported::Unknown);
            }
            Op::Report(n, code) => {
                if o.grants.is_empty() {
                    continue;
                }
                let i = n % o.grants.len();
                let (entity, lease, _) = o.grants[i];
                let (result, outage) = result(code);
                let got = p.report(&entity, lease, &result, now);
                match o.out.iter().position(|&j| j == i) {
                    Some(k) => {
                        o.out.swap_remove(k);
                        prop_assert_eq!(got, Reported::Counted { outage });
                        if !o.open {
                            o.run = if outage { o.run + 1 } else { 0 };
                            if !outage {
                                o.since_close = o.since_close.map(|s| s + 1);
                            }
                        }
                    }
                    None => prop_assert_eq!(got, Reported::Unknown),
                }
            }
            Op::Ask(_) | Op::Wake => {
                let (entity, woken) = match op {
                    Op::Ask(entity) => (entity, false),
                    _ => match p.poll_wake() {
                        Some(entity) => (entity, true),
                        None => continue,
                    },
                };
                if let Some(k) = o.out.iter().position(|&j| o.grants[j].0 == entity) {
                    o.out.swap_remove(k);
                }
                match p.ask(&entity, now) {
                    Ask::Grant(g) => {
                        prop_assert!(!o.paused, "granted while paused");
                        prop_assert!(g.until > now);
                        o.grants.push((entity, g.lease, g.until));
                        o.out.push(o.grants.len() - 1);
                        granted = Some(g);
                    }
                    Ask::Wait { until, .. } => {
                        prop_assert!(!woken, "woken, then told to wait");
                        prop_assert!(!o.paused, "told to wait while paused");
                        prop_assert!(until > now, "wait until {until} at {now}");
                    }
                    Ask::Paused => prop_assert!(o.paused, "paused while not"),
                    other => prop_assert!(false, "unknown answer {other:?}"),
                }
            }
        }
        // The transitions happened before the call's grant, if any.
        while let Some(t) = p.poll_transition() {
            o.saw(t)?;
        }
        if let Some(g) = granted {
            // (a)
            prop_assert!(
                o.out.len() <= cap,
                "{} out over a cap of {cap}",
                o.out.len()
            );
            if let Some(s) = o.since_close {
                let slow = cap.min(s as usize + 1);
                prop_assert!(o.out.len() <= slow, "{} out, {s} successes", o.out.len());
            }
            // (b)
            if o.open {
                prop_assert!(o.half_open && g.probe, "granted while open");
                o.probes += 1;
                prop_assert!(o.probes == 1, "a second probe");
            } else {
                prop_assert!(!g.probe);
            }
        }
        if !o.open {
            prop_assert!(
                o.run < settings.failure_threshold(),
                "{} failures in a row and still closed",
                o.run
            );
        }
        o.expire(now);
        prop_assert_eq!(p.status(now).in_flight as usize, o.out.len());
        while let Some(t) = p.poll_transition() {
            o.saw(t)?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_interleaving_keeps_the_cap_the_breaker_and_future_waits(
        settings in settings(),
        ops in prop::collection::vec(op(), 1..200),
    ) {
        run(settings, ops)?;
    }
}

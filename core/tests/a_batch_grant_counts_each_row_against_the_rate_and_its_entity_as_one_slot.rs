//! A grant covering several attempts of one entity (`Protect::ask_batch`, issue 54): each
//! attempt counts against `max_per_second` in the second of the grant (those not made go
//! back when reported within it), the entity holds one slot of the cap throughout, the
//! half-open probe stays one attempt, a batch's results count as that many reports, and
//! its attempts must start within the second under a rate and within the cool-down.
//! Then a property over interleavings of batch asks and batch reports.

mod protect_support;

use hookonce_core::protect::{Ask, Circuit, Protect, Reported, Settings, WaitReason, BATCH};
use hookonce_core::time::{Seconds, UnixSeconds};
use proptest::prelude::*;
use protect_support::*;

#[track_caller]
fn batch(
    p: &mut Protect<u32>,
    entity: u32,
    rows: u32,
    now: UnixSeconds,
) -> hookonce_core::protect::Grant {
    match p.ask_batch(&entity, rows, now) {
        Ask::Grant(g) => g,
        other => panic!("entity {entity} at {now} expected a grant, got {other:?}"),
    }
}

#[test]
fn a_batch_covers_at_most_the_constant_and_holds_one_slot() {
    let mut p = protect(Settings::builder().max_in_flight(2).build().unwrap());
    let g = batch(&mut p, 1, 100, at(0));
    assert_eq!(g.rows, BATCH);
    assert_eq!(g.rows_until, g.until, "no rate: the lease's own end");
    assert_eq!(p.status(at(0)).in_flight, 1, "the entity is one slot");
    assert_eq!(batch(&mut p, 2, 1, at(0)).rows, 1);
    assert!(matches!(
        p.ask_batch(&3, BATCH, at(0)),
        Ask::Wait {
            reason: WaitReason::Full,
            ..
        }
    ));
}

#[test]
fn under_a_rate_a_batch_takes_what_is_left_of_the_second_and_must_start_within_it() {
    // 10 a second over 2 slots: 5 a grant at most.
    let s = Settings::builder()
        .max_per_second(Some(10))
        .max_in_flight(2)
        .build()
        .unwrap();
    let mut p = protect(s);
    let g1 = batch(&mut p, 1, BATCH, at(0));
    assert_eq!((g1.rows, g1.rows_until), (5, at(1)));
    let g2 = batch(&mut p, 2, BATCH, at(0));
    assert_eq!(g2.rows, 5);
    let _ = p.report_batch(&2, g2.lease, 4, &ok(), at(0));
    assert!(
        matches!(
            p.ask_batch(&4, BATCH, at(0)),
            Ask::Wait {
                reason: WaitReason::Rate,
                ..
            }
        ),
        "every row of the batches counted, though a slot is free"
    );
    // Two of the first batch's five used and reported within the second: three go back.
    let _ = p.report_batch(&1, g1.lease, 1, &ok(), at(0));
    assert_eq!(batch(&mut p, 4, BATCH, at(0)).rows, 3);
    // A report in a later second gives nothing back to the second before.
    let g = batch(&mut p, 5, BATCH, at(1));
    assert_eq!(g.rows, 5);
    let _ = p.report_batch(&5, g.lease, 0, &ok(), at(2));
    assert_eq!(batch(&mut p, 6, BATCH, at(2)).rows, 5);
}

#[test]
fn under_a_rate_a_batch_takes_no_more_than_its_slots_share_of_a_second() {
    let rated = |per_second, cap| {
        let s = Settings::builder()
            .max_per_second(Some(per_second))
            .max_in_flight(cap)
            .build()
            .unwrap();
        batch(&mut protect(s), 1, BATCH, at(0)).rows
    };
    assert_eq!(rated(5, 10), 1, "fewer a second than slots: one each");
    assert_eq!(rated(40, 10), 4);
    assert_eq!(rated(1_000, 10), BATCH);
}

#[test]
fn a_batchs_attempts_start_within_the_cool_down_so_none_starts_once_half_open() {
    let s = Settings::builder()
        .cool_down_secs(5)
        .max_cool_down_secs(5)
        .lease_secs(60)
        .build()
        .unwrap();
    let mut p = protect(s);
    let g = batch(&mut p, 1, BATCH, at(0));
    assert_eq!(g.rows_until, at(5));
    // Opened a moment later by others' failures: half-open no earlier than at(5).
    for e in 2..2 + Settings::FAILURE_THRESHOLD {
        let _ = attempt(&mut p, e, &down(), at(0));
    }
    assert_eq!(p.status(at(0)).circuit, Circuit::Open);
    assert_eq!(p.status(at(4)).circuit, Circuit::Open);
}

#[test]
fn the_probe_is_one_attempt_whatever_was_asked() {
    let s = Settings::builder().cool_down_secs(5).build().unwrap();
    let mut p = protect(s);
    for e in 0..Settings::FAILURE_THRESHOLD {
        let _ = attempt(&mut p, e, &down(), at(0));
    }
    let probe = batch(&mut p, 50, BATCH, at(5));
    assert!(probe.probe);
    assert_eq!(probe.rows, 1);
    // A report claiming more attempts under the probe counts one: the probe's own.
    assert_eq!(
        p.report_batch(&50, probe.lease, 7, &ok(), at(6)),
        Reported::Counted { outage: false }
    );
    let status = p.status(at(6));
    assert_eq!(status.circuit, Circuit::Closed);
    assert_eq!(
        status.limit, 1,
        "the slow start at 1: no more successes were counted"
    );
}

#[test]
fn a_batchs_results_count_as_that_many_reports() {
    let s = Settings::builder()
        .failure_threshold(3)
        .min_attempts(100)
        .build()
        .unwrap();
    let mut p = protect(s);
    let _ = attempt(&mut p, 1, &down(), at(0));
    let _ = attempt(&mut p, 1, &down(), at(0));
    let g = batch(&mut p, 1, BATCH, at(0));
    // Four delivered, then a failure: the run of failures starts again from one.
    assert_eq!(
        p.report_batch(&1, g.lease, 4, &down(), at(1)),
        Reported::Counted { outage: true }
    );
    let status = p.status(at(1));
    assert_eq!(status.consecutive_failures, 1);
    assert_eq!(status.recent_attempts, 2 + 5);
    assert_eq!(status.in_flight, 0);
    // Reported again: the lease is gone.
    assert_eq!(
        p.report_batch(&1, g.lease, 0, &ok(), at(1)),
        Reported::Unknown
    );
}

#[derive(Clone, Debug)]
enum Op {
    /// An entity asks for this many rows.
    Ask(u32, u32),
    /// The `n`th grant (modulo their number) reports `earlier` fine attempts then a result.
    Report(usize, u32, bool),
    Step(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u32..6, 0u32..40).prop_map(|(e, r)| Op::Ask(e, r)),
        4 => (any::<usize>(), 0u32..20, any::<bool>()).prop_map(|(n, e, f)| Op::Report(n, e, f)),
        2 => (0u64..4).prop_map(Op::Step),
    ]
}

proptest! {
    /// For any interleaving of batch asks and reports, under a cap and maybe a rate: the
    /// leases out never exceed the cap (an entity is one slot, whatever its batch); the
    /// rows granted in any one second never exceed `max_per_second` less those given back
    /// by reports within it; a probe covers one row; a batch's rows start within its lease
    /// and the cool-down.
    #[test]
    fn any_interleaving_of_batches_keeps_the_cap_the_rate_and_the_single_probe(
        cap in 1u32..5,
        per_second in prop::option::of(1u32..40),
        ops in prop::collection::vec(op(), 1..120),
    ) {
        let s = Settings::builder()
            .max_in_flight(cap)
            .max_per_second(per_second)
            .failure_threshold(3)
            .cool_down_secs(3)
            .max_cool_down_secs(6)
            .lease_secs(8)
            .build()
            .unwrap();
        let mut p: Protect<u32> = Protect::new(s, T0);
        let mut now = T0;
        // (entity, grant, second); the rows each second holds net of give-backs.
        let mut grants = Vec::new();
        let mut per_sec: std::collections::BTreeMap<i64, i64> = Default::default();
        for op in ops {
            match op {
                Op::Step(n) => now = now.plus(Seconds(n)),
                Op::Ask(e, rows) => match p.ask_batch(&e, rows, now) {
                    Ask::Grant(g) => {
                        prop_assert!(g.rows >= 1 && g.rows <= BATCH.min(rows.max(1)));
                        prop_assert!(!g.probe || g.rows == 1, "a probe of {} rows", g.rows);
                        prop_assert!(g.rows_until > now && g.rows_until <= g.until);
                        prop_assert!(g.rows_until <= now.plus(Seconds(6)));
                        if per_second.is_some() {
                            prop_assert_eq!(g.rows_until, now.plus(Seconds(1)));
                        }
                        *per_sec.entry(now.0).or_default() += i64::from(g.rows);
                        grants.push((e, g, now.0));
                        let out = p.status(now).in_flight;
                        prop_assert!(out <= cap, "{out} out over a cap of {cap}");
                    }
                    Ask::Wait { until, .. } => prop_assert!(until > now),
                    other => prop_assert!(false, "unexpected {other:?}"),
                },
                Op::Report(n, earlier, fail) => {
                    if grants.is_empty() {
                        continue;
                    }
                    let (e, g, second) = grants[n % grants.len()];
                    let result = if fail { down() } else { ok() };
                    let before = p.status(now).in_flight;
                    if let Reported::Counted { .. } =
                        p.report_batch(&e, g.lease, earlier, &result, now)
                    {
                        prop_assert_eq!(p.status(now).in_flight, before - 1);
                        if now.0 == second {
                            let used = (earlier + 1).min(g.rows);
                            *per_sec.entry(second).or_default() -= i64::from(g.rows - used);
                        }
                    }
                }
            }
            if let Some(limit) = per_second {
                for (second, rows) in &per_sec {
                    prop_assert!(
                        *rows <= i64::from(limit),
                        "{rows} rows in second {second} over {limit}"
                    );
                }
            }
            while p.poll_transition().is_some() {}
        }
    }
}

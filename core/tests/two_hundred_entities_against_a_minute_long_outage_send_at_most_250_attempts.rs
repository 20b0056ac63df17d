//! Issue 54's figure, as a deterministic model: 200 entities each have one row for a
//! destination that answers 503 for its first 60 s, then 200. Each entity retries on a
//! 1, 1, 2 s schedule (then every 2 s). Without protection every entity keeps trying; with
//! the default [`Settings`] the breaker admits at most 250 attempts while the destination
//! is down (the goal), never more than `max_in_flight` at once, and every row is
//! delivered, none dead-lettered (a dead letter fails the test).
//!
//! Time moves in whole seconds, each of 50 rounds (a destination answering in 20 ms): in
//! the first, every entity due asks; the attempts granted in a round go out together and
//! their results come back by its end; the waiters woken then ask in the next round.
//! `cargo test -p hookonce-core --test two_hundred_entities_against_a_minute_long_outage_send_at_most_250_attempts -- --nocapture`
//! prints the figures.

mod protect_support;

use hookonce_core::protect::{Ask, Protect, Settings};
use hookonce_core::retry::{Next, Schedule};
use hookonce_core::time::{Seconds, UnixSeconds};
use protect_support::*;

const ENTITIES: u32 = 200;
const DOWN_FOR: u64 = 60;
const NO_JITTER: u16 = 500;
/// Round trips in a second: the destination answers in 20 ms.
const ROUNDS: usize = 50;

#[derive(Clone, Copy, Debug)]
struct Row {
    attempts: u32,
    first: Option<UnixSeconds>,
    due: UnixSeconds,
    done: bool,
}

#[derive(Debug, Default)]
struct Figures {
    attempts_while_down: u32,
    attempts: u32,
    asks: u32,
    wakes: u32,
    peak_in_flight: usize,
    /// Seconds from the recovery until the last row was delivered.
    drained_after: u64,
}

fn simulate(mut protect: Option<Protect<u32>>) -> Figures {
    let schedule = Schedule::new(
        vec![Seconds(1), Seconds(1), Seconds(2)],
        Schedule::DEFAULT_WINDOW,
    )
    .unwrap();
    let mut rows = vec![
        Row {
            attempts: 0,
            first: None,
            due: T0,
            done: false,
        };
        ENTITIES as usize
    ];
    let mut f = Figures::default();
    for second in 0..3_600u64 {
        let now = at(second);
        let up = second >= DOWN_FOR;
        // Who is due asks, starting at a different entity each second.
        let mut asking: Vec<u32> = (0..ENTITIES)
            .map(|k| (k + (second as u32).wrapping_mul(37)) % ENTITIES)
            .filter(|&e| !rows[e as usize].done && rows[e as usize].due <= now)
            .collect();
        for _round in 0..ROUNDS {
            let mut sending = Vec::new();
            for e in asking.drain(..) {
                let row = &mut rows[e as usize];
                match protect.as_mut().map(|p| {
                    f.asks += 1;
                    p.ask(&e, now)
                }) {
                    None => sending.push((e, None)),
                    Some(Ask::Grant(g)) => sending.push((e, Some(g.lease))),
                    Some(Ask::Wait { until, .. }) => row.due = until,
                    Some(other) => panic!("unexpected {other:?}"),
                }
            }
            f.peak_in_flight = f.peak_in_flight.max(sending.len());
            for (e, lease) in sending {
                let row = &mut rows[e as usize];
                let result = if up { ok() } else { down() };
                f.attempts += 1;
                f.attempts_while_down += u32::from(!up);
                row.attempts += 1;
                let first = *row.first.get_or_insert(now);
                let start = match (&mut protect, lease) {
                    (Some(p), Some(lease)) => {
                        let _ = p.report(&e, lease, &result, now);
                        p.window_start(first, now)
                    }
                    _ => first,
                };
                match schedule.next(row.attempts, &result, start, now, NO_JITTER) {
                    Next::Delivered => {
                        row.done = true;
                        f.drained_after = second - DOWN_FOR;
                    }
                    Next::RetryAt(t) => row.due = t,
                    other => {
                        panic!("row of entity {e} ended {other:?}: none may die of the outage")
                    }
                }
            }
            // Waiters whose turn came are woken and ask in the next round.
            if let Some(p) = protect.as_mut() {
                asking.extend(std::iter::from_fn(|| p.poll_wake()));
                f.wakes += asking.len() as u32;
            }
        }
        if rows.iter().all(|r| r.done) {
            break;
        }
    }
    assert!(rows.iter().all(|r| r.done), "rows left after an hour");
    f
}

#[test]
fn the_breaker_cuts_the_attempts_sent_during_the_outage_to_at_most_250() {
    let unprotected = simulate(None);
    let protected = simulate(Some(Protect::new(Settings::default(), T0)));
    println!("{ENTITIES} entities, 1, 1, 2 s schedule, destination down for {DOWN_FOR} s");
    println!(
        "                     attempts while down  peak in flight  drained after  asks  wakes"
    );
    for (name, f) in [
        ("unprotected", &unprotected),
        ("breaker (defaults)", &protected),
    ] {
        println!(
            "{name:<20} {:>20} {:>15} {:>12} s {:>5} {:>6}",
            f.attempts_while_down, f.peak_in_flight, f.drained_after, f.asks, f.wakes
        );
    }
    assert!(unprotected.attempts_while_down > 2_500, "{unprotected:?}");
    assert!(protected.attempts_while_down <= 250, "{protected:?}");
    assert!(protected.peak_in_flight <= Settings::MAX_IN_FLIGHT as usize);
    // Every row delivered exactly once after the recovery, and nothing else spent.
    assert_eq!(
        protected.attempts - protected.attempts_while_down,
        ENTITIES,
        "{protected:?}"
    );
}

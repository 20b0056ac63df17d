//! What an isolate keeps of a destination its gate holds (`gate::Held`, issue 54): an open
//! breaker's wait until no later than the probe's time, so nothing the gate would say
//! differently is skipped (the probe goes to whoever asks from then); a pause for
//! `PAUSE_KEPT`; nothing for any other answer; and never an answer to an ask that carries
//! a lease's results.

mod protect_support;

use hookonce_core::gate::{Held, PAUSE_KEPT};
use hookonce_core::protect::{Ask, Circuit, Protect, Settings, WaitReason, SHUT_SPREAD};
use hookonce_core::time::{Seconds, UnixSeconds};
use protect_support::*;

#[test]
fn an_open_breakers_wait_is_kept_until_its_probe_time_and_spread_by_entity() {
    let s = Settings::builder().cool_down_secs(30).build().unwrap();
    let mut p: Protect<u32> = protect(s);
    for e in 0..Settings::FAILURE_THRESHOLD {
        let _ = attempt(&mut p, e, &down(), at(0));
    }
    let probe_at = p.status(at(0)).next_probe_at.unwrap();
    let answer = p.ask(&99, at(1));
    let Ask::Wait {
        until,
        reason: WaitReason::Open,
    } = answer
    else {
        panic!("expected an open breaker's wait, got {answer:?}");
    };
    assert!(
        until > probe_at,
        "kept until {until}, the probe at {probe_at}"
    );
    let kept = Held::of(&answer, at(1)).expect("an open breaker's wait is kept");
    // Up to its end, every entity of the isolate is told to wait, no earlier than it and
    // within the spread; the gate says the same (still open) at each instant before.
    let mut ends = std::collections::BTreeSet::new();
    for entity in 0..50 {
        let key = format!("card_{entity}");
        let Some(Ask::Wait {
            until: theirs,
            reason: WaitReason::Open,
        }) = kept.answer(&key, false, at(2))
        else {
            panic!("{key} asked the gate");
        };
        assert!(theirs >= until && theirs < until.plus(Seconds(u64::from(SHUT_SPREAD))));
        ends.insert(theirs);
    }
    assert!(
        ends.len() > 1,
        "the isolate's entities come back spread out"
    );
    // Kept only while the gate itself would still say open.
    let mut at_ = at(1);
    while kept.answer("card_1", false, at_).is_some() {
        assert_eq!(p.status(at_).circuit, Circuit::Open, "at {at_}");
        at_ = at_.plus(Seconds(1));
    }
    assert!(at_ <= probe_at, "kept until {at_}, the probe at {probe_at}");
    assert!(at_ >= at(20), "kept for most of the cool-down: until {at_}");
    assert_eq!(
        kept.answer("card_1", true, at(2)),
        None,
        "a report must reach the gate"
    );
}

#[test]
fn a_pause_is_kept_five_seconds_and_other_answers_not_at_all() {
    let now = UnixSeconds(1_000);
    let kept = Held::of(&Ask::Paused, now).expect("a pause is kept");
    assert_eq!(PAUSE_KEPT, Seconds(5));
    assert_eq!(
        kept.answer("card_1", false, now.plus(Seconds(4))),
        Some(Ask::Paused)
    );
    assert_eq!(kept.answer("card_1", false, now.plus(PAUSE_KEPT)), None);
    let mut p: Protect<u32> = protect(Settings::builder().max_in_flight(1).build().unwrap());
    let granted = p.ask(&1, at(0));
    assert!(matches!(granted, Ask::Grant(_)));
    let full = p.ask(&2, at(0));
    assert!(matches!(
        full,
        Ask::Wait {
            reason: WaitReason::Full,
            ..
        }
    ));
    for answer in [granted, full] {
        assert_eq!(Held::of(&answer, at(0)), None, "{answer:?}");
    }
}

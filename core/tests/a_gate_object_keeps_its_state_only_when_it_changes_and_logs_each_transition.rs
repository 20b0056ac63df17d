//! What a gate object does with each call (`gate::Gate`): it keeps its row first and only
//! when what must survive a restart changed, logs each transition once (and raises the
//! operational alert of a breaker that opens on failures), sets its alarm
//! only when none is set for the next deadline or earlier, and answers last. An object
//! started again from its row carries on, and its alarm alone turns an open breaker
//! half-open.

use hookonce_core::gate::{Answer, Call, Command, Gate, Request, Saved};
use hookonce_core::log::LogLevel;
use hookonce_core::protect::{Ask, Circuit, Settings};
use hookonce_core::retry::AttemptResult;
use hookonce_core::time::UnixSeconds;
use serde_json::Value;

const NAME: &str = "cockpit/default";

fn at(secs: i64) -> UnixSeconds {
    UnixSeconds(1_791_270_400 + secs)
}

fn call(settings: Settings, request: Request) -> Call {
    Call { settings, request }
}

/// `entity` asks, under `settings`.
fn ask(settings: Settings, entity: &str) -> Call {
    call(
        settings,
        Request::Ask {
            entity: entity.into(),
            rows: 1,
        },
    )
}

/// The commands' kinds in order, e.g. `["keep", "log paused", "answer"]`.
fn kinds(commands: &[Command]) -> Vec<String> {
    commands
        .iter()
        .map(|c| match c {
            Command::Keep(_) => "keep".to_owned(),
            Command::Log(r) => {
                let v: Value = serde_json::from_str(&r.line).unwrap();
                format!("log {}", v["state"].as_str().unwrap())
            }
            Command::SetAlarm(t) => format!("alarm {}", t.0 - at(0).0),
            Command::Wake(e) => format!("wake {e}"),
            Command::Raise(a) => format!("raise {}", a.kind()),
            Command::Answer(_) => "answer".to_owned(),
        })
        .collect()
}

fn answer(commands: &[Command]) -> Answer {
    match commands.last() {
        Some(Command::Answer(a)) => a.clone(),
        other => panic!("the last command is the answer, not {other:?}"),
    }
}

fn kept(commands: &[Command]) -> Saved {
    commands
        .iter()
        .find_map(|c| match c {
            Command::Keep(s) => Some(s.clone()),
            _ => None,
        })
        .expect("a keep")
}

#[test]
fn a_pause_is_kept_and_logged_once_and_a_second_pause_changes_nothing() {
    let s = Settings::default();
    let mut gate = Gate::new(None);
    let first = gate.handle(NAME, call(s, Request::Pause), at(0));
    assert_eq!(kinds(&first), ["keep", "log paused", "answer"]);
    let saved = kept(&first);
    assert_eq!(saved.name, NAME);
    assert_eq!(saved.durable.paused_since, Some(at(0)));
    let Answer::Status { status, changed } = answer(&first) else {
        panic!("a pause is answered with the status");
    };
    assert_eq!((status.state(), changed), ("paused", Some(true)));
    let Command::Log(record) = &first[1] else {
        unreachable!()
    };
    let line: Value = serde_json::from_str(&record.line).unwrap();
    assert_eq!(record.level, LogLevel::Info);
    assert_eq!(
        (&line["msg"], &line["source"], &line["destination"]),
        (&"destination".into(), &"cockpit".into(), &"default".into())
    );

    let again = gate.handle(NAME, call(s, Request::Pause), at(5));
    assert_eq!(kinds(&again), ["answer"]);
    assert!(matches!(
        answer(&again),
        Answer::Status {
            changed: Some(false),
            ..
        }
    ));
    let asked = gate.handle(
        NAME,
        call(
            s,
            Request::Ask {
                entity: "ch_1".into(),
                rows: 1,
            },
        ),
        at(6),
    );
    assert!(matches!(
        answer(&asked),
        Answer::Ask {
            ask: Ask::Paused,
            ..
        }
    ));
    let resumed = gate.handle(NAME, call(s, Request::Resume), at(7));
    assert_eq!(kinds(&resumed), ["keep", "log resumed", "answer"]);
    assert_eq!(kept(&resumed).durable.paused_since, None);
}

#[test]
fn grants_set_the_alarm_for_the_earliest_lease_only() {
    let s = Settings::default();
    let mut gate = Gate::new(None);
    let ask = |entity: &str| ask(s, entity);
    let first = gate.handle(NAME, ask("a"), at(0));
    // The first call writes the row a new destination starts from.
    assert_eq!(kinds(&first), ["keep", "alarm 30", "answer"]);
    let second = gate.handle(NAME, ask("b"), at(1));
    assert_eq!(kinds(&second), ["answer"], "an alarm is set for 30 already");
    let Answer::Ask {
        ask: Ask::Grant(g), ..
    } = answer(&second)
    else {
        panic!("b is granted");
    };
    let report = Request::Report {
        entity: "b".into(),
        lease: g.lease,
        earlier: 0,
        result: AttemptResult::Status {
            code: 204,
            retry_after: None,
        },
    };
    assert_eq!(
        kinds(&gate.handle(NAME, call(s, report), at(2))),
        ["answer"]
    );
}

#[test]
fn an_opening_is_kept_and_warned_and_a_restarted_object_turns_half_open_on_its_alarm() {
    let s = Settings::builder().failure_threshold(2).build().unwrap();
    let mut gate = Gate::new(None);
    let mut last = Vec::new();
    for entity in ["a", "b"] {
        let asked = gate.handle(
            NAME,
            call(
                s,
                Request::Ask {
                    entity: entity.into(),
                    rows: 1,
                },
            ),
            at(0),
        );
        let Answer::Ask {
            ask: Ask::Grant(g), ..
        } = answer(&asked)
        else {
            panic!("{entity} is granted");
        };
        let report = Request::Report {
            entity: entity.into(),
            lease: g.lease,
            earlier: 0,
            result: AttemptResult::Timeout,
        };
        last = gate.handle(NAME, call(s, report), at(1));
    }
    // Open at 1 with its probe at 31: the alarm set for the first lease's end (30) comes
    // first, so none is set.
    assert_eq!(
        kinds(&last),
        ["keep", "log opened", "raise destination.failing", "answer"]
    );
    let Command::Log(record) = &last[1] else {
        unreachable!()
    };
    assert_eq!(record.level, LogLevel::Warn);
    assert!(record.line.contains("\"probe_at\""), "{}", record.line);
    let saved = kept(&last);
    assert_eq!(saved.durable.circuit, Circuit::Open);

    // The object is evicted and starts again from its row; the alarm fires at 30, then 31.
    let mut again = Gate::new(Some(saved));
    assert_eq!(kinds(&again.alarm(at(30))), ["alarm 31"]);
    let fired = again.alarm(at(31));
    assert_eq!(kinds(&fired), ["keep", "log half-open"]);
    assert_eq!(kept(&fired).durable.circuit, Circuit::HalfOpen);
    assert!(
        Gate::new(None).alarm(at(31)).is_empty(),
        "nothing kept, nothing to do"
    );
}

#[test]
fn new_settings_from_a_caller_are_kept_and_run_with() {
    let mut gate = Gate::new(None);
    let s = Settings::default();
    let first = gate.handle(NAME, call(s, Request::Status), at(0));
    assert_eq!(kinds(&first), ["keep", "answer"]);
    let one = Settings::builder().max_in_flight(1).build().unwrap();
    let changed = gate.handle(NAME, call(one, Request::Status), at(1));
    assert_eq!(kept(&changed).settings, one);
    let Answer::Status { status, .. } = answer(&changed) else {
        panic!("a status");
    };
    assert_eq!(status.limit, 1);
}

#[test]
fn a_report_that_frees_a_slot_wakes_the_entity_waiting_for_it() {
    let s = Settings::builder().max_in_flight(1).build().unwrap();
    let mut gate = Gate::new(None);
    let ask = |entity: &str| ask(s, entity);
    let first = gate.handle(NAME, ask("a"), at(0));
    let Answer::Ask {
        ask: Ask::Grant(g), ..
    } = answer(&first)
    else {
        panic!("a is granted");
    };
    let waiting = gate.handle(NAME, ask("b"), at(0));
    assert!(matches!(
        answer(&waiting),
        Answer::Ask {
            ask: Ask::Wait { .. },
            ..
        }
    ));
    assert!(!kinds(&waiting).iter().any(|k| k.starts_with("wake")));
    let report = Request::Report {
        entity: "a".into(),
        lease: g.lease,
        earlier: 0,
        result: AttemptResult::Status {
            code: 204,
            retry_after: None,
        },
    };
    let kinds = kinds(&gate.handle(NAME, call(s, report), at(0)));
    assert!(kinds.contains(&"wake b".to_owned()), "{kinds:?}");
    assert_eq!(kinds.last().map(String::as_str), Some("answer"));
}

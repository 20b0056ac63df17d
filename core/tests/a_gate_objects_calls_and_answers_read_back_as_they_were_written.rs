//! The gate object's wire (`gate::Call`, `gate::Answer`): every request and every answer
//! reads back as it was written, the bytes are the documented JSON, and a call the object
//! cannot trust (not JSON, settings out of range) is refused, naming the field.

use hookonce_core::gate::{decode_settings, encode_settings, Answer, Call, CallError, Request};
use hookonce_core::protect::{Ask, LeaseId, Protect, Reported, Settings, SettingsError};
use hookonce_core::retry::AttemptResult;
use hookonce_core::time::{Seconds, UnixSeconds};
use serde_json::{json, Value};

fn results() -> Vec<AttemptResult> {
    vec![
        AttemptResult::Status {
            code: 503,
            retry_after: Some(Seconds(7)),
        },
        AttemptResult::Status {
            code: 200,
            retry_after: None,
        },
        AttemptResult::Timeout,
        AttemptResult::NetworkError,
        AttemptResult::Enqueued,
        AttemptResult::QueueError,
        AttemptResult::TooLarge { bytes: 140_000 },
        AttemptResult::Redirect {
            code: 302,
            location: Some("https://elsewhere.example/".into()),
        },
    ]
}

#[test]
fn every_request_reads_back_with_its_settings() {
    let settings = Settings::builder()
        .failure_threshold(3)
        .max_in_flight(4)
        .max_per_second(Some(20))
        .lease_secs(45)
        .build()
        .unwrap();
    let mut requests = vec![
        Request::Ask {
            entity: "ch_\u{e9}/\"1\"".into(),
            rows: 1,
        },
        Request::Pause,
        Request::Resume,
        Request::Status,
    ];
    requests.extend(results().into_iter().map(|result| Request::Renew {
        entity: "ch_2".into(),
        lease: LeaseId(12),
        earlier: 15,
        result,
        rows: 16,
    }));
    requests.extend(results().into_iter().map(|result| Request::Report {
        entity: "ch_1".into(),
        lease: LeaseId((1u64 << 53) - 1),
        earlier: 0,
        result,
    }));
    for request in requests {
        let call = Call { settings, request };
        assert_eq!(Call::decode(&call.encode()), Ok(call.clone()), "{call:?}");
    }
    assert_eq!(decode_settings(&encode_settings(&settings)), Ok(settings));
}

#[test]
fn a_call_is_the_documented_json() {
    let call = Call {
        settings: Settings::default(),
        request: Request::Ask {
            entity: "ch_1".into(),
            rows: 1,
        },
    };
    let bytes: Value = serde_json::from_slice(&call.encode()).unwrap();
    assert_eq!(
        bytes,
        json!({
            "settings": {
                "failure_threshold": 10, "failure_rate": 50, "min_attempts": 20,
                "window_secs": 60, "cool_down_secs": 30, "max_cool_down_secs": 600,
                "max_in_flight": 10, "max_per_second": null, "lease_secs": 30,
            },
            "request": { "op": "ask", "entity": "ch_1", "rows": 1 },
        })
    );
    let report = Call {
        request: Request::Report {
            entity: "ch_1".into(),
            lease: LeaseId(9),
            earlier: 0,
            result: AttemptResult::Status {
                code: 503,
                retry_after: None,
            },
        },
        ..call
    };
    let bytes: Value = serde_json::from_slice(&report.encode()).unwrap();
    assert_eq!(
        bytes["request"],
        json!({ "op": "report", "entity": "ch_1", "lease": 9, "earlier": 0,
                "result": { "kind": "status", "code": 503, "retry_after": null } })
    );
}

#[test]
fn a_call_or_a_grant_from_before_batches_covers_one_attempt() {
    let settings = Call {
        settings: Settings::default(),
        request: Request::Status,
    }
    .encode();
    let mut v: Value = serde_json::from_slice(&settings).unwrap();
    v["request"] = json!({ "op": "ask", "entity": "ch_1" });
    assert_eq!(
        Call::decode(v.to_string().as_bytes()).map(|c| c.request),
        Ok(Request::Ask {
            entity: "ch_1".into(),
            rows: 1
        })
    );
    v["request"] = json!({ "op": "renew", "entity": "ch_1", "lease": 3,
                           "result": { "kind": "timeout" } });
    assert_eq!(
        Call::decode(v.to_string().as_bytes()).map(|c| c.request),
        Ok(Request::Renew {
            entity: "ch_1".into(),
            lease: LeaseId(3),
            earlier: 0,
            result: AttemptResult::Timeout,
            rows: 1
        })
    );
    let old = json!({ "answer": "grant", "lease": 4, "until": 130, "probe": false,
                      "healthy_since": null });
    let Some(Answer::Ask {
        ask: Ask::Grant(g), ..
    }) = Answer::decode(old.to_string().as_bytes())
    else {
        panic!("an earlier grant reads back");
    };
    assert_eq!((g.rows, g.rows_until), (1, UnixSeconds(130)));
}

#[test]
fn every_answer_reads_back_and_a_status_is_the_admin_document() {
    let now = UnixSeconds(1_791_270_400);
    let mut p: Protect<&str> = Protect::new(Settings::default(), now);
    let grant = p.ask(&"a", now);
    assert!(matches!(grant, Ask::Grant(_)));
    assert!(p.pause(now));
    let paused = p.ask(&"b", now);
    let mut answers = vec![
        Answer::Ask {
            ask: grant,
            healthy_since: None,
        },
        Answer::Ask {
            ask: paused,
            healthy_since: Some(now),
        },
        Answer::Reported(Reported::Unknown),
        Answer::Reported(Reported::Counted { outage: true }),
        Answer::Status {
            status: p.status(now),
            changed: Some(true),
        },
        Answer::Status {
            status: p.status(now),
            changed: None,
        },
    ];
    // Every reason to wait, as the guard gives them.
    let one = Settings::builder()
        .max_in_flight(1)
        .max_per_second(Some(1))
        .build()
        .unwrap();
    let mut q: Protect<&str> = Protect::new(one, now);
    let Ask::Grant(g) = q.ask(&"a", now) else {
        panic!("a first ask is granted");
    };
    let asked = |ask| Answer::Ask {
        ask,
        healthy_since: Some(UnixSeconds(5)),
    };
    answers.push(asked(q.ask(&"b", now))); // full
    let _ = q.report(&"a", g.lease, &AttemptResult::Timeout, now);
    answers.push(asked(q.ask(&"c", now))); // rate
    for answer in answers {
        assert_eq!(Answer::decode(&answer.encode()), Some(answer.clone()));
    }

    let doc: Value = serde_json::from_slice(
        &Answer::Status {
            status: p.status(now),
            changed: Some(true),
        }
        .encode(),
    )
    .unwrap();
    assert_eq!(
        doc,
        json!({
            "state": "paused", "circuit": "closed", "since": now.0, "paused_since": now.0,
            "in_flight": 1, "limit": 10, "consecutive_failures": 0, "recent_attempts": 0,
            "recent_failures": 0, "next_probe_at": null, "cool_down_secs": 30,
            "healthy_since": null, "waiting": 0, "changed": true,
        })
    );
    assert_eq!(
        serde_json::from_slice::<Value>(
            &Answer::Ask {
                ask: Ask::Paused,
                healthy_since: None
            }
            .encode()
        )
        .unwrap(),
        json!({ "answer": "paused", "healthy_since": null })
    );
}

#[test]
fn a_call_that_is_not_json_or_has_settings_out_of_range_is_refused() {
    assert_eq!(Call::decode(b""), Err(CallError::Malformed));
    assert_eq!(
        Call::decode(br#"{"settings":{},"request":{"op":"ask","entity":"e"}}"#),
        Err(CallError::Malformed)
    );
    let good: Value = serde_json::from_slice(
        &Call {
            settings: Settings::default(),
            request: Request::Status,
        }
        .encode(),
    )
    .unwrap();
    let mut unknown_op = good.clone();
    unknown_op["request"] = json!({ "op": "drop_everything" });
    assert_eq!(
        Call::decode(unknown_op.to_string().as_bytes()),
        Err(CallError::Malformed)
    );
    let mut zero_cap = good;
    zero_cap["settings"]["max_in_flight"] = json!(0);
    let refused = Call::decode(zero_cap.to_string().as_bytes()).unwrap_err();
    assert_eq!(refused, CallError::Settings(SettingsError::MaxInFlight));
    assert!(refused.to_string().contains("max_in_flight"), "{refused}");
    assert_eq!(Answer::decode(b"{\"answer\":\"maybe\"}"), None);
}

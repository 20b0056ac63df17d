//! Idempotency-Keys are scoped to the publish token: the same key and body under another
//! token is a new message. Without a valid token nothing is published (401).

use std::time::Duration;

use hookonce_e2e::origin::Origin;
use hookonce_e2e::publish;
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn the_same_key_under_another_token_is_another_message() {
    let o = Origin::start();
    let w = Worker::builder()
        .secret("HOOKONCE_PUBLISH_TOKENS", "token-one, token-two")
        .start();
    let body = publish::body(&o.url("/inbox"), "order.paid", json!({ "order": 1 }));
    let key = publish::sf_string("shared-key");

    let one = publish::post(&w, Some("token-one"), Some(&key), &body);
    assert_eq!(one.status, 202, "{one}");
    let two = publish::post(&w, Some("token-two"), Some(&key), &body);
    assert_eq!(two.status, 202, "{two}");
    assert_eq!(
        two.header("idempotent-replayed"),
        None,
        "not a replay: {two}"
    );
    let (id1, id2) = (
        one.json()["message_id"].clone(),
        two.json()["message_id"].clone(),
    );
    assert_ne!(id1, id2, "two messages");

    let again = publish::post(&w, Some("token-two"), Some(&key), &body);
    assert_eq!(again.body, two.body);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));

    for token in [None, Some("token-three"), Some("")] {
        let r = publish::post(&w, token, Some(&key), &body);
        assert_eq!(r.status, 401, "{token:?}: {r}");
    }

    for token in ["token-one", "token-two"] {
        publish::wait_settled(&w, token, &key, Duration::from_secs(20));
    }
    let reqs = o.requests();
    let mut ids: Vec<String> = o
        .requests()
        .iter()
        .map(|r| r.must("webhook-id").to_string())
        .collect();
    ids.sort();
    let mut want = vec![
        id1.as_str().unwrap().to_string(),
        id2.as_str().unwrap().to_string(),
    ];
    want.sort();
    assert_eq!(ids, want, "one delivery per token: {reqs:?}");
}

#[test]
fn one_key_published_at_once_under_two_tokens_gets_two_message_ids() {
    let w = Worker::builder()
        .secret("HOOKONCE_PUBLISH_TOKENS", "token-one,token-two")
        .start();
    // Nothing listens on port 9: delivery does not matter here, only the receipts.
    let body = publish::body(
        "http://127.0.0.1:9/none",
        "order.paid",
        json!({ "order": 1 }),
    );
    for i in 0..20 {
        let key = publish::sf_string(&format!("simultaneous-{i}"));
        let barrier = std::sync::Barrier::new(2);
        let ids: Vec<serde_json::Value> = std::thread::scope(|s| {
            let handles: Vec<_> = ["token-one", "token-two"]
                .into_iter()
                .map(|token| {
                    let (w, barrier, key, body) = (&w, &barrier, &key, &body);
                    s.spawn(move || {
                        barrier.wait();
                        let r = publish::post(w, Some(token), Some(key), body);
                        assert_eq!(r.status, 202, "{r}");
                        r.json()["message_id"].clone()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_ne!(
            ids[0], ids[1],
            "two messages accepted in the same millisecond share a message id (webhook-id)"
        );
    }
}

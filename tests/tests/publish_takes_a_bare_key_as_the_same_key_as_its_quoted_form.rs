//! Clients send Idempotency-Key bare (`5f1c…`, as Stripe's SDKs and most HTTP tools do) or
//! quoted (`"5f1c…"`, as the draft writes it): both are accepted and are the same key, so a
//! retry in either form replays the original receipt, and another body under either form
//! is a 422.

use hookonce_e2e::events::assert_problem;
use hookonce_e2e::origin::Origin;
use hookonce_e2e::publish;
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn a_bare_key_and_its_quoted_form_are_one_key() {
    let o = Origin::start();
    let w = Worker::start();
    let token = publish::token();
    let body = publish::body(&o.url("/inbox"), "order.paid", json!({ "order": 11 }));
    // The glossary's own example, unquoted.
    let key = "5f1c2c9a-6f3e-4c1d-9b0a-2b7e1f8c4d11";

    let first = publish::post(&w, Some(&token), Some(key), &body);
    assert_eq!(first.status, 202, "{first}");
    assert_eq!(first.json()["idempotency_key"], key, "{first}");

    for form in [key.to_owned(), publish::sf_string(key)] {
        let again = publish::post(&w, Some(&token), Some(&form), &body);
        assert_eq!(again.status, 202, "{form}: {again}");
        assert_eq!(again.body, first.body, "{form}: the original receipt");
        assert_eq!(again.header("idempotent-replayed"), Some("true"), "{form}");
    }

    let other = publish::body(&o.url("/inbox"), "order.paid", json!({ "order": 12 }));
    for form in [key.to_owned(), publish::sf_string(key)] {
        let r = publish::post(&w, Some(&token), Some(&form), &other);
        assert_problem(&r, 422, "idempotency-key-reused");
    }
}

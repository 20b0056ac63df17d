//! `hookonce listen` flags an Idempotency-Key it has seen before, refuses a forged
//! delivery with 401 without counting its key, and passes verified events on to the
//! application with `--forward-to`.

mod common;

use std::time::Duration;

use common::{listen_address, Running};
use hookonce_e2e::origin::Origin;
use serde_json::Value;

const SECRET: &str = "whsec_CVHbIk2dr2WGJQt+GtI9aPv40fJj6c7VgJDfaj3hJc4=";

fn post(url: &str, key: &str, body: &[u8], secret: &str) -> u16 {
    let mut headers =
        hookonce_e2e::standard_webhooks_headers(secret, key, hookonce_e2e::unix_now(), body);
    headers.push(("idempotency-key".into(), format!("\"{key}\"")));
    headers.push(("hookonce-attempt".into(), "1".into()));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut req = agent.post(url);
    for (k, v) in &headers {
        req = req.header(k, v);
    }
    req.send(body).expect("listen answers").status().as_u16()
}

#[test]
fn a_repeated_key_is_flagged_and_a_forged_one_is_refused() {
    let app = Origin::start();
    let listen = Running::start(&[
        "listen",
        "--port",
        "0",
        "--secret",
        SECRET,
        "--json",
        "--forward-to",
        &app.url("/hooks"),
    ]);
    let url = listen_address(&listen);
    let next = || listen.next_json(Duration::from_secs(10));
    let body = br#"{"id":"evt_k","type":"item.noticed"}"#;

    assert_eq!(post(&url, "evt_k", body, SECRET), 200);
    let first = next();
    assert_eq!(
        (&first["signature"], &first["seen_before"]),
        (&"verified".into(), &false.into()),
        "{first}"
    );
    assert_eq!(first["forwarded_status"], 200, "{first}");

    let forged = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    assert_eq!(post(&url, "evt_k", body, forged), 401);
    let bad = next();
    assert_eq!(bad["signature"], "invalid", "{bad}");
    assert_eq!(bad["reason"], "no signature matches", "{bad}");
    assert_eq!(
        bad["forwarded_status"],
        Value::Null,
        "a forged event is not passed on"
    );

    assert_eq!(post(&url, "evt_k", body, SECRET), 200);
    let again = next();
    assert_eq!(
        (&again["seen_before"], &again["times_seen"]),
        (&true.into(), &2.into()),
        "{again}"
    );

    let reqs = app.requests();
    assert_eq!(reqs.len(), 2, "the application got the two verified copies");
    assert!(reqs.iter().all(|r| r.path == "/hooks" && r.body == body));
    assert_eq!(app.keys(), ["evt_k", "evt_k"]);
}

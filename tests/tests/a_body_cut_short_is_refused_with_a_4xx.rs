//! A request body that cannot be read whole (the client declared more than it sent and
//! hung up, or sent a malformed chunked body) is the client's fault: a 4xx problem, not a
//! 500 `internal`. Found by the hostile-inputs suite.

use hookonce_e2e::events::{at, cardholder_created, cockpit_secret};
use hookonce_e2e::raw::RawRequest;
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{standard_webhooks_headers, unix_now};

fn signed(id: &str) -> RawRequest {
    let body = cardholder_created(id, "ch_cut", &at(0), "Ada")
        .to_string()
        .into_bytes();
    let headers = standard_webhooks_headers(&cockpit_secret(), id, unix_now(), &body);
    RawRequest {
        method: "POST".into(),
        path: "/webhooks/cockpit".into(),
        headers: headers
            .into_iter()
            .map(|(k, v)| (k, v.into_bytes()))
            .collect(),
        body,
        ..RawRequest::default()
    }
}

#[test]
fn a_body_cut_short_is_refused_with_a_4xx() {
    let w = Workerd::builder().start();
    let mut truncated = signed("evt_cut_1");
    truncated.content_length = Some("100000".into());
    truncated.half_close = true;
    let mut chunked = signed("evt_cut_2");
    chunked
        .headers
        .push(("transfer-encoding".into(), b"chunked".to_vec()));
    chunked.body = b"zz\r\nabc\r\n".to_vec();
    chunked.half_close = true;
    for (what, req) in [("truncated", truncated), ("malformed chunked", chunked)] {
        let r = req.send(w.addr()).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            (400..500).contains(&r.status),
            "{what}: a body that cannot be read is a 4xx, got {r}"
        );
        assert_eq!(
            r.header("content-type"),
            Some("application/problem+json"),
            "{what}: {r}"
        );
    }
}

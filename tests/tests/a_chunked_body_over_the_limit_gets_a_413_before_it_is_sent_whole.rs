//! A body sent chunked (no `Content-Length`) is counted while it is read: once it passes
//! the source's `max_body_bytes` the answer is a 413 problem at once, while the client is
//! still sending, so the worker never holds more than the limit (issue 48). A chunked body
//! within the limit is read whole and applied.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use hookonce_e2e::events::{at, cardholder_created, cockpit_secret, COCKPIT};
use hookonce_e2e::raw::{self, parse_response, RawRequest};
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{standard_webhooks_headers, unix_now, wrangler_sources};
use serde_json::{json, Value};

/// A signed request for `source` whose body is sent chunked, `chunk` bytes at a time.
fn chunked(source: &str, id: &str, body: &[u8], chunk: usize) -> RawRequest {
    let mut headers: Vec<(String, Vec<u8>)> =
        standard_webhooks_headers(&cockpit_secret(), id, unix_now(), body)
            .into_iter()
            .map(|(k, v)| (k, v.into_bytes()))
            .collect();
    headers.push(("transfer-encoding".into(), b"chunked".to_vec()));
    RawRequest {
        method: "POST".into(),
        path: format!("/webhooks/{source}"),
        headers,
        body: raw::chunked(body, chunk),
        ..RawRequest::default()
    }
}

fn assert_413(r: &hookonce_e2e::Resp, limit: usize) {
    assert_eq!(r.status, 413, "{r}");
    assert_eq!(
        r.header("content-type"),
        Some("application/problem+json"),
        "{r}"
    );
    let doc: Value = serde_json::from_slice(&r.body).expect("a problem document");
    assert_eq!(
        doc["type"], "https://hookonce.dev/problems/body-too-large",
        "{doc}"
    );
    assert!(
        doc["detail"]
            .as_str()
            .unwrap_or_default()
            .contains(&limit.to_string()),
        "the detail names the limit: {doc}"
    );
}

#[test]
fn a_chunked_body_over_the_limit_gets_a_413_before_it_is_sent_whole() {
    let mut sources = wrangler_sources();
    let mut small = sources[COCKPIT].clone();
    small["max_body_bytes"] = json!(4096);
    sources["small"] = small;
    let w = Workerd::builder().sources(sources).start();

    // Within the limit, chunked: read whole and applied.
    let ok = cardholder_created("evt_chunked_ok", "ch_chunked", &at(0), "Ada").to_string();
    let r = chunked("small", "evt_chunked_ok", ok.as_bytes(), 7)
        .send(w.addr())
        .expect("an answer");
    assert_eq!(r.status, 200, "{r}");

    // Over the default 1 MiB, chunked, sent whole: 413.
    let big = vec![b' '; (1 << 20) + 1];
    let r = chunked(COCKPIT, "evt_chunked_big", &big, 64 * 1024)
        .send(w.addr())
        .expect("an answer");
    assert_413(&r, 1 << 20);

    // Over 4096 bytes and never finished: the 413 comes while the body is still open, so
    // the worker stopped reading at the limit instead of waiting for the end.
    let req = chunked("small", "evt_chunked_open", &[b' '; 8192], 1024);
    let wire = req.to_bytes();
    let open = &wire[..wire.len() - b"0\r\n\r\n".len()];
    let mut conn = TcpStream::connect(w.addr()).expect("connect");
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    conn.write_all(open).expect("send the unfinished body");
    let started = Instant::now();
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let r = loop {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => break parse_response(&raw),
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
        if let Ok(r) = parse_response(&raw) {
            if r.header("content-length").and_then(|l| l.parse().ok()) == Some(r.body.len()) {
                break Ok(r);
            }
        }
    };
    let r = r.unwrap_or_else(|e| {
        panic!(
            "no answer while the body was open ({:?}): the body is read whole before the \
             limit applies: {e}",
            started.elapsed()
        )
    });
    assert_413(&r, 4096);

    // The worker is fine afterwards.
    let next = cardholder_created("evt_chunked_next", "ch_chunked", &at(1), "Grace").to_string();
    let r = chunked("small", "evt_chunked_next", next.as_bytes(), 100)
        .send(w.addr())
        .expect("an answer");
    assert_eq!(r.status, 200, "{r}");
}

//! Errors say what is wrong and exit 2: a secret in the wrong format, a URL nobody
//! listens on, a wrong admin token (401), a missing one, a source the worker does not have.

mod common;

use std::net::TcpListener;

use common::{assert_output, hookonce};
use hookonce_e2e::events::cockpit_secret;

fn fails_with(args: &[&str], needle: &str) {
    let out = hookonce(args, b"{}");
    assert_output(&out, 2, &out.stderr, needle);
}

#[test]
fn a_bad_secret_format_is_named() {
    fails_with(
        &["sign", "--scheme", "standard-webhooks", "--secret", "whsec_%%%"],
        "--secret is not a standard-webhooks secret (malformed secret): expected whsec_ followed by the base64",
    );
    fails_with(
        &[
            "send",
            "http://127.0.0.1:1",
            "--source",
            "cockpit",
            "--secret",
            "nope!",
            "--fixture",
            "push",
        ],
        "is not a standard-webhooks secret",
    );
}

#[test]
fn an_unreachable_url_is_named() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    fails_with(
        &[
            "send",
            &url,
            "--source",
            "cockpit",
            "--secret",
            &cockpit_secret(),
            "--fixture",
            "push",
        ],
        &format!("cannot reach {url}/webhooks/cockpit"),
    );
    fails_with(
        &[
            "replay", &url, "--source", "cockpit", "--event", "evt_1", "--token", "t",
        ],
        &format!("cannot reach {url}/admin/replay/cockpit/evt_1"),
    );
    fails_with(
        &[
            "check",
            "localhost:8787",
            "--source",
            "s",
            "--entity",
            "e",
            "--token",
            "t",
        ],
        "is not a URL",
    );
}

#[test]
fn a_wrong_or_missing_admin_token_is_a_clear_401() {
    let w = hookonce_e2e::shared_worker();
    fails_with(
        &[
            "check", &w.base, "--source", "cockpit", "--entity", "ch_1", "--token", "wrong",
        ],
        "HTTP 401 unauthorized",
    );
    fails_with(
        &["replay", &w.base, "--source", "cockpit", "--event", "evt_1"],
        "pass --token or set HOOKONCE_ADMIN_TOKEN",
    );
}

#[test]
fn stats_of_an_unknown_source_or_with_a_wrong_token_fails_saying_which() {
    let w = hookonce_e2e::shared_worker();
    let token = hookonce_e2e::events::ADMIN_TOKEN;
    fails_with(
        &["stats", &w.base, "--source", "cockpt", "--token", token],
        "this hookonce has no source \"cockpt\"; its sources are: cockpit",
    );
    fails_with(
        &["stats", &w.base, "--source", "cockpit", "--token", "wrong"],
        "/metrics: HTTP 401 unauthorized",
    );
    fails_with(
        &["stats", &w.base, "--source", "cockpit", "--watch", "0"],
        "is not a number of seconds from 1 to 86400",
    );
}

#[test]
fn a_delivery_refused_with_401_fails_the_send() {
    let w = hookonce_e2e::shared_worker();
    let other = "whsec_CVHbIk2dr2WGJQt+GtI9aPv40fJj6c7VgJDfaj3hJc4=";
    let out = hookonce(
        &[
            "send",
            &w.base,
            "--source",
            "cockpit",
            "--secret",
            other,
            "--fixture",
            "cardholder.created",
        ],
        b"",
    );
    assert_output(
        &out,
        1,
        &out.stdout,
        "HTTP 401 invalid-signature: no signature matches",
    );
    assert_output(
        &out,
        1,
        &out.stdout,
        "0 applied, 0 duplicate, 0 stale, 1 errors",
    );
}

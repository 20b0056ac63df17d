//! The outbound guard: without `HOOKONCE_ALLOW_PRIVATE_DESTINATIONS`, a publish to plain
//! `http://`, to a loopback, private, link-local or metadata address (in any of the forms
//! a URL parser reads as one) or to `localhost` is a 400 problem that names the rule, and a
//! configured forwarding URL of that kind fails the configuration. A token with a list of
//! hosts publishes only to those.

use std::time::Duration;

use hookonce_e2e::events::{admin_get, assert_problem, COCKPIT};
use hookonce_e2e::origin::Origin;
use hookonce_e2e::{publish, wrangler_sources, Worker};
use serde_json::json;

const GUARD: &str = "HOOKONCE_ALLOW_PRIVATE_DESTINATIONS";

fn refused(r: &hookonce_e2e::Resp, rule: &str) {
    let detail = assert_problem(r, 400, "destination-refused");
    assert_eq!(r.json()["rule"], rule, "{r}");
    assert!(detail.contains(rule), "{r}");
}

#[test]
fn publish_refuses_what_the_guard_forbids() {
    let w = Worker::builder().without_secret(GUARD).start();
    for (n, (url, rule)) in [
        ("http://app.example.com/in", "https-only"),
        ("https://127.0.0.1/in", "no-private-destinations"),
        ("https://2130706433/in", "no-private-destinations"),
        ("https://0x7f.1/in", "no-private-destinations"),
        ("https://10.0.0.8/in", "no-private-destinations"),
        (
            "https://169.254.169.254/latest/meta-data",
            "no-private-destinations",
        ),
        ("https://[::ffff:127.0.0.1]/in", "no-private-destinations"),
        ("https://[fd00::1]/in", "no-private-destinations"),
        ("https://localhost./in", "no-private-destinations"),
        (
            "https://metadata.google.internal/",
            "no-private-destinations",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let body = publish::body(url, "order.paid", json!({ "n": n }));
        let r = publish::post(&w, Some(&publish::token()), Some(&format!("g-{n}")), &body);
        refused(&r, rule);
    }
}

#[test]
fn a_token_with_a_list_of_hosts_publishes_only_to_them() {
    let o = Origin::start();
    let w = Worker::builder()
        .secret(
            "HOOKONCE_PUBLISH_TOKENS",
            "open-token, listed-token 127.0.0.1 *.apps.example",
        )
        .start();
    let send = |token: &str, key: &str, url: &str| {
        let body = publish::body(url, "order.paid", json!({ "key": key }));
        publish::post(&w, Some(token), Some(key), &body)
    };
    let listed = send("listed-token", "l-1", &o.url("/in"));
    assert_eq!(listed.status, 202, "{listed}");
    let elsewhere = o.url("/in").replace("127.0.0.1", "localhost");
    refused(&send("listed-token", "l-2", &elsewhere), "token-allow-list");
    assert_eq!(send("open-token", "o-1", &elsewhere).status, 202);
    let got = o.wait_requests(2, Duration::from_secs(15));
    assert_eq!(got.len(), 2, "{got:?}");
}

#[test]
fn a_configured_private_url_fails_the_configuration_unless_the_operator_allows_it() {
    let mut sources = wrangler_sources();
    sources[COCKPIT]["forward"] = json!({ "url": "http://127.0.0.1:9/hooks" });
    let strict = Worker::builder()
        .without_secret(GUARD)
        .var("HOOKONCE_SOURCES", sources.clone())
        .start();
    let r = strict.post(
        "/webhooks/cockpit",
        &[("content-type", "application/json")],
        "{}",
    );
    assert_problem(&r, 500, "configuration");
    let r = admin_get(&strict, "/entities/cockpit/x");
    let detail = assert_problem(&r, 500, "configuration");
    assert!(detail.contains("cockpit.forward.url"), "{r}");
    let allowed = Worker::builder().var("HOOKONCE_SOURCES", sources).start();
    let r = allowed.post(
        "/webhooks/cockpit",
        &[("content-type", "application/json")],
        "{}",
    );
    assert_eq!(
        r.status, 401,
        "configured, so the unsigned delivery is refused: {r}"
    );
}

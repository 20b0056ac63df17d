//! The headers `hookonce sign` prints verify with the published `standardwebhooks` Python
//! package (PyPI; `scripts/bootstrap.sh` installs it); with a tampered body they do not.

mod common;

use common::{hookonce, json_of};
use hookonce_e2e::oracle::standardwebhooks_says;

#[test]
fn signed_headers_verify_with_the_published_implementation() {
    let secret = hookonce_e2e::dev_var("HOOKONCE_FORWARD_SECRET");
    let body = br#"{"id":"evt_sign","type":"cardholder.created","data":{"object":{"id":"ch_1"}}}
"#;
    let sign = |extra: &[&str]| {
        let args = [
            "sign",
            "--scheme",
            "standard-webhooks",
            "--secret",
            &secret,
            "--id",
            "evt_sign",
        ];
        hookonce(&[&args[..], extra].concat(), body)
    };
    // No --timestamp: the library checks it against its own clock.
    let headers = json_of(&sign(&["--json", "-"]), 0);
    assert_eq!(headers["webhook-id"], "evt_sign", "{headers}");
    assert_eq!(standardwebhooks_says(&secret, &headers, body), "verified");

    let mut tampered = body.to_vec();
    tampered.pop(); // the trailing newline is signed too
    assert!(standardwebhooks_says(&secret, &headers, &tampered).starts_with("rejected"));
    let other = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    assert!(standardwebhooks_says(other, &headers, body).starts_with("rejected"));

    // The headers format carries the same values, one `name: value` a line.
    let out = sign(&["--timestamp", "1791270400"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..2],
        ["webhook-id: evt_sign", "webhook-timestamp: 1791270400"],
        "{text}"
    );
    assert!(lines[2].starts_with("webhook-signature: v1,"), "{text}");
}

//! During a destination's key rotation, hookonce signs each forwarded event with both of its
//! secrets in one `webhook-signature` header. The published `standardwebhooks` Python
//! package (PyPI; `scripts/bootstrap.sh` installs it) verifies those headers with either
//! secret alone, and refuses them with any other. Native: core's headers, no worker.

use hookonce_core::forward::{self, Outgoing};
use hookonce_core::time::UnixSeconds;
use hookonce_core::verify::Scheme;
use hookonce_e2e::{oracle, unix_now};
use serde_json::{Map, Value};

const NEW: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OLD: &str = "whsec_CVHbIk2dr2WGJQt+GtI9aPv40fJj6c7VgJDfaj3hJc4=";
const OTHER: &str = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

#[test]
fn either_secret_verifies_alone_and_a_third_does_not() {
    let secrets = [NEW, OLD].map(|s| Scheme::StandardWebhooks.parse_secret(s).unwrap());
    let body = br#"{"id":"evt_rot_1","type":"invoice.paid","data":{"object":{"id":"in_1"}}}"#;
    let out = Outgoing {
        source: "stripe",
        event_id: "evt_rot_1",
        attempt: 1,
        body,
    };
    // The package checks the timestamp against its own clock.
    let headers = forward::headers(&secrets, &out, UnixSeconds(unix_now()));
    let headers: Value = headers
        .into_iter()
        .map(|(k, v)| (k.to_owned(), Value::String(v)))
        .collect::<Map<_, _>>()
        .into();

    for secret in [NEW, OLD] {
        assert_eq!(
            oracle::standardwebhooks_says(secret, &headers, body),
            "verified",
            "{secret} alone: {headers}"
        );
    }
    assert!(
        oracle::standardwebhooks_says(OTHER, &headers, body).starts_with("rejected"),
        "a third secret must not verify: {headers}"
    );
}

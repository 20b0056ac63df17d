//! An unknown scheme preset, an HMAC template with an unknown placeholder, or an unknown
//! signature encoding is a configuration error naming the field in the log: every request
//! for the source gets the 500 `configuration` problem, and nothing is accepted unsigned.

use hookonce_e2e::events::assert_misconfigured;
use hookonce_e2e::origin;
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn each_bad_signature_description_refuses_every_request_naming_the_field() {
    let hmac = |spec: serde_json::Value| json!({ "acme": { "scheme": "hmac", "secrets": ["COCKPIT_SECRET"], "hmac": spec } });
    for (sources, field) in [
        (
            json!({ "acme": { "scheme": "paypal", "secrets": ["COCKPIT_SECRET"] } }),
            "acme.scheme",
        ),
        (
            hmac(json!({ "header": "x-acme-signature", "signed": "{ts}.{body}" })),
            "acme.hmac.signed",
        ),
        (
            hmac(json!({ "header": "x-acme-signature", "encoding": "hex64" })),
            "acme.hmac.encoding",
        ),
    ] {
        let w = Worker::builder().var("HOOKONCE_SOURCES", sources).start();
        let body = origin::event_body("evt_bad_cfg", "item.noticed", "ent_bad_cfg", 0);
        let signed = origin::deliver_body(&w, "evt_bad_cfg", &body);
        let unsigned = w.post(
            "/webhooks/acme",
            &[("content-type", "application/json")],
            &body,
        );
        for r in [signed, unsigned] {
            assert_misconfigured(&w, &r, &[format!("{field}: ").as_str()]);
        }
    }
}

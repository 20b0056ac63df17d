//! A destination's `secrets` binding that is not set, or holds no Standard Webhooks secret,
//! is a configuration error naming `<source>.destinations.<name>.secrets` and the binding
//! (to the admin and in the log): every request gets the 500 `configuration` problem, and
//! nothing is accepted, signed or not.

use hookonce_e2e::events::assert_problem;
use hookonce_e2e::origin::{self, sources_to};
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn a_missing_or_invalid_signing_secret_refuses_every_request_naming_the_field() {
    let field = "acme.destinations.billing.secrets";
    for (value, why) in [(None, "is not set"), (Some("not-a-secret"), "whsec_")] {
        let destinations = json!({ "billing": {
            "url": "https://billing.example/hooks",
            "secrets": ["BILLING_SECRET_NEW", "HOOKONCE_FORWARD_SECRET"],
        }});
        let builder = Worker::builder().var("HOOKONCE_SOURCES", sources_to(destinations));
        let w = match value {
            Some(v) => builder.secret("BILLING_SECRET_NEW", v),
            None => builder,
        }
        .start();
        origin::assert_accepts_nothing(&w, &[field, "BILLING_SECRET_NEW"]);
        let detail = assert_problem(&origin::entity(&w, "ent_cfg"), 500, "configuration");
        assert!(
            detail.starts_with(&format!("{field}: binding BILLING_SECRET_NEW"))
                && detail.contains(why),
            "{detail}"
        );
    }
}

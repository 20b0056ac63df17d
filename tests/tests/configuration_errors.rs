//! A misconfigured hookonce refuses everything with a clear 500 naming the problem, and
//! never falls back to accepting unsigned deliveries.

use hookonce_e2e::events::*;
use hookonce_e2e::{wrangler_sources, Worker};

#[test]
fn a_bad_source_field_is_a_500_naming_it_and_nothing_is_accepted() {
    let mut sources = wrangler_sources();
    sources[COCKPIT]["tolerance_secs"] = "soon".into();
    let w = Worker::builder().var("HOOKONCE_SOURCES", sources).start();

    let ev = cardholder_created(&new_id("evt"), "ch_cfg", &at(0), "Ada");
    let signed = deliver(&w, &ev);
    let detail = assert_problem(&signed, 500, "configuration");
    assert!(detail.contains("cockpit.tolerance_secs"), "{signed}");

    let unsigned = w.post(
        "/webhooks/cockpit",
        &[("content-type", "application/json")],
        ev.to_string(),
    );
    let detail = assert_problem(&unsigned, 500, "configuration");
    assert!(detail.contains("cockpit.tolerance_secs"), "{unsigned}");

    // Every route that needs the configuration says the same, whatever else is wrong.
    let no_headers: &[(&str, &str)] = &[];
    for r in [
        entity(&w, "ch_cfg"),
        admin_get(&w, "/events/cockpit/evt_1?entity=ch_cfg"),
        w.post("/webhooks/unknown", no_headers, "{}"),
        w.get("/entities/cockpit/ch_cfg"),
        w.post("/v1/messages", no_headers, "{}"),
    ] {
        let detail = assert_problem(&r, 500, "configuration");
        assert!(detail.contains("cockpit.tolerance_secs"), "{r}");
    }
}

#[test]
fn missing_secrets_are_a_500_naming_the_bindings() {
    let w = Worker::builder().without_secret("COCKPIT_SECRET").start();
    let ev = cardholder_created(&new_id("evt"), "ch_cfg", &at(0), "Ada");
    for r in [
        deliver(&w, &ev),
        w.post(
            "/webhooks/cockpit",
            &[("content-type", "application/json")],
            ev.to_string(),
        ),
    ] {
        let detail = assert_problem(&r, 500, "configuration");
        assert!(
            detail.contains("COCKPIT_SECRET") && detail.contains("COCKPIT_SECRET_PREVIOUS"),
            "{r}"
        );
    }
}

#[test]
fn sources_or_a_feed_variable_that_is_not_a_json_object_is_a_500_naming_it() {
    let ev = cardholder_created(&new_id("evt"), "ch_cfg", &at(0), "Ada");
    for (name, value, says) in [
        (
            "HOOKONCE_SOURCES",
            serde_json::json!([COCKPIT]),
            "sources: expected an object",
        ),
        (
            "HOOKONCE_FEED",
            serde_json::json!("often"),
            "HOOKONCE_FEED: expected an object",
        ),
    ] {
        let w = Worker::builder().var(name, value).start();
        let r = deliver(&w, &ev);
        let detail = assert_problem(&r, 500, "configuration");
        assert!(detail.contains(says), "{name}: {r}");
    }
}

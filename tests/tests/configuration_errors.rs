//! A misconfigured hookonce refuses everything with a 500 `configuration` problem, and
//! never falls back to accepting unsigned deliveries. The problem's field and the bindings
//! it names are in the log and in the admin's answers only: anyone else is told that the
//! deployment is misconfigured (issue 48).

use hookonce_e2e::events::*;
use hookonce_e2e::{wrangler_sources, Worker};

#[test]
fn a_bad_source_field_is_a_500_naming_it_to_the_admin_and_nothing_is_accepted() {
    let mut sources = wrangler_sources();
    sources[COCKPIT]["tolerance_secs"] = "soon".into();
    let w = Worker::builder().var("HOOKONCE_SOURCES", sources).start();
    let field = ["cockpit.tolerance_secs"];

    let ev = cardholder_created(&new_id("evt"), "ch_cfg", &at(0), "Ada");
    let signed = deliver(&w, &ev);
    assert_misconfigured(&w, &signed, &field);

    let unsigned = w.post(
        "/webhooks/cockpit",
        &[("content-type", "application/json")],
        ev.to_string(),
    );
    assert_misconfigured(&w, &unsigned, &field);

    // Every route that needs the configuration says the same, whatever else is wrong; the
    // admin's answers name the field.
    for r in [
        entity(&w, "ch_cfg"),
        admin_get(&w, "/events/cockpit/evt_1?entity=ch_cfg"),
    ] {
        let detail = assert_problem(&r, 500, "configuration");
        assert!(detail.contains("cockpit.tolerance_secs"), "{r}");
    }
    let no_headers: &[(&str, &str)] = &[];
    for r in [
        w.post("/webhooks/unknown", no_headers, "{}"),
        w.get("/entities/cockpit/ch_cfg"),
        w.request(
            "GET",
            "/entities/cockpit/ch_cfg",
            &[("authorization", "Bearer wrong")],
            None,
        ),
        w.post("/v1/messages", no_headers, "{}"),
    ] {
        assert_misconfigured(&w, &r, &field);
    }
}

#[test]
fn missing_secrets_are_a_500_that_names_the_bindings_only_in_the_log() {
    let w = Worker::builder().without_secret("COCKPIT_SECRET").start();
    let ev = cardholder_created(&new_id("evt"), "ch_cfg", &at(0), "Ada");
    let bindings = ["COCKPIT_SECRET", "COCKPIT_SECRET_PREVIOUS"];
    for r in [
        deliver(&w, &ev),
        w.post(
            "/webhooks/cockpit",
            &[("content-type", "application/json")],
            ev.to_string(),
        ),
    ] {
        assert_misconfigured(&w, &r, &bindings);
    }
    let r = entity(&w, "ch_cfg");
    let detail = assert_problem(&r, 500, "configuration");
    assert!(bindings.iter().all(|b| detail.contains(b)), "{r}");
}

#[test]
fn sources_or_a_feed_variable_that_is_not_a_json_object_is_a_500_naming_it_in_the_log() {
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
        assert_misconfigured(&w, &r, &[says]);
    }
}

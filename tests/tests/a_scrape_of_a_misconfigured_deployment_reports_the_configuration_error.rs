//! A deployment whose configuration does not load still answers the admin's scrape, with
//! `hookonce_configuration_errors 1` for an alert to fire on (and valid text for
//! `promtool`); anyone else gets the same 500 `configuration` problem as on every route.

use hookonce_e2e::prometheus::promtool_check_metrics;
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{dev_var, origin};

#[test]
fn the_admins_scrape_says_the_configuration_does_not_load() {
    let mut sources = origin::sources(serde_json::json!({ "url": "http://127.0.0.1:9/hooks" }));
    sources[origin::SOURCE]["tolerance_secs"] = "soon".into();
    let w = Workerd::builder().sources(sources).start();

    let auth = [(
        "authorization",
        format!("Bearer {}", dev_var("HOOKONCE_ADMIN_TOKEN")),
    )];
    let r = w.request("GET", "/metrics", &auth, None);
    assert_eq!(r.status, 200, "{r}");
    let text = r.text();
    let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(samples, ["hookonce_configuration_errors 1"], "{text}");
    if let Err(said) = promtool_check_metrics(&text) {
        panic!("promtool check metrics fails: {said}\n{text}");
    }

    let anyone = w.get("/metrics");
    assert_eq!(anyone.status, 500, "{anyone}");
    assert_eq!(
        anyone.header("content-type"),
        Some("application/problem+json")
    );
    assert!(!anyone.text().contains("tolerance_secs"), "{anyone}");
}

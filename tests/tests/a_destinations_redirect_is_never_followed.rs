//! hookonce never follows a redirect: a destination that answers 3xx has failed the
//! attempt, recorded with its status and `Location`, and the signed body never reaches the
//! host the redirect names. The row is retried where it was configured.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin, Reply};
use serde_json::json;

#[test]
fn a_destinations_redirect_is_recorded_as_a_failed_attempt_and_never_followed() {
    let o = Origin::start();
    let elsewhere = Origin::start();
    let w = origin::worker(json!({
        "url": o.url("/hooks"),
        "schedule_secs": [1],
        "window_secs": 30,
    }));
    for code in [301, 307, 308] {
        o.script([Reply::Redirect(code, elsewhere.url("/stolen"))]);
        let entity = format!("ent_redirect_{code}");
        let (r, _) = origin::deliver(&w, &format!("evt_redirect_{code}"), &entity);
        assert_eq!(r.status, 200, "{r}");
        let rows = origin::wait_outbox(&w, &entity, Duration::from_secs(20), |rows| {
            rows.first().is_some_and(|r| r["status"] == "delivered")
        });
        assert_eq!(
            rows[0]["attempts"], 2,
            "one redirect, then the retry: {rows:#?}"
        );
    }
    let at_origin = o.requests();
    assert_eq!(
        at_origin.len(),
        6,
        "each event tried twice where configured"
    );
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        elsewhere.requests().is_empty(),
        "the redirect's target got {:?}",
        elsewhere.requests()
    );

    // The attempt's record names the status and where the redirect pointed.
    o.set_default(Reply::Redirect(302, elsewhere.url("/stolen")));
    let (r, _) = origin::deliver(&w, "evt_redirect_kept", "ent_redirect_kept");
    assert_eq!(r.status, 200, "{r}");
    let rows = origin::wait_outbox(&w, "ent_redirect_kept", Duration::from_secs(20), |rows| {
        rows.first()
            .is_some_and(|r| r["attempts"].as_u64() >= Some(1))
    });
    let last = rows[0]["last_result"].as_str().unwrap_or_default();
    assert!(
        last.contains("302") && last.contains(&elsewhere.url("/stolen")),
        "{rows:#?}"
    );
    assert_eq!(rows[0]["status"], "pending", "{rows:#?}");
    assert!(elsewhere.requests().is_empty());
}

//! Synchronous forwarding (`mode = "sync"`): the destination is called under a lease while
//! the provider waits. 2xx commits; a failure releases the claim (502) so the provider's
//! retry goes through; a copy arriving during the call gets 409 + Retry-After; a runtime
//! that dies mid-call leaves a claim that expires with its lease.

use std::time::{Duration, Instant};

use hookonce_e2e::events::admin_get;
use hookonce_e2e::origin::{self, Origin, Reply};
use hookonce_e2e::Worker;
use serde_json::{json, Value};

fn sync_forward(o: &Origin) -> Value {
    json!({ "url": o.url("/sync"), "mode": "sync", "timeout_secs": 2, "lease_secs": 5 })
}

fn event_outcome(w: &Worker, id: &str, entity: &str) -> String {
    let r = admin_get(w, &format!("/events/acme/{id}?entity={entity}"));
    if r.status == 404 {
        return "unseen".into();
    }
    assert_eq!(r.status, 200, "{r}");
    r.json()["outcome"].as_str().unwrap().to_string()
}

#[test]
fn a_2xx_commits_and_a_failure_releases_for_the_providers_retry() {
    let o = Origin::start();
    let w = origin::worker(sync_forward(&o));

    // 200: applied, once.
    let (r, body) = origin::deliver(&w, "evt_sync_ok", "ent_sync");
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    let reqs = o.requests();
    assert_eq!(reqs.len(), 1, "called while the provider waited");
    assert_eq!(reqs[0].must("idempotency-key"), "evt_sync_ok");
    assert_eq!(reqs[0].body, body);
    let r = origin::deliver_body(&w, "evt_sync_ok", &body);
    assert_eq!(r.header("hookonce-outcome"), Some("duplicate"), "{r}");
    assert_eq!(o.requests().len(), 1, "a duplicate is not forwarded");
    assert_eq!(event_outcome(&w, "evt_sync_ok", "ent_sync"), "applied");

    // 500: 502 released, nothing recorded; the provider's retry then succeeds.
    o.script([Reply::Status(500)]);
    let (r, body) = origin::deliver(&w, "evt_sync_fail", "ent_sync");
    assert_eq!(r.status, 502, "{r}");
    assert_eq!(r.header("hookonce-outcome"), Some("released"), "{r}");
    assert_eq!(event_outcome(&w, "evt_sync_fail", "ent_sync"), "unseen");
    let r = origin::deliver_body(&w, "evt_sync_fail", &body);
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    let keys: Vec<String> = o.keys();
    assert_eq!(keys, ["evt_sync_ok", "evt_sync_fail", "evt_sync_fail"]);
}

#[test]
fn a_copy_during_the_call_is_told_to_come_back() {
    let o = Origin::start();
    let w = origin::worker(sync_forward(&o));
    o.script([Reply::Hang(Duration::from_secs(4))]);
    let body = origin::event_body(
        "evt_held",
        "item.noticed",
        "ent_held",
        hookonce_e2e::unix_now(),
    );
    std::thread::scope(|s| {
        let first = s.spawn(|| origin::deliver_body(&w, "evt_held", &body));
        o.wait_requests(1, Duration::from_secs(10));
        let copy = origin::deliver_body(&w, "evt_held", &body);
        assert_eq!(copy.status, 409, "{copy}");
        let secs: u64 = copy
            .header("retry-after")
            .expect("409 carries Retry-After")
            .parse()
            .expect("Retry-After in seconds");
        assert!(
            (1..=5).contains(&secs),
            "Retry-After {secs} within the lease"
        );
        let first = first.join().unwrap();
        assert_eq!(first.status, 502, "the hang timed out: {first}");
    });
    assert_eq!(
        o.requests().len(),
        1,
        "the copy did not call the destination"
    );
    let r = origin::deliver_body(&w, "evt_held", &body);
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
}

#[test]
fn a_claim_left_by_a_dead_runtime_expires_with_its_lease() {
    let o = Origin::start();
    let state = tempfile::tempdir().unwrap();
    // A lease long enough to outlast a restart on a loaded machine (one took 8.5 s while
    // other builds ran), so the held claim can be seen.
    let mut forward = sync_forward(&o);
    forward["lease_secs"] = json!(20);
    let config = Worker::builder().var("HOOKONCE_SOURCES", origin::sources(forward));
    let mut w = config.clone().start_in(state.path());
    o.script([Reply::Hang(Duration::from_secs(30))]);
    let body = origin::event_body(
        "evt_orphan",
        "item.noticed",
        "ent_orphan",
        hookonce_e2e::unix_now(),
    );

    // The provider's first delivery, cut off when the runtime dies.
    let url = w.url("/webhooks/acme");
    let headers = hookonce_e2e::standard_webhooks_headers(
        &hookonce_e2e::dev_var("COCKPIT_SECRET"),
        "evt_orphan",
        hookonce_e2e::unix_now(),
        &body,
    );
    let sent = body.clone();
    let provider = std::thread::spawn(move || {
        let mut req = ureq::http::Request::builder().method("POST").uri(url);
        for (k, v) in &headers {
            req = req.header(k, v);
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        agent
            .run(req.body(sent).unwrap())
            .map(|r| r.status().as_u16())
    });
    o.wait_requests(1, Duration::from_secs(10));
    let claimed_at = Instant::now();
    w.kill();
    let cut_off = provider.join().unwrap();
    assert!(
        cut_off.is_err() || cut_off.as_ref().is_ok_and(|s| *s >= 500),
        "{cut_off:?}"
    );

    let w = config.start_in(state.path());
    // While the lease (20 s, whole seconds) runs, a retry is told to come back.
    let elapsed = claimed_at.elapsed();
    assert!(
        elapsed < Duration::from_secs(18),
        "restart took {elapsed:?}"
    );
    let r = origin::deliver_body(&w, "evt_orphan", &body);
    assert_eq!(r.status, 409, "the orphaned claim still holds: {r}");
    assert!(r.header("retry-after").is_some(), "{r}");
    assert_eq!(o.requests().len(), 1, "the held claim was not called again");
    let wait = Duration::from_secs(21).saturating_sub(claimed_at.elapsed());
    std::thread::sleep(wait);
    let r = origin::deliver_body(&w, "evt_orphan", &body);
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    let keys: Vec<String> = o.keys();
    assert_eq!(
        keys,
        ["evt_orphan", "evt_orphan"],
        "called again after the lease"
    );
}

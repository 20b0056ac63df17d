//! schemathesis (PyPI) fuzzes the running worker (workerd direct) from `edge/assets/openapi.json`:
//! no `5xx`, and every status, content type, body and header is the one the description
//! documents. Bounded in time: two runs of at most 35 s (the admin token for the read,
//! admin and webhook routes; a publish token for the publish API). Outbound fetches can
//! only reach loopback, so whatever destination it publishes to stays on this machine.
//!
//! Random path values only ever reach "no source named …", and random deliveries a refused
//! signature. So the test first makes a few events and a message, and points most
//! generated sources, entities, event ids and keys at them (schemathesis dictionaries);
//! `tests/schemathesis_hooks.py` signs most deliveries to `cockpit` as its provider would.
//! Then it checks, from the runs' HAR reports, that every operation was answered with its
//! success status at least once: each response schema was checked against a real answer,
//! not only against problems.

use std::path::Path;
use std::process::Command;

use hookonce_e2e::destinations::forwarding_worker;
use hookonce_e2e::events::{
    at, cardholder_created, cardholder_updated, cockpit_secret, payment_captured, COCKPIT,
};
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{dev_var, publish, repo_root};
use serde_json::Value;

/// How often a generated source, entity, event id or key is one the test made.
const SEEDED: f64 = 0.8;

/// What the test made before fuzzing.
struct Seeded {
    entities: Vec<String>,
    events: Vec<String>,
    key: String,
}

fn seed(w: &Workerd) -> Seeded {
    let (ch, account) = ("ch_contract".to_owned(), "acct_contract".to_owned());
    let events = [
        cardholder_created("evt_contract_1", &ch, &at(0), "Ada"),
        cardholder_updated("evt_contract_2", &ch, &at(60), "Grace"),
        cardholder_updated("evt_contract_3", &ch, &at(30), "Stale"),
        payment_captured("evt_contract_4", &account, &at(0), 1250),
    ];
    for event in &events {
        let r = w.deliver_cockpit(event);
        assert_eq!(r.status, 200, "seeding {}: {r}", event["id"]);
    }
    let key = "contract-key-1".to_owned();
    let body = publish::body(
        "http://127.0.0.1:9/contract",
        "contract.made",
        serde_json::json!({ "n": 1 }),
    );
    let auth = format!("Bearer {}", publish::token());
    let headers = [
        ("authorization", auth.as_str()),
        ("content-type", "application/json"),
        ("idempotency-key", key.as_str()),
    ];
    let r = w.post("/v1/messages", &headers, body);
    assert_eq!(r.status, 202, "seeding a message: {r}");
    Seeded {
        entities: vec![ch, account],
        events: events
            .iter()
            .map(|e| e["id"].as_str().unwrap().to_owned())
            .collect(),
        key,
    }
}

/// schemathesis.toml: the dictionaries of what [`seed`] made, bound to the parameters that
/// name it (the key only to the status operation: a publish with a used key and another
/// body is the documented 422, which would crowd out the 202s).
fn config(seeded: &Seeded) -> String {
    let list = |values: &[String]| serde_json::to_string(values).unwrap();
    let bind =
        |dictionary: &str| format!("{{ dictionary = \"{dictionary}\", probability = {SEEDED} }}");
    format!(
        "[dictionaries.sources]\nvalues = {sources}\n\
         [dictionaries.entities]\nvalues = {entities}\n\
         [dictionaries.events]\nvalues = {events}\n\
         [dictionaries.keys]\nvalues = {keys}\n\
         [dictionaries.destinations]\nvalues = [\"default\"]\n\
         [parameters]\n\
         \"path.source\" = {source}\n\"path.entity\" = {entity}\n\
         \"query.entity\" = {entity}\n\"path.event_id\" = {event}\n\
         \"path.destination\" = {destination}\n\
         [[operations]]\ninclude-operation-id = \"messageStatus\"\n\
         parameters = {{ \"header.idempotency-key\" = {key} }}\n",
        sources = list(&[COCKPIT.to_owned()]),
        entities = list(&seeded.entities),
        events = list(&seeded.events),
        keys = list(std::slice::from_ref(&seeded.key)),
        source = bind("sources"),
        entity = bind("entities"),
        event = bind("events"),
        destination = bind("destinations"),
        key = bind("keys"),
    )
}

/// One schemathesis run of `operations` (all but `exclude` if empty) under `token`, in
/// `phases`; returns the HAR report's entries.
fn schemathesis(
    w: &Workerd,
    dir: &Path,
    token: &str,
    (operations, exclude): (&[&str], &[&str]),
    phases: &str,
) -> Vec<Value> {
    let spec = repo_root().join("edge/assets/openapi.json");
    let har = dir.join(format!("{}.har", operations.first().unwrap_or(&"all")));
    let mut cmd = Command::new("schemathesis");
    // It keeps an examples database in its working directory: not in the repo.
    cmd.current_dir(dir)
        .env(
            "SCHEMATHESIS_HOOKS",
            repo_root().join("tests/schemathesis_hooks.py"),
        )
        .env("COCKPIT_SECRET", cockpit_secret())
        .arg("--config-file")
        .arg(dir.join("schemathesis.toml"))
        .arg("run")
        .arg(&spec)
        .args(["--url", &w.base])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args(["--max-examples", "15", "--max-time", "35", "--seed", "15"])
        .args(["--request-timeout", "10", "--no-color", "--phases", phases])
        .args(["--report", "har", "--report-har-path"])
        .arg(&har)
        .args([
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,\
             response_schema_conformance,response_headers_conformance",
        ]);
    for op in operations {
        cmd.args(["--include-operation-id", op]);
    }
    for op in exclude {
        cmd.args(["--exclude-operation-id", op]);
    }
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("cannot run schemathesis ({e}): `make setup` installs it (pip install schemathesis)")
    });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Vec<&str> = text
        .lines()
        .filter(|l| {
            ["generated", "passed", "failed", "Links"]
                .iter()
                .any(|w| l.contains(w))
        })
        .collect();
    println!("schemathesis {operations:?}: {}", summary.join(" | "));
    assert!(out.status.success(), "schemathesis found problems:\n{text}");
    let report: Value = serde_json::from_slice(&std::fs::read(&har).expect("the HAR report"))
        .expect("the HAR report is JSON");
    let entries = report["log"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut statuses = std::collections::BTreeMap::<u64, usize>::new();
    for e in &entries {
        *statuses
            .entry(e["response"]["status"].as_u64().unwrap_or(0))
            .or_default() += 1;
    }
    println!("  answers by status: {statuses:?}");
    entries
}

/// Whether some entry is `method` on a path starting with `prefix`, answered `status`.
fn answered(entries: &[Value], method: &str, prefix: &str, status: u64) -> bool {
    entries.iter().any(|e| {
        let url = e["request"]["url"].as_str().unwrap_or_default();
        // http://host:port/path?query
        let path = url.splitn(4, '/').nth(3).unwrap_or_default();
        e["request"]["method"] == method
            && format!("/{path}").starts_with(prefix)
            && e["response"]["status"] == status
    })
}

#[test]
fn the_running_worker_matches_its_openapi_description() {
    // cockpit forwards (to a closed port), so it has the destination named `default`.
    let w = forwarding_worker();
    let served = w.get("/openapi.json");
    let file = std::fs::read(repo_root().join("edge/assets/openapi.json"))
        .expect("edge/assets/openapi.json");
    assert_eq!(served.status, 200, "{served}");
    assert!(
        served.body == file,
        "GET /openapi.json is not edge/assets/openapi.json (make build?)"
    );
    let seeded = seed(&w);
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join("schemathesis.toml"), config(&seeded)).unwrap();

    let publishing = ["publish", "messageStatus"];
    let all = "examples,coverage,fuzzing,stateful";
    let admin_token = dev_var("HOOKONCE_ADMIN_TOKEN");
    let admin = schemathesis(&w, dir.path(), &admin_token, (&[], &publishing), all);
    // No link leads to or from the publish API: no stateful phase.
    let stateless = "examples,coverage,fuzzing";
    let publisher = schemathesis(
        &w,
        dir.path(),
        &publish::token(),
        (&publishing, &[]),
        stateless,
    );

    let source = format!("/{COCKPIT}");
    let expected = [
        (&admin, "GET", format!("/entities{source}/"), 200),
        (&admin, "GET", format!("/sources{source}/events"), 200),
        (&admin, "GET", format!("/sources{source}/dead"), 200),
        (&admin, "GET", format!("/sources{source}/activity"), 200),
        (&admin, "GET", format!("/events{source}/"), 200),
        (&admin, "POST", format!("/admin/replay{source}/"), 200),
        (&admin, "POST", format!("/admin/outbox{source}/"), 200),
        (
            &admin,
            "GET",
            format!("/sources{source}/destinations/default/status"),
            200,
        ),
        (
            &admin,
            "POST",
            format!("/sources{source}/destinations/default/pause"),
            200,
        ),
        (
            &admin,
            "POST",
            format!("/sources{source}/destinations/default/resume"),
            200,
        ),
        // Deliveries signed by tests/schemathesis_hooks.py are handled; the rest are
        // refused by the source's verifier, not by the router.
        (&admin, "POST", format!("/webhooks{source}"), 200),
        (&admin, "POST", format!("/webhooks{source}"), 401),
        (&publisher, "POST", "/v1/messages".to_owned(), 202),
        (&publisher, "GET", "/v1/messages/status".to_owned(), 200),
    ];
    let missed: Vec<String> = expected
        .iter()
        .filter(|(entries, method, prefix, status)| !answered(entries, method, prefix, *status))
        .map(|(_, method, prefix, status)| format!("{method} {prefix}… never answered {status}"))
        .collect();
    assert!(
        missed.is_empty(),
        "the fuzzing missed operations' success paths: {missed:?}"
    );
}

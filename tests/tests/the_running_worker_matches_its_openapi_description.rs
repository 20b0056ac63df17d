//! schemathesis (PyPI) fuzzes the running worker (workerd direct) from `edge/assets/openapi.json`:
//! no `5xx`, and every status, content type, body and header is the one the description
//! documents. Bounded in time: two runs of at most 35 s (the admin token for the read,
//! admin and webhook routes; a publish token for the publish API). Outbound fetches can
//! only reach loopback, so whatever destination it publishes to stays on this machine.

use std::process::Command;

use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{dev_var, publish, repo_root};

fn schemathesis(w: &Workerd, token: &str, operations: &[&str], exclude: &[&str]) {
    let spec = repo_root().join("edge/assets/openapi.json");
    let mut cmd = Command::new("schemathesis");
    // It keeps an examples database in its working directory: not in the repo.
    cmd.current_dir(std::env::temp_dir())
        .arg("run")
        .arg(&spec)
        .args(["--url", &w.base])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args(["--max-examples", "15", "--max-time", "35", "--seed", "15"])
        .args(["--request-timeout", "10", "--no-color"])
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
        .filter(|l| l.contains("generated") || l.contains("passed") || l.contains("failed"))
        .collect();
    println!("schemathesis {operations:?}: {}", summary.join(" | "));
    assert!(out.status.success(), "schemathesis found problems:\n{text}");
}

#[test]
fn the_running_worker_matches_its_openapi_description() {
    let w = Workerd::builder().start();
    let served = w.get("/openapi.json");
    let file = std::fs::read(repo_root().join("edge/assets/openapi.json"))
        .expect("edge/assets/openapi.json");
    assert_eq!(served.status, 200, "{served}");
    assert!(
        served.body == file,
        "GET /openapi.json is not edge/assets/openapi.json (make build?)"
    );
    schemathesis(&w, &dev_var("HOOKONCE_ADMIN_TOKEN"), &[], &["publish"]);
    schemathesis(&w, &publish::token(), &["publish"], &[]);
}

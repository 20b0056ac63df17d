//! `hookonce destination pause|status|resume`: the admin API's answer as one line (or its
//! JSON with --json); a destination the source does not have is an error naming the
//! problem, exit 2.

mod common;

use common::{assert_output, hookonce, json_of};
use hookonce_e2e::destinations::forwarding_worker;
use hookonce_e2e::events::ADMIN_TOKEN;

#[test]
fn pause_status_and_resume_print_the_destinations_state() {
    let w = forwarding_worker();
    let run = |action: &str, destination: &str, json: bool| {
        let mut args = vec![
            "destination",
            action,
            w.base.as_str(),
            "--source",
            "cockpit",
            "--destination",
            destination,
            "--token",
            ADMIN_TOKEN,
        ];
        if json {
            args.push("--json");
        }
        hookonce(&args, b"")
    };

    let out = run("pause", "default", false);
    assert_output(&out, 0, &out.stdout, "cockpit/default: paused since ");
    let status = json_of(&run("status", "default", true), 0);
    assert_eq!(status["state"], "paused", "{status}");
    let out = run("pause", "default", false);
    assert_output(&out, 0, &out.stdout, "(already)");
    let out = run("resume", "default", false);
    assert_output(&out, 0, &out.stdout, "cockpit/default: closed since ");
    let status = json_of(&run("status", "default", true), 0);
    assert_eq!(status["state"], "closed", "{status}");

    let out = run("pause", "billing", false);
    assert_output(&out, 2, &out.stderr, "HTTP 404 unknown-destination");
    // Without --destination, the source's single forward is meant.
    let out = hookonce(
        &[
            "destination",
            "status",
            &w.base,
            "--source",
            "cockpit",
            "--token",
            ADMIN_TOKEN,
        ],
        b"",
    );
    assert_output(&out, 0, &out.stdout, "cockpit/default: closed");
}

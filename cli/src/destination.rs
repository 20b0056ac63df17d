//! `destination status|pause|resume`: a destination's guard, through the admin API.

use std::process::ExitCode;

use anyhow::{bail, Result};
use hookonce_core::time::UnixSeconds;
use serde_json::Value;

use crate::admin::connect;
use crate::args::{DestinationAction, DestinationArgs};
use crate::input::{escape, rfc3339};

pub fn run(a: DestinationArgs, json: bool) -> Result<ExitCode> {
    let api = connect(&a.admin)?;
    let (method, op) = match a.action {
        DestinationAction::Status => ("GET", "status"),
        DestinationAction::Pause => ("POST", "pause"),
        DestinationAction::Resume => ("POST", "resume"),
    };
    let path = format!(
        "/sources/{}/destinations/{}/{op}",
        escape(&a.admin.source),
        escape(&a.destination)
    );
    let reply = api.call(method, &path)?;
    let Some(doc) = reply.json().filter(|_| reply.status == 200) else {
        bail!("{method} {path}: {}", reply.describe());
    };
    if json {
        println!("{doc}");
    } else {
        println!("{}", line(&a.admin.source, &a.destination, &doc));
    }
    Ok(ExitCode::SUCCESS)
}

/// One line, e.g. `cockpit/default: paused since 2026-10-06T00:00:05Z (circuit closed, 0
/// in flight of 10, 0 failures in a row)`, with `(already)` when a pause or resume found
/// it so.
fn line(source: &str, destination: &str, doc: &Value) -> String {
    let n = |k: &str| doc[k].as_u64().unwrap_or_default();
    let at = |k: &str| doc[k].as_i64().map(|t| rfc3339(UnixSeconds(t)));
    let state = doc["state"].as_str().unwrap_or("-");
    let since = at("paused_since").or_else(|| at("since"));
    let mut out = format!("{source}/{destination}: {state}");
    if let Some(since) = since {
        out.push_str(&format!(" since {since}"));
    }
    out.push_str(&format!(
        " (circuit {}, {} in flight of {}, {} failures in a row",
        doc["circuit"].as_str().unwrap_or("-"),
        n("in_flight"),
        n("limit"),
        n("consecutive_failures"),
    ));
    if let Some(probe) = at("next_probe_at") {
        out.push_str(&format!(", next probe at {probe}"));
    }
    out.push(')');
    if doc["changed"] == Value::Bool(false) {
        out.push_str(" (already)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_status_prints_on_one_line() {
        let doc = json!({ "state": "paused", "circuit": "open", "since": 1_791_244_800,
                          "paused_since": 1_791_244_805, "in_flight": 0, "limit": 0,
                          "consecutive_failures": 5, "next_probe_at": 1_791_244_830,
                          "changed": false });
        assert_eq!(
            line("cockpit", "default", &doc),
            "cockpit/default: paused since 2026-10-06T00:00:05Z (circuit open, 0 in flight of 0, \
             5 failures in a row, next probe at 2026-10-06T00:00:30Z) (already)"
        );
    }
}

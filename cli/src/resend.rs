//! `requeue`, `redeliver` and `backfill`: the admin API's operations that send events to a
//! source's destinations again. Each prints what the API answered.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Result};
use serde_json::Value;

use crate::admin::connect;
use crate::args::{BackfillArgs, RedeliverArgs, RequeueArgs};
use crate::http::Admin;
use crate::input::escape;

/// `POST path`: the answer's JSON, or an error naming `what` and the problem.
fn post(api: &Admin, what: &str, path: &str) -> Result<Value> {
    let reply = api.call("POST", path)?;
    match (reply.status, reply.json()) {
        (200, Some(v)) => Ok(v),
        _ => bail!("{what}: {}", reply.describe()),
    }
}

/// Prints `v` as JSON, or `line(v)`.
fn print(v: &Value, json: bool, line: impl Fn(&Value) -> String) -> ExitCode {
    match json {
        true => println!("{v}"),
        false => println!("{}", line(v)),
    }
    ExitCode::SUCCESS
}

fn count(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_default()
}

/// A `?` and the query of the parameters that are given, escaped; empty if none is.
fn query(params: &[(&str, Option<&str>)]) -> String {
    let given: Vec<String> = params
        .iter()
        .filter_map(|(k, v)| Some(format!("{k}={}", escape((*v)?))))
        .collect();
    match given.is_empty() {
        true => String::new(),
        false => format!("?{}", given.join("&")),
    }
}

pub fn requeue(a: RequeueArgs, json: bool) -> Result<ExitCode> {
    let api = connect(&a.admin)?;
    let (source, entity) = (escape(&a.admin.source), escape(&a.entity));
    let q = query(&[("destination", a.destination.as_deref())]);
    let v = post(
        &api,
        "requeue",
        &format!("/admin/outbox/{source}/{entity}/retry{q}"),
    )?;
    Ok(print(&v, json, |v| {
        let mut line = format!("{} dead letters requeued", count(v, "requeued"));
        for s in v["skipped"].as_array().into_iter().flatten() {
            line.push_str(&format!(
                "; {} of {} left dead: {}",
                count(s, "rows"),
                s["destination"].as_str().unwrap_or("?"),
                s["reason"].as_str().unwrap_or_default()
            ));
        }
        line
    }))
}

pub fn redeliver(a: RedeliverArgs, json: bool) -> Result<ExitCode> {
    let api = connect(&a.admin)?;
    let (source, event) = (escape(&a.admin.source), escape(&a.stored.event));
    let q = query(&[
        ("entity", a.stored.entity.as_deref()),
        ("destination", a.destination.as_deref()),
    ]);
    let what = format!("redelivery of {}", a.stored.event);
    let v = post(
        &api,
        &what,
        &format!("/admin/redeliver/{source}/{event}{q}"),
    )?;
    Ok(print(&v, json, |v| {
        let names: Vec<&str> = v["destinations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        format!("{} enqueued again for {}", a.stored.event, names.join(", "))
    }))
}

pub fn backfill(a: BackfillArgs, json: bool) -> Result<ExitCode> {
    let api = connect(&a.admin)?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let since = a.since.at(now).to_string();
    let (source, destination) = (escape(&a.admin.source), escape(&a.destination));
    let q = query(&[("entity", Some(&a.entity)), ("since", Some(&since))]);
    let what = format!("backfill of {}", a.destination);
    let v = post(
        &api,
        &what,
        &format!("/admin/backfill/{source}/{destination}{q}"),
    )?;
    Ok(print(&v, json, |v| {
        format!(
            "{}: {} events enqueued for {} since {since}, ahead of {} pending; skipped {} \
             whose bodies were pruned, {} it already has, {} of types it does not take",
            a.entity,
            count(v, "enqueued"),
            a.destination,
            count(v, "moved_behind"),
            count(v, "skipped_pruned"),
            count(v, "skipped_present"),
            count(v, "skipped_filtered"),
        )
    }))
}

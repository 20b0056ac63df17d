//! `requeue`, `redeliver` and `backfill`: the admin API's operations that send events to a
//! source's destinations again. Each prints what the API answered; across a source,
//! summed over its pages ([`sweep`]).

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Result};
use serde_json::Value;

use crate::admin::connect;
use crate::args::{BackfillArgs, RedeliverArgs, RequeueArgs};
use crate::http::Admin;
use crate::input::escape;
use crate::sweep;

/// `POST path`: the answer's JSON, or an error naming `what` and the problem.
pub fn post(api: &Admin, what: &str, path: &str) -> Result<Value> {
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
    let source = escape(&a.admin.source);
    let Some(entity) = &a.entity else {
        return requeue_source(&api, &a, json);
    };
    let q = query(&[("destination", a.destination.as_deref())]);
    let v = post(
        &api,
        "requeue",
        &format!("/admin/outbox/{source}/{}/retry{q}", escape(entity)),
    )?;
    Ok(print(&v, json, |v| {
        format!(
            "{} dead letters requeued{}",
            count(v, "requeued"),
            left_dead(v)
        )
    }))
}

/// `; N of D left dead: why` for each destination whose letters a requeue left dead.
fn left_dead(v: &Value) -> String {
    let mut line = String::new();
    for s in v["skipped"].as_array().into_iter().flatten() {
        line.push_str(&format!(
            "; {} of {} left dead: {}",
            count(s, "rows"),
            s["destination"].as_str().unwrap_or("?"),
            s["reason"].as_str().unwrap_or_default()
        ));
    }
    line
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `requeue` without `--entity`: the source's pages, with progress on stderr.
fn requeue_source(api: &Admin, a: &RequeueArgs, json: bool) -> Result<ExitCode> {
    let now = now();
    let since = a.since.map(|s| s.at(now).to_string());
    let until = a.until.map(|s| s.at(now).to_string());
    let (limit, dry_run) = (a.page.to_string(), a.dry_run.to_string());
    let q = query(&[
        ("destination", a.destination.as_deref()),
        ("type", a.kind.as_deref()),
        ("since", since.as_deref()),
        ("until", until.as_deref()),
        ("reason", a.reason.as_deref()),
        ("dry_run", Some(&dry_run)),
        ("limit", Some(&limit)),
    ]);
    let path = format!("/admin/requeue/{}{q}", escape(&a.admin.source));
    let verb = match a.dry_run {
        true => "would go back",
        false => "requeued",
    };
    let mut entities = 0;
    let total = sweep::pages(api, "requeue", &path, |n, page| {
        entities += count(page, "entities");
        eprintln!(
            "page {n}: {} entities ({entities} so far), {} dead letters {verb}",
            count(page, "entities"),
            count(page, "matched"),
        );
    })?;
    Ok(print(&total, json, |v| {
        let by = sweep::per_destination(&v["destinations"]);
        let by = match by.is_empty() {
            true => String::new(),
            false => format!(" ({by})"),
        };
        let changed = match a.dry_run {
            true => "; dry run, nothing changed",
            false => "",
        };
        format!(
            "{} dead letters {verb}{by} across {} entities{changed}{}{}",
            count(v, "matched"),
            count(v, "entities"),
            left_dead(v),
            sweep::failures(v)
        )
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
    let since = a.since.at(now()).to_string();
    let (source, destination) = (escape(&a.admin.source), escape(&a.destination));
    let limit = a.page.to_string();
    let q = match &a.entity {
        Some(entity) => query(&[("entity", Some(entity)), ("since", Some(&since))]),
        None => query(&[("since", Some(&since)), ("limit", Some(&limit))]),
    };
    let what = format!("backfill of {}", a.destination);
    let path = format!("/admin/backfill/{source}/{destination}{q}");
    let (v, who, failed) = match &a.entity {
        Some(entity) => (post(&api, &what, &path)?, entity.clone(), String::new()),
        None => {
            let mut entities = 0;
            let total = sweep::pages(&api, &what, &path, |n, page| {
                entities += count(page, "entities");
                eprintln!(
                    "page {n}: {} entities ({entities} so far), {} events enqueued",
                    count(page, "entities"),
                    count(page, "enqueued"),
                );
            })?;
            let who = format!("{} entities", count(&total, "entities"));
            let failed = sweep::failures(&total);
            (total, who, failed)
        }
    };
    Ok(print(&v, json, |v| {
        format!(
            "{who}: {} events enqueued for {} since {since}, ahead of {} pending; skipped {} \
             whose bodies were pruned, {} it already has, {} of types it does not take{failed}",
            count(v, "enqueued"),
            a.destination,
            count(v, "moved_behind"),
            count(v, "skipped_pruned"),
            count(v, "skipped_present"),
            count(v, "skipped_filtered"),
        )
    }))
}

//! `replay`, `check` and `tail`: the read and admin APIs.

use std::collections::HashSet;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Result};
use serde_json::{json, Value};

use crate::args::{AdminTarget, CheckArgs, ReplayArgs, TailArgs};
use crate::http::Admin;
use crate::input::escape;

pub fn connect(t: &AdminTarget) -> Result<Admin> {
    Admin::new(&t.target.url, t.token.as_deref())
}

/// What a replay answered.
struct Replayed {
    event_id: String,
    outcome: String,
    status: u64,
    changed: bool,
}

/// `POST /admin/replay/{source}/{event}?entity=E`. `Ok(None)` when the event has no stored
/// body (the source keeps none, and the event was not forwarded).
fn replay_one(
    api: &Admin,
    source: &str,
    event: &str,
    entity: Option<&str>,
) -> Result<Option<Replayed>> {
    let mut path = format!("/admin/replay/{}/{}", escape(source), escape(event));
    if let Some(e) = entity {
        path.push_str(&format!("?entity={}", escape(e)));
    }
    let reply = api.call("POST", &path)?;
    if reply.status == 404
        && reply
            .problem()
            .is_some_and(|(slug, d)| slug == "not-found" && d.contains("no stored body"))
    {
        return Ok(None);
    }
    let Some(v) = reply.json().filter(|_| reply.status == 200) else {
        bail!("replay of {event}: {}", reply.describe());
    };
    Ok(Some(Replayed {
        event_id: v["event_id"].as_str().unwrap_or(event).to_owned(),
        outcome: v["outcome"].as_str().unwrap_or_default().to_owned(),
        status: v["status"].as_u64().unwrap_or_default(),
        changed: v["changed"].as_bool().unwrap_or(true),
    }))
}

impl Replayed {
    fn to_json(&self) -> Value {
        json!({ "event_id": self.event_id, "outcome": self.outcome, "status": self.status,
                "changed": self.changed })
    }

    fn line(&self) -> String {
        format!(
            "{}: {} (HTTP {}), changed: {}",
            self.event_id, self.outcome, self.status, self.changed
        )
    }
}

pub fn replay(a: ReplayArgs, json: bool) -> Result<ExitCode> {
    let api = connect(&a.admin)?;
    let Some(r) = replay_one(&api, &a.admin.source, &a.event, a.entity.as_deref())? else {
        bail!(
            "hookonce holds no body for event {}: this entity never saw it (check --entity), its source keeps no raw bodies, or the body was pruned after the source's body_retention_secs",
            a.event
        );
    };
    if json {
        println!("{}", r.to_json());
    } else {
        println!("{}", r.line());
    }
    Ok(ExitCode::SUCCESS)
}

/// Every event of the entity, newest first, following the read API's `cursor` page by
/// page: (event id, the outcome hookonce recorded for it).
fn all_events(api: &Admin, source: &str, entity: &str) -> Result<Vec<(String, String)>> {
    let base = format!("/entities/{}/{}", escape(source), escape(entity));
    let mut events = Vec::new();
    let mut path = base.clone();
    loop {
        let page = api.json("GET", &path)?;
        events.extend(
            page["events"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| {
                    let id = e["event_id"].as_str()?.to_owned();
                    Some((id, e["outcome"].as_str().unwrap_or("-").to_owned()))
                }),
        );
        match page["cursor"].as_str() {
            Some(c) => path = format!("{base}?before={}", escape(c)),
            None => return Ok(events),
        }
    }
}

pub fn check(a: CheckArgs, json: bool) -> Result<ExitCode> {
    let api = connect(&a.admin)?;
    let source = &a.admin.source;
    let events = all_events(&api, source, &a.entity)?;
    let (mut replayed, mut skipped) = (Vec::new(), Vec::new());
    for (id, recorded) in &events {
        match replay_one(&api, source, id, Some(&a.entity))? {
            Some(r) => {
                if !json {
                    let mark = if r.changed { "CHANGED" } else { "ok" };
                    println!("{mark:<8}{}", r.line());
                }
                replayed.push(r);
            }
            // Stale events, events whose body was pruned (body_retention_secs), and all events
            // of a source without keep_raw_bodies.
            None => {
                if !json {
                    println!("skipped {id} (recorded {recorded}): hookonce keeps no body for it (any more)");
                }
                skipped.push(json!({ "event_id": id, "recorded": recorded }));
            }
        }
    }
    let changed: Vec<&Replayed> = replayed.iter().filter(|r| r.changed).collect();
    if json {
        println!(
            "{}",
            json!({
                "source": source, "entity": a.entity,
                "replayed": replayed.iter().map(Replayed::to_json).collect::<Vec<_>>(),
                "skipped": skipped,
                "changed": changed.iter().map(|r| &r.event_id).collect::<Vec<_>>(),
                "ok": changed.is_empty(),
            })
        );
    } else {
        println!(
            "{} event{} of {source}/{} replayed, {} skipped: {}",
            replayed.len(),
            if replayed.len() == 1 { "" } else { "s" },
            a.entity,
            skipped.len(),
            if changed.is_empty() {
                "none changed anything".to_owned()
            } else {
                format!("{} CHANGED something", changed.len())
            }
        );
    }
    Ok(if changed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Where `tail` reads from.
enum Feed {
    /// `GET /sources/{source}/events`, newest first.
    Source(String),
    /// `GET /entities/{source}/{entity}`'s events, newest first.
    Entity(String),
}

pub fn tail(a: TailArgs, json: bool) -> Result<ExitCode> {
    let api = connect(&a.admin)?;
    let source = &a.admin.source;
    let feed_path = format!("/sources/{}/events", escape(source));
    let probe = api.call("GET", &feed_path)?;
    let feed = match (probe.status, probe.problem()) {
        (200, _) => Feed::Source(feed_path),
        (404, Some((slug, _))) if slug.ends_with("not-found") => match &a.entity {
            Some(e) => Feed::Entity(format!("/entities/{}/{}", escape(source), escape(e))),
            None => bail!(
                "this hookonce has no source-wide event feed ({feed_path} is 404); pass --entity E to follow one entity"
            ),
        },
        _ => bail!("GET {feed_path}: {}", probe.describe()),
    };
    if !json {
        let what = match &feed {
            Feed::Source(_) => format!("the event feed of {source}"),
            Feed::Entity(_) => format!(
                "entity {} of {source} (no source-wide feed; duplicates write nothing, so they are not listed)",
                a.entity.as_deref().unwrap_or_default()
            ),
        };
        eprintln!("hookonce tail: following {what}; Ctrl-C stops");
    }
    let interval = Duration::from_secs_f64(a.interval.max(0.1));
    let mut seen = HashSet::new();
    loop {
        let rows = match &feed {
            Feed::Source(path) => {
                let v = api.json("GET", path)?;
                rows_of(&v)
            }
            Feed::Entity(path) => {
                let reply = api.call("GET", path)?;
                match (reply.status, reply.json()) {
                    (200, Some(v)) => rows_of(&v),
                    // An entity that has seen nothing yet is a 404; it may come.
                    (404, _) if reply.problem().is_some_and(|(s, _)| s == "not-found") => vec![],
                    _ => bail!("GET {path}: {}", reply.describe()),
                }
            }
        };
        // Newest first on the wire; print in the order things happened. The source's feed
        // lists every entity: --entity narrows it.
        let wanted = |row: &Value| match (&feed, &a.entity) {
            (Feed::Source(_), Some(e)) => row["entity"].as_str() == Some(e.as_str()),
            _ => true,
        };
        for row in rows.into_iter().rev().filter(wanted) {
            if seen.insert(row_key(&row)) {
                if json {
                    println!("{row}");
                } else {
                    println!("{}", row_line(&row));
                }
            }
        }
        std::thread::sleep(interval);
    }
}

/// The rows of a feed page or an entity: its `events`, or the page itself if it is a list.
fn rows_of(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(rows) => rows.clone(),
        _ => v["events"].as_array().cloned().unwrap_or_default(),
    }
}

/// One delivery's identity: a feed row's cursor if it has one, else what it says.
fn row_key(row: &Value) -> String {
    match row.get("cursor") {
        Some(c) => c.to_string(),
        None => {
            let f = |k: &str| row.get(k).map(Value::to_string).unwrap_or_default();
            [
                f("event_id"),
                f("id"),
                f("outcome"),
                f("received_at"),
                f("processed_at"),
            ]
            .join("|")
        }
    }
}

fn row_line(row: &Value) -> String {
    let s = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| match row.get(*k) {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            })
            .unwrap_or_else(|| "-".to_owned())
    };
    let at = row
        .get("received_at")
        .or_else(|| row.get("processed_at"))
        .and_then(Value::as_i64)
        .map_or_else(
            || "-".to_owned(),
            |t| crate::input::rfc3339(hookonce_core::time::UnixSeconds(t)),
        );
    let mut line = format!(
        "{at}  {:<10} {}  {}",
        s(&["outcome"]),
        s(&["event_id", "id"]),
        s(&["type", "event_type"])
    );
    for k in ["entity", "rows_written", "reason"] {
        if let Some(v) = row.get(k).filter(|v| !v.is_null()) {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
            line.push_str(&format!("  {k}={v}"));
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feed_row_prints_on_one_line_oldest_first_once() {
        let page = json!({ "events": [
            { "event_id": "evt_2", "type": "t", "outcome": "duplicate", "received_at": 1_791_244_806, "entity": "ch_1" },
            { "event_id": "evt_1", "type": "t", "outcome": "applied", "received_at": 1_791_244_805, "rows_written": 3 },
        ]});
        let rows = rows_of(&page);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            row_line(&rows[1]),
            "2026-10-06T00:00:05Z  applied    evt_1  t  rows_written=3"
        );
        assert!(row_line(&rows[0]).ends_with("entity=ch_1"));
        assert_ne!(row_key(&rows[0]), row_key(&rows[1]));
        assert_eq!(rows_of(&json!([{ "id": "x" }])).len(), 1);
    }
}

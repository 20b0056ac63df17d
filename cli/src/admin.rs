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
    let Some(r) = replay_one(
        &api,
        &a.admin.source,
        &a.stored.event,
        a.stored.entity.as_deref(),
    )?
    else {
        bail!(
            "hookonce holds no body for event {}: this entity never saw it (check --entity), its source keeps no raw bodies, or the body was pruned after the source's body_retention_secs",
            a.stored.event
        );
    };
    if json {
        println!("{}", r.to_json());
    } else {
        println!("{}", r.line());
    }
    Ok(ExitCode::SUCCESS)
}

/// An entity's events, newest first: (event id, the outcome hookonce recorded for it).
type Events = Vec<(String, String)>;

/// Every event of the entity, newest first, following the read API's `cursor` page by
/// page, and every outbox row.
fn all_events(api: &Admin, source: &str, entity: &str) -> Result<(Events, Vec<Value>)> {
    let base = format!("/entities/{}/{}", escape(source), escape(entity));
    let (mut events, mut outbox) = (Vec::new(), Vec::new());
    let mut path = base.clone();
    loop {
        let page = api.json("GET", &path)?;
        outbox.extend(page["outbox"].as_array().into_iter().flatten().cloned());
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
            None => return Ok((events, outbox)),
        }
    }
}

pub fn check(a: CheckArgs, json: bool) -> Result<ExitCode> {
    let api = connect(&a.admin)?;
    let source = &a.admin.source;
    let (events, outbox) = all_events(&api, source, &a.entity)?;
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
    let destinations = per_destination(&outbox);
    if json {
        println!(
            "{}",
            json!({
                "source": source, "entity": a.entity,
                "replayed": replayed.iter().map(Replayed::to_json).collect::<Vec<_>>(),
                "skipped": skipped,
                "changed": changed.iter().map(|r| &r.event_id).collect::<Vec<_>>(),
                "destinations": destinations,
                "ok": changed.is_empty(),
            })
        );
    } else {
        for (name, counts) in destinations.as_object().into_iter().flatten() {
            let n = |k: &str| counts[k].as_u64().unwrap_or_default();
            println!(
                "{name}: {} delivered, {} pending, {} dead",
                n("delivered"),
                n("pending"),
                n("dead")
            );
        }
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

/// The entity's outbox rows counted per destination and status, in name order:
/// `{"billing": {"delivered": 2, "pending": 0, "dead": 1}, …}`.
fn per_destination(outbox: &[Value]) -> Value {
    let mut out = serde_json::Map::new();
    let mut names: Vec<&str> = outbox
        .iter()
        .map(|o| o["destination"].as_str().unwrap_or("default"))
        .collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let count = |status: &str| {
            outbox
                .iter()
                .filter(|o| o["destination"].as_str().unwrap_or("default") == name)
                .filter(|o| o["status"] == status)
                .count()
        };
        let counts = json!({"delivered": count("delivered"), "pending": count("pending"),
            "dead": count("dead")});
        out.insert(name.to_owned(), counts);
    }
    Value::Object(out)
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
    let entity_path = a
        .entity
        .as_ref()
        .map(|e| format!("/entities/{}/{}", escape(source), escape(e)));
    let dead_path = format!("/sources/{}/dead", escape(source));
    let mut seen = HashSet::new();
    loop {
        let (rows, page) = match &feed {
            Feed::Source(path) => (rows_of(&api.json("GET", path)?), None),
            Feed::Entity(path) => {
                let page = entity_page(&api, path)?;
                (rows_of(&page), Some(page))
            }
        };
        // Where the deliveries to each destination show: the entity's outbox rows (each
        // change of status or attempts once) with --entity, else the source's dead letters.
        let deliveries = match (page, &entity_path) {
            (Some(page), _) => outbox_of(&page),
            (None, Some(path)) => outbox_of(&entity_page(&api, path)?),
            (None, None) => dead_of(&api, &dead_path)?,
        };
        // Newest first on the wire; print in the order things happened. The source's feed
        // lists every entity: --entity narrows it.
        let wanted = |row: &Value| match (&feed, &a.entity) {
            (Feed::Source(_), Some(e)) => row["entity"].as_str() == Some(e.as_str()),
            _ => true,
        };
        let events = rows.into_iter().rev().filter(wanted);
        for row in events.chain(deliveries.into_iter().rev()) {
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

/// The entity read at `path`; `null` while the entity has seen nothing (a 404 it may
/// outgrow).
fn entity_page(api: &Admin, path: &str) -> Result<Value> {
    let reply = api.call("GET", path)?;
    match (reply.status, reply.json()) {
        (200, Some(v)) => Ok(v),
        (404, _) if reply.problem().is_some_and(|(s, _)| s == "not-found") => Ok(Value::Null),
        _ => bail!("GET {path}: {}", reply.describe()),
    }
}

/// An entity read's outbox rows, each marked `"kind": "outbox"` with its status as its
/// `outcome`.
fn outbox_of(page: &Value) -> Vec<Value> {
    let rows = page["outbox"].as_array().into_iter().flatten();
    rows.map(|o| {
        let mut row = o.clone();
        row["kind"] = json!("outbox");
        row["outcome"] = o["status"].clone();
        row
    })
    .collect()
}

/// The source's dead letters, each marked `"kind": "dead"`; none when the worker lists
/// none.
fn dead_of(api: &Admin, path: &str) -> Result<Vec<Value>> {
    let reply = api.call("GET", path)?;
    let Some(v) = reply.json().filter(|_| reply.status == 200) else {
        return Ok(Vec::new());
    };
    let rows = v["dead"].as_array().into_iter().flatten();
    Ok(rows
        .map(|d| {
            let mut row = d.clone();
            row["kind"] = json!("dead");
            row["outcome"] = json!("dead");
            row
        })
        .collect())
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
            let keys = [
                "kind",
                "seq",
                "event_id",
                "id",
                "entity",
                "destination",
                "outcome",
                "attempts",
                "received_at",
                "processed_at",
                "dead_at",
            ];
            keys.map(f).join("|")
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
    let at = ["received_at", "processed_at", "dead_at", "done_at"]
        .iter()
        .find_map(|k| row.get(*k).and_then(Value::as_i64))
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
    for k in [
        "entity",
        "destination",
        "rows_written",
        "attempts",
        "last_result",
        "reason",
    ] {
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

    #[test]
    fn an_outbox_row_prints_its_destination_and_each_change_once() {
        let page = json!({ "outbox": [
            { "seq": 2, "event_id": "evt_1", "destination": "billing", "status": "pending",
              "attempts": 1, "last_result": "http 500", "next_attempt_at": 1_791_244_900, "done_at": null },
            { "seq": 1, "event_id": "evt_1", "destination": "audit", "status": "delivered",
              "attempts": 1, "last_result": "http 200", "done_at": 1_791_244_805 },
        ]});
        let rows = outbox_of(&page);
        assert_eq!(
            row_line(&rows[1]),
            "2026-10-06T00:00:05Z  delivered  evt_1  -  destination=audit  attempts=1  last_result=http 200"
        );
        assert!(row_line(&rows[0]).contains("pending    evt_1  -  destination=billing  attempts=1"));
        // Another attempt is another line; the same row read again is not.
        let mut again = rows[0].clone();
        assert_eq!(row_key(&again), row_key(&outbox_of(&page)[0]));
        again["attempts"] = json!(2);
        assert_ne!(row_key(&again), row_key(&rows[0]));
        assert_ne!(row_key(&rows[0]), row_key(&rows[1]));
    }
}

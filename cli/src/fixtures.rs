//! Built-in events: the sample source's event shapes (`wrangler.toml`'s cockpit), written
//! the way each scheme's provider writes them, so every field a source reads by default
//! is where it looks.

use std::time::{Duration, SystemTime};

use anyhow::{bail, Result};
use hookonce_core::verify::Scheme;
use serde_json::{json, Value};

use crate::input;

/// A fixture: its event type, the entity it is about by default, and the object it reports.
struct Fixture {
    kind: &'static str,
    entity: &'static str,
    object: fn(&str) -> Value,
}

const FIXTURES: &[Fixture] = &[
    Fixture {
        kind: "cardholder.created",
        entity: "ch_sample_1",
        object: |id| json!({ "id": id, "name": "Ada Lovelace", "status": "active" }),
    },
    Fixture {
        kind: "cardholder.updated",
        entity: "ch_sample_1",
        object: |id| json!({ "id": id, "name": "Ada King", "status": "active" }),
    },
    Fixture {
        kind: "payment.captured",
        entity: "acct_sample_1",
        object: |id| json!({ "id": id, "amount": 1200, "currency": "eur" }),
    },
    Fixture {
        kind: "push",
        entity: "octo/hello",
        object: |repo| {
            json!({ "ref": "refs/heads/main", "after": "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
                    "repository": { "full_name": repo } })
        },
    },
];

/// The names `--fixture` takes.
pub fn names() -> String {
    FIXTURES
        .iter()
        .map(|f| f.kind)
        .collect::<Vec<_>>()
        .join(", ")
}

/// An event to send: its id (the dedupe key), body and the headers that are not signatures.
#[derive(Debug, Clone)]
pub struct Event {
    pub id: String,
    pub body: Vec<u8>,
    pub headers: Vec<(String, String)>,
}

/// The fixture `name` as `scheme`'s provider would send it, about `entity`, created at `at`
/// (to the millisecond where the shape allows, so that two fixtures sent within a second
/// are still ordered as sent).
pub fn build(
    name: &str,
    scheme: &Scheme,
    id: Option<&str>,
    entity: Option<&str>,
    at: SystemTime,
) -> Result<Event> {
    let Some(f) = FIXTURES.iter().find(|f| f.kind == name) else {
        bail!("no fixture named {name:?}; the fixtures are {}", names());
    };
    let object = (f.object)(entity.unwrap_or(f.entity));
    let id = id.map_or_else(|| fresh_event_id(scheme), str::to_owned);
    let body = match scheme {
        Scheme::Stripe => json!({ "id": id, "object": "event", "type": f.kind,
                                  "created": unix(at), "data": { "object": object } }),
        // GitHub: the id and the type travel in headers, the body is the object itself.
        Scheme::GitHub => object,
        _ => json!({ "id": id, "type": f.kind,
                     "created_at": humantime::format_rfc3339_millis(at).to_string(),
                     "data": { "object": object } }),
    };
    Ok(Event {
        headers: provider_headers(scheme, &id, f.kind),
        id,
        body: body.to_string().into_bytes(),
    })
}

/// The unsigned headers a provider sends beside the body: GitHub's delivery id and event.
pub fn provider_headers(scheme: &Scheme, id: &str, kind: &str) -> Vec<(String, String)> {
    match scheme {
        Scheme::GitHub => vec![
            ("x-github-delivery".into(), id.into()),
            ("x-github-event".into(), kind.into()),
        ],
        _ => vec![],
    }
}

fn unix(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// An id in the provider's style: GitHub's delivery GUIDs, `evt_…` elsewhere.
pub fn fresh_event_id(scheme: &Scheme) -> String {
    match scheme {
        Scheme::GitHub => {
            let h = format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..));
            format!(
                "{}-{}-{}-{}-{}",
                &h[..8],
                &h[8..12],
                &h[12..16],
                &h[16..20],
                &h[20..]
            )
        }
        _ => input::fresh_id("evt"),
    }
}

/// An older version of `event`: a new event id, created an hour earlier, about the same
/// entity. Delivered after `event`, a snapshot source drops it as stale.
pub fn older(event: &Event, scheme: &Scheme) -> Result<Event> {
    const EARLIER: Duration = Duration::from_secs(3600);
    let field = match scheme {
        Scheme::Stripe => "created",
        Scheme::GitHub => {
            bail!("--older: GitHub deliveries carry no creation time, so none is ever stale")
        }
        _ => "created_at",
    };
    let Ok(mut body) = serde_json::from_slice::<Value>(&event.body) else {
        bail!("--older needs a JSON body");
    };
    let created = match &body[field] {
        Value::Number(n) => n.as_i64().map(|t| json!(t - EARLIER.as_secs() as i64)),
        Value::String(s) => humantime::parse_rfc3339(s)
            .ok()
            .map(|t| json!(humantime::format_rfc3339_millis(t - EARLIER).to_string())),
        _ => None,
    };
    let Some(created) = created else {
        bail!("--older needs a {field} in the body (unix seconds or RFC 3339)");
    };
    let id = format!("{}_older", event.id);
    body[field] = created;
    body["id"] = json!(id);
    Ok(Event {
        id,
        body: body.to_string().into_bytes(),
        headers: event.headers.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(e: &Event) -> Value {
        serde_json::from_slice(&e.body).unwrap()
    }

    #[test]
    fn each_scheme_gets_its_providers_shape() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_791_244_805_250);
        let sw = build(
            "cardholder.updated",
            &Scheme::StandardWebhooks,
            None,
            Some("ch_9"),
            at,
        )
        .unwrap();
        let b = parse(&sw);
        assert_eq!(b["id"], sw.id.as_str());
        assert_eq!(b["created_at"], "2026-10-06T00:00:05.250Z");
        assert_eq!(b["data"]["object"]["id"], "ch_9");

        let st = build("payment.captured", &Scheme::Stripe, Some("evt_x"), None, at).unwrap();
        let b = parse(&st);
        assert_eq!(
            (b["id"].as_str(), b["created"].as_i64()),
            (Some("evt_x"), Some(1_791_244_805))
        );
        assert_eq!(b["data"]["object"]["id"], "acct_sample_1");

        let gh = build("push", &Scheme::GitHub, None, None, at).unwrap();
        assert_eq!(gh.headers[0], ("x-github-delivery".into(), gh.id.clone()));
        assert_eq!(gh.headers[1].1, "push");
        assert_eq!(gh.id.len(), 36);
    }

    #[test]
    fn an_unknown_fixture_lists_the_known_ones() {
        let e = build("nope", &Scheme::Stripe, None, None, SystemTime::UNIX_EPOCH).unwrap_err();
        assert!(e.to_string().contains("cardholder.created"), "{e}");
    }

    #[test]
    fn the_older_version_is_an_hour_earlier_with_its_own_id() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_791_244_805_250);
        let sw = build(
            "cardholder.updated",
            &Scheme::StandardWebhooks,
            None,
            None,
            at,
        )
        .unwrap();
        let old = older(&sw, &Scheme::StandardWebhooks).unwrap();
        let b = parse(&old);
        assert_eq!(b["created_at"], "2026-10-05T23:00:05.250Z");
        assert_eq!(b["id"], format!("{}_older", sw.id));
        assert_eq!(b["data"], parse(&sw)["data"]);

        let st = build("cardholder.updated", &Scheme::Stripe, None, None, at).unwrap();
        assert_eq!(
            parse(&older(&st, &Scheme::Stripe).unwrap())["created"],
            1_791_244_805 - 3600
        );
        let gh = build("push", &Scheme::GitHub, None, None, at).unwrap();
        assert!(older(&gh, &Scheme::GitHub).is_err());
    }
}

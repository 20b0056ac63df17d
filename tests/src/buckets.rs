//! GitHub-shaped deliveries on [`Workerd`]: events about no entity, which hookonce keeps in
//! bucket objects, and what an earlier version kept in an object per event.

use std::path::PathBuf;

use hookonce_core::config::SourceConfig;
use hookonce_core::event::Event;
use hookonce_core::handoff;
use hookonce_core::time::UnixSeconds;
use hookonce_core::verify::Verifier;
use serde_json::{json, Value};

use crate::events::ADMIN_TOKEN;
use crate::workerd::{Builder, Workerd};
use crate::{sign_github, unix_now, Resp};

/// The source's name and its secret's value.
pub const SOURCE: &str = "github";
pub const SECRET: &str = "It's a Secret to Everybody";

/// `{ "github": { "scheme": "github", … } }` with `extra` fields merged in.
pub fn sources(extra: Value) -> Value {
    let mut source = json!({ "scheme": "github", "secrets": ["GITHUB_SECRET"] });
    if let (Some(s), Some(e)) = (source.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    json!({ SOURCE: source })
}

/// A workerd with the GitHub source (and `extra` fields).
pub fn builder(extra: Value) -> Builder {
    Workerd::builder()
        .sources(sources(extra))
        .text("GITHUB_SECRET", SECRET)
}

/// A push event's body, about no entity.
pub fn body(delivery: &str) -> Vec<u8> {
    json!({ "ref": "refs/heads/main", "after": delivery, "commits": [] })
        .to_string()
        .into_bytes()
}

/// The headers GitHub sends with `body` as delivery `delivery`.
pub fn headers(delivery: &str, body: &[u8]) -> Vec<(String, String)> {
    vec![
        ("x-hub-signature-256".into(), sign_github(SECRET, body)),
        ("x-github-delivery".into(), delivery.into()),
        ("x-github-event".into(), "push".into()),
    ]
}

/// Delivers `delivery` through the Worker, as GitHub does.
pub fn deliver(w: &Workerd, delivery: &str) -> Resp {
    let body = body(delivery);
    w.post(
        &format!("/webhooks/{SOURCE}"),
        &headers(delivery, &body),
        body,
    )
}

/// The hand-off the Worker makes of `delivery` (core's `handoff::encode`), verified and
/// parsed as the Worker does it.
pub fn handoff(delivery: &str) -> Vec<u8> {
    let config = SourceConfig::from_json(SOURCE, &sources(json!({}))[SOURCE]).unwrap();
    let secret = config.scheme.parse_secret(SECRET).unwrap();
    let verifier = Verifier::new(config.scheme.clone(), vec![secret], config.tolerance).unwrap();
    let body = body(delivery);
    let headers = headers(delivery, &body);
    let verified = verifier
        .verify(&headers, &body, UnixSeconds(unix_now()))
        .unwrap();
    let event = Event::parse(&verified, &headers, &config.shape).unwrap();
    assert!(event.entity().is_none(), "a push is about no entity");
    handoff::encode(SOURCE, &event, &headers, &body)
}

/// Records `delivery` as versions before buckets did: in an object of its own,
/// `github/i/{delivery}`, through the internal hand-off (needs `with_handoff`).
pub fn record_in_own_object(w: &Workerd, delivery: &str) -> Resp {
    w.hand_off(&format!("{SOURCE}/i/{delivery}"), &handoff(delivery))
}

/// An admin `method` on `path`.
pub fn admin(w: &Workerd, method: &str, path: &str) -> Resp {
    let auth = format!("Bearer {ADMIN_TOKEN}");
    let body: Option<&[u8]> = (method == "POST").then_some(b"");
    w.request(method, path, &[("authorization", auth.as_str())], body)
}

/// `GET /events/github/{delivery}`: no entity parameter.
pub fn event(w: &Workerd, delivery: &str) -> Resp {
    admin(w, "GET", &format!("/events/{SOURCE}/{delivery}"))
}

/// The entity objects' SQLite files, sorted.
pub fn files(w: &Workerd) -> Vec<PathBuf> {
    let mut files = w.entity_files();
    files.sort();
    files
}

/// The names of the tables in an object's SQLite file, read after the runtime stopped.
pub fn tables(file: &std::path::Path) -> Vec<String> {
    let c = rusqlite::Connection::open_with_flags(file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    crate::raw::first_column(&c, "SELECT name FROM sqlite_master WHERE type = 'table'")
}

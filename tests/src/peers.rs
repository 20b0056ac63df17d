//! Workers-native destinations: hookonce and a second Worker, `tests/peers/peer.js`, in
//! one `wrangler dev` (two `--config`s), so a service binding and a local queue (miniflare's)
//! connect them as they would in production. The peer relays what it receives to an
//! [`Origin`], which records it and whose answer decides: its status goes back through the
//! binding, and a queue message is acked on a 2xx, retried otherwise.
//!
//! ```no_run
//! use hookonce_e2e::origin::{self, Origin};
//! use hookonce_e2e::peers::{self, SERVICE};
//! use std::time::Duration;
//!
//! let o = Origin::start();
//! let w = peers::worker(&o, serde_json::json!({ "service": SERVICE }));
//! origin::deliver(&w, "evt_1", "ent_1");
//! let reqs = o.wait_requests(1, Duration::from_secs(20));
//! assert_eq!(reqs[0].header("x-peer-via"), Some("service"));
//! ```

use serde_json::{json, Value};

use crate::origin::{self, Origin};
use crate::{repo_root, workerd, Builder, Worker};

/// The peer Worker's name.
pub const PEER: &str = "hookonce-peer";
/// hookonce's service binding to the peer.
pub const SERVICE: &str = "PEER";
/// hookonce's producer binding to the local queue the peer consumes.
pub const QUEUE: &str = "EVENTS";
/// The local queue's name.
pub const QUEUE_NAME: &str = "hookonce-events";
/// The path the origin records service-binding requests under.
pub const SERVICE_PATH: &str = "/service";
/// The path the origin records queue messages under (the message JSON as the body).
pub const QUEUE_PATH: &str = "/queue";

/// The peer's wrangler.json: relays to `origin`, consumes [`QUEUE_NAME`] (batches of up to
/// 10, flushed within a second).
pub fn peer_config(origin: &Origin) -> Value {
    json!({
        "name": PEER,
        "main": repo_root().join("tests/peers/peer.js"),
        "compatibility_date": workerd::compatibility_date(),
        "vars": { "ORIGIN": origin.base },
        "queues": { "consumers": [
            { "queue": QUEUE_NAME, "max_batch_size": 10, "max_batch_timeout": 1, "max_retries": 10 },
        ] },
    })
}

/// hookonce with [`origin::sources`]`(forward)`, the [`SERVICE`] and [`QUEUE`] bindings, and
/// the peer relaying to `origin`; not started, for more configuration.
pub fn builder(origin: &Origin, forward: Value) -> Builder {
    builder_for(origin, origin::sources(forward))
}

/// [`builder`] with `sources` as `HOOKONCE_SOURCES` (e.g. [`origin::sources_to`]).
pub fn builder_for(origin: &Origin, sources: Value) -> Builder {
    Worker::builder()
        .var("HOOKONCE_SOURCES", sources)
        .config("services", json!([{ "binding": SERVICE, "service": PEER }]))
        .config(
            "queues",
            json!({ "producers": [{ "binding": QUEUE, "queue": QUEUE_NAME }] }),
        )
        .peer(peer_config(origin))
}

/// [`builder`], started.
pub fn worker(origin: &Origin, forward: Value) -> Worker {
    builder(origin, forward).start()
}

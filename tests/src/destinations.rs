//! A source's destinations through the admin API (`/sources/{source}/destinations/…`), on
//! workerd direct.

use serde_json::{json, Value};

use crate::events::{ADMIN_TOKEN, COCKPIT};
use crate::workerd::Workerd;
use crate::{wrangler_sources, Resp};

/// wrangler.toml's sources with `cockpit` forwarding (to a closed loopback port: nothing is
/// sent unless an event is delivered), so it has the destination named `default`.
pub fn forwarding_sources() -> Value {
    forwarding_sources_to("http://127.0.0.1:9/hooks")
}

/// wrangler.toml's sources with `cockpit` forwarding to `url`, as its destination `default`.
pub fn forwarding_sources_to(url: &str) -> Value {
    let mut sources = wrangler_sources();
    sources[COCKPIT]["forward"] = json!({ "url": url });
    sources
}

/// workerd direct with [`forwarding_sources`].
pub fn forwarding_worker() -> Workerd {
    Workerd::builder().sources(forwarding_sources()).start()
}

/// `op` (`status`, `pause` or `resume`) of `source`'s `destination`, with the admin token:
/// a `GET` for `status`, a `POST` otherwise.
pub fn destination(w: &Workerd, source: &str, destination: &str, op: &str) -> Resp {
    let method = if op == "status" { "GET" } else { "POST" };
    let path = format!("/sources/{source}/destinations/{destination}/{op}");
    let auth = format!("Bearer {ADMIN_TOKEN}");
    let body: Option<&[u8]> = (method == "POST").then_some(b"");
    w.request(method, &path, &[("authorization", auth.as_str())], body)
}

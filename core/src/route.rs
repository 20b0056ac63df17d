//! Step 1 of the flow, route: which operation a request asks for, from its method, path
//! and query.
//!
//! The router is data: [`ROUTES`] lists every method and path template, [`Route::parse`]
//! maps a request onto one [`Route`], and the OpenAPI description is checked against
//! [`ROUTES`], so the three cannot drift apart.

use std::fmt;

use crate::dead::DeadFilter;
use crate::page::{flag_param, EntityCursor, FeedQuery, PageAsk, QueryError};
use crate::percent::BadEscape;
pub use crate::percent::{decode_segment, encode_component, query_param};
use crate::time::UnixSeconds;

/// Every route: `(method, path template)`, in the order the README lists them.
pub const ROUTES: &[(&str, &str)] = &[
    ("GET", "/"),
    ("GET", "/openapi.json"),
    ("POST", "/webhooks/{source}"),
    ("GET", "/entities/{source}/{entity}"),
    ("GET", "/sources/{source}/events"),
    ("GET", "/sources/{source}/dead"),
    ("GET", "/sources/{source}/activity"),
    ("GET", "/metrics"),
    ("GET", "/events/{source}/{event_id}"),
    ("POST", "/admin/outbox/{source}/{entity}/retry"),
    ("POST", "/admin/replay/{source}/{event_id}"),
    ("GET", "/sources/{source}/destinations/{destination}/status"),
    ("POST", "/sources/{source}/destinations/{destination}/pause"),
    (
        "POST",
        "/sources/{source}/destinations/{destination}/resume",
    ),
    ("POST", "/admin/redeliver/{source}/{event_id}"),
    ("POST", "/admin/backfill/{source}/{destination}"),
    ("POST", "/admin/requeue/{source}"),
    ("POST", "/v1/messages"),
    ("GET", "/v1/messages/status"),
    ("GET", "/inspect"),
];

/// One operation, with its path parameters decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
// Exhaustive: the edge serves every route, one arm each; a new one must fail its build.
pub enum Route {
    /// `GET /`: what this service is and where things are.
    Index,
    /// `GET /openapi.json`: the API description.
    OpenApi,
    /// `POST /webhooks/{source}`: a provider's delivery.
    Receive {
        /// The configured source name.
        source: String,
    },
    /// `GET /entities/{source}/{entity}?before=CURSOR`: an entity's state, and a page of
    /// its events and outbox rows.
    Entity {
        /// The source name.
        source: String,
        /// The entity key.
        entity: String,
        /// Where the page starts; `None`: the newest.
        before: Option<EntityCursor>,
    },
    /// `GET /sources/{source}/events?limit&before&outcome&type`: the source's feed.
    Feed {
        /// The source name.
        source: String,
        /// The page asked for.
        query: FeedQuery,
    },
    /// `GET /sources/{source}/dead`: dead letters across the source's entities.
    Dead {
        /// The source name.
        source: String,
    },
    /// `GET /sources/{source}/activity`: the last hour's deliveries per minute by outcome,
    /// and each destination's health.
    Activity {
        /// The source name.
        source: String,
    },
    /// `GET /metrics`: every source's figures in the Prometheus text format.
    Metrics,
    /// `GET /inspect`: the inspector page.
    Inspect,
    /// `GET /events/{source}/{event_id}?entity=E`: one stored event.
    Event {
        /// The source name.
        source: String,
        /// The event id.
        event_id: String,
        /// The entity the event is about, if it has one (it names the object).
        entity: Option<String>,
    },
    /// `POST /admin/outbox/{source}/{entity}/retry?destination=D`: dead letters back in the
    /// queue.
    RetryDead {
        /// The source name.
        source: String,
        /// The entity key.
        entity: String,
        /// Only this destination's; `None`: those of every configured destination.
        destination: Option<String>,
    },
    /// `POST /admin/replay/{source}/{event_id}?entity=E`: run a stored event again.
    Replay {
        /// The source name.
        source: String,
        /// The event id.
        event_id: String,
        /// The entity the event is about, if it has one.
        entity: Option<String>,
    },
    /// `GET /sources/{source}/destinations/{destination}/status`, and `POST` its `pause`
    /// and `resume`: a destination's guard, shared by the source's entities.
    Destination {
        /// The source name.
        source: String,
        /// The destination's name (`default` for a source's single `forward`).
        destination: String,
        /// What is asked of it.
        op: DestinationOp,
    },
    /// `POST /admin/redeliver/{source}/{event_id}?entity=E&destination=D`: send an applied
    /// event again.
    Redeliver {
        /// The source name.
        source: String,
        /// The event id.
        event_id: String,
        /// The entity the event is about, if it has one.
        entity: Option<String>,
        /// Only to this destination; `None`: to every one that takes it.
        destination: Option<String>,
    },
    /// `POST /admin/backfill/{source}/{destination}?entity=E&since=UNIX_SECONDS`: send a
    /// destination the entity's kept events since a time.
    Backfill {
        /// The source name.
        source: String,
        /// The destination.
        destination: String,
        /// The entity.
        entity: String,
        /// Events recorded at or after this instant.
        since: UnixSeconds,
    },
    /// `POST /admin/backfill/{source}/{destination}?since=UNIX_SECONDS&limit&cursor`
    /// without `entity`: a page of the source's entities backfilled ([`crate::sweep`]).
    BackfillSource {
        /// The source name.
        source: String,
        /// The destination.
        destination: String,
        /// Events recorded at or after this instant.
        since: UnixSeconds,
        /// Which page.
        page: PageAsk,
    },
    /// `POST /admin/requeue/{source}?destination&type&since&until&reason&dry_run&limit&cursor`:
    /// a page of the source's entities' dead letters back in the queue ([`crate::sweep`]).
    Requeue {
        /// The source name.
        source: String,
        /// Which dead letters.
        filter: DeadFilter,
        /// Only count them.
        dry_run: bool,
        /// Which page.
        page: PageAsk,
    },
    /// `POST /v1/messages`: the publish API.
    Publish,
    /// `GET /v1/messages/status`: the delivery of the message published under the request's
    /// Idempotency-Key.
    MessageStatus,
}

/// What an operator asks of a destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Exhaustive: the edge serves every variant; a new one must fail its build.
pub enum DestinationOp {
    /// Its state.
    Status,
    /// Send nothing to it until resumed.
    Pause,
    /// Send to it again.
    Resume,
}

/// Why a request matches no route.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouteError {
    /// No route has this path.
    NotFound,
    /// The path exists, for another method (the one it allows).
    MethodNotAllowed {
        /// The method the path accepts.
        allow: &'static str,
    },
    /// A `%`-escape in the path or query is malformed, or decodes to invalid UTF-8.
    BadEscape,
    /// A query parameter is invalid (a cursor, a limit, a filter); it says which.
    BadQuery(QueryError),
}

impl From<BadEscape> for RouteError {
    fn from(_: BadEscape) -> RouteError {
        RouteError::BadEscape
    }
}

impl fmt::Display for RouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RouteError::NotFound => f.write_str("no such route"),
            RouteError::MethodNotAllowed { allow } => write!(f, "this path accepts {allow} only"),
            RouteError::BadEscape => f.write_str("the path or query has a malformed %-escape"),
            RouteError::BadQuery(e) => e.fmt(f),
        }
    }
}

impl Route {
    /// The route for `method` on `path` (no query) with `query` (without the `?`).
    pub fn parse(method: &str, path: &str, query: &str) -> Result<Route, RouteError> {
        let raw: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let seg = raw
            .iter()
            .map(|s| decode_segment(s))
            .collect::<Option<Vec<String>>>()
            .ok_or(RouteError::BadEscape)?;
        let s: Vec<&str> = seg.iter().map(String::as_str).collect();
        let entity = || query_param(query, "entity").transpose();
        let (allow, route) = match s.as_slice() {
            [""] => ("GET", Route::Index),
            ["openapi.json"] => ("GET", Route::OpenApi),
            ["webhooks", source] => (
                "POST",
                Route::Receive {
                    source: (*source).into(),
                },
            ),
            ["entities", source, entity] => (
                "GET",
                Route::Entity {
                    source: (*source).into(),
                    entity: (*entity).into(),
                    before: match query_param(query, "before").transpose()? {
                        Some(c) => Some(EntityCursor::decode(&c).map_err(RouteError::BadQuery)?),
                        None => None,
                    },
                },
            ),
            ["sources", source, "events"] => (
                "GET",
                Route::Feed {
                    source: (*source).into(),
                    query: FeedQuery::parse(query).map_err(RouteError::BadQuery)?,
                },
            ),
            ["sources", source, "dead"] => (
                "GET",
                Route::Dead {
                    source: (*source).into(),
                },
            ),
            ["sources", source, "activity"] => (
                "GET",
                Route::Activity {
                    source: (*source).into(),
                },
            ),
            ["metrics"] => ("GET", Route::Metrics),
            ["inspect"] => ("GET", Route::Inspect),
            ["events", source, event_id] => (
                "GET",
                Route::Event {
                    source: (*source).into(),
                    event_id: (*event_id).into(),
                    entity: entity()?,
                },
            ),
            ["admin", "outbox", source, entity, "retry"] => (
                "POST",
                Route::RetryDead {
                    source: (*source).into(),
                    entity: (*entity).into(),
                    destination: query_param(query, "destination").transpose()?,
                },
            ),
            ["admin", "replay", source, event_id] => (
                "POST",
                Route::Replay {
                    source: (*source).into(),
                    event_id: (*event_id).into(),
                    entity: entity()?,
                },
            ),
            ["sources", source, "destinations", destination, op] => {
                let (allow, op) = match *op {
                    "status" => ("GET", DestinationOp::Status),
                    "pause" => ("POST", DestinationOp::Pause),
                    "resume" => ("POST", DestinationOp::Resume),
                    _ => return Err(RouteError::NotFound),
                };
                let route = Route::Destination {
                    source: (*source).into(),
                    destination: (*destination).into(),
                    op,
                };
                (allow, route)
            }
            ["admin", "redeliver", source, event_id] => (
                "POST",
                Route::Redeliver {
                    source: (*source).into(),
                    event_id: (*event_id).into(),
                    entity: entity()?,
                    destination: query_param(query, "destination").transpose()?,
                },
            ),
            ["admin", "backfill", source, destination] => (
                "POST",
                match entity()? {
                    Some(e) if e.is_empty() => {
                        return Err(RouteError::BadQuery(QueryError::Required("entity")))
                    }
                    Some(entity) => Route::Backfill {
                        source: (*source).into(),
                        destination: (*destination).into(),
                        entity,
                        since: since(query)?,
                    },
                    None => Route::BackfillSource {
                        source: (*source).into(),
                        destination: (*destination).into(),
                        since: since(query)?,
                        page: PageAsk::parse(query).map_err(RouteError::BadQuery)?,
                    },
                },
            ),
            ["admin", "requeue", source] => (
                "POST",
                Route::Requeue {
                    source: (*source).into(),
                    filter: DeadFilter::parse(query).map_err(RouteError::BadQuery)?,
                    dry_run: flag_param(query, "dry_run").map_err(RouteError::BadQuery)?,
                    page: PageAsk::parse(query).map_err(RouteError::BadQuery)?,
                },
            ),
            ["v1", "messages"] => ("POST", Route::Publish),
            ["v1", "messages", "status"] => ("GET", Route::MessageStatus),
            _ => return Err(RouteError::NotFound),
        };
        if method != allow {
            return Err(RouteError::MethodNotAllowed { allow });
        }
        Ok(route)
    }
}

/// `?since=`: unix seconds, required.
fn since(query: &str) -> Result<UnixSeconds, RouteError> {
    let raw = query_param(query, "since")
        .transpose()?
        .ok_or(RouteError::BadQuery(QueryError::Required("since")))?;
    match raw.parse::<i64>() {
        Ok(s) if (0..=MAX_SAFE_SECONDS).contains(&s) && !raw.starts_with('+') => Ok(UnixSeconds(s)),
        _ => Err(RouteError::BadQuery(QueryError::Since)),
    }
}

/// The largest `since`: what JSON numbers hold exactly, 2^53 - 1.
const MAX_SAFE_SECONDS: i64 = (1 << 53) - 1;

/// The path and query of a serialised WHATWG URL, as the runtime hands `request.url` over,
/// without parsing it again: serialisation never leaves `?` or `#` unescaped before the
/// query or fragment, and a special scheme's path is never empty. (The `url` crate would
/// add its IDNA tables to the wasm for nothing.)
pub fn split_url(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let Some(slash) = url[after_scheme..].find('/') else {
        return ("/", "");
    };
    let rest = &url[after_scheme + slash..];
    let rest = &rest[..rest.find('#').unwrap_or(rest.len())];
    match rest.split_once('?') {
        Some((path, query)) => (path, query),
        None => (rest, ""),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_serialised_url_splits_into_its_path_and_query() {
        for (url, path, query) in [
            (
                "https://h.example/webhooks/cockpit",
                "/webhooks/cockpit",
                "",
            ),
            ("https://h.example/", "/", ""),
            ("https://h.example", "/", ""),
            (
                "http://127.0.0.1:8787/entities/a/b?before=x%3Fy&limit=2",
                "/entities/a/b",
                "before=x%3Fy&limit=2",
            ),
            ("https://h.example/a%3F%23b?c#frag?x", "/a%3F%23b", "c"),
            ("https://h.example/p#f", "/p", ""),
            ("https://h.example/p?", "/p", ""),
        ] {
            assert_eq!(split_url(url), (path, query), "{url}");
        }
    }

    use super::*;

    #[test]
    fn every_listed_route_parses_with_its_method_and_refuses_another() {
        for (method, template) in ROUTES {
            let path = template
                .replace("{source}", "cockpit")
                .replace("{entity}", "ch_1")
                .replace("{event_id}", "evt_1")
                .replace("{destination}", "billing");
            let query = "entity=ch_1&since=0";
            assert!(
                Route::parse(method, &path, query).is_ok(),
                "{method} {path}"
            );
            let other = if *method == "GET" { "POST" } else { "GET" };
            assert_eq!(
                Route::parse(other, &path, query),
                Err(RouteError::MethodNotAllowed { allow: method }),
                "{other} {path}"
            );
        }
    }

    #[test]
    fn path_segments_and_query_values_are_percent_decoded() {
        assert_eq!(
            Route::parse("GET", "/events/cockpit/evt%2F1", "entity=ch+1&x=%41"),
            Ok(Route::Event {
                source: "cockpit".into(),
                event_id: "evt/1".into(),
                entity: Some("ch 1".into()),
            })
        );
    }

    #[test]
    fn malformed_escapes_are_refused_not_guessed() {
        for bad in [
            "/webhooks/%",
            "/webhooks/%4",
            "/webhooks/%+f",
            "/webhooks/%ff",
        ] {
            assert_eq!(
                Route::parse("POST", bad, ""),
                Err(RouteError::BadEscape),
                "{bad}"
            );
        }
        assert_eq!(
            Route::parse("GET", "/events/s/e", "entity=%zz"),
            Err(RouteError::BadEscape)
        );
    }

    #[test]
    fn a_destinations_routes_name_its_source_destination_and_operation() {
        assert_eq!(
            Route::parse("POST", "/sources/cockpit/destinations/bill%2Fing/pause", ""),
            Ok(Route::Destination {
                source: "cockpit".into(),
                destination: "bill/ing".into(),
                op: DestinationOp::Pause,
            })
        );
        assert_eq!(
            Route::parse("GET", "/sources/cockpit/destinations/default/resume", ""),
            Err(RouteError::MethodNotAllowed { allow: "POST" })
        );
    }

    #[test]
    fn a_backfill_names_an_entity_or_none_and_needs_since_in_unix_seconds() {
        let parse = |q: &str| Route::parse("POST", "/admin/backfill/acme/billing", q);
        assert_eq!(
            parse("entity=e%201&since=1700000000"),
            Ok(Route::Backfill {
                source: "acme".into(),
                destination: "billing".into(),
                entity: "e 1".into(),
                since: UnixSeconds(1_700_000_000),
            })
        );
        let bad = |e| Err(RouteError::BadQuery(e));
        assert_eq!(
            parse("entity=&since=0"),
            bad(QueryError::Required("entity"))
        );
        assert_eq!(parse("entity=e"), bad(QueryError::Required("since")));
        for since in ["", "-1", "2h", "1.5", "+3", "9007199254740992", "1e9"] {
            assert_eq!(
                parse(&format!("entity=e&since={since}")),
                bad(QueryError::Since),
                "{since:?}"
            );
        }
    }

    #[test]
    fn a_backfill_without_an_entity_is_a_page_of_the_whole_source() {
        assert_eq!(
            Route::parse("POST", "/admin/backfill/acme/billing", "since=5&limit=3"),
            Ok(Route::BackfillSource {
                source: "acme".into(),
                destination: "billing".into(),
                since: UnixSeconds(5),
                page: PageAsk {
                    after: None,
                    limit: 3
                },
            })
        );
        assert_eq!(
            Route::parse("POST", "/admin/backfill/acme/billing", "since=5&limit=0"),
            Err(RouteError::BadQuery(QueryError::PageLimit))
        );
    }

    #[test]
    fn a_requeue_across_a_source_reads_its_filter_dry_run_and_page() {
        let parse = |q: &str| Route::parse("POST", "/admin/requeue/acme", q);
        let Ok(Route::Requeue {
            filter, dry_run, ..
        }) = parse("destination=billing&type=invoice.*&since=1&until=2&dry_run=true")
        else {
            panic!("a requeue")
        };
        assert!(dry_run);
        assert_eq!(filter.destination.as_deref(), Some("billing"));
        let bad = |e| Err(RouteError::BadQuery(e));
        assert_eq!(parse("since=3&until=2"), bad(QueryError::Range));
        assert_eq!(parse("until=yesterday"), bad(QueryError::Time("until")));
        assert_eq!(parse("dry_run=yes"), bad(QueryError::Flag("dry_run")));
        assert!(matches!(
            parse("type=inv*"),
            Err(RouteError::BadQuery(QueryError::Pattern(_)))
        ));
    }

    #[test]
    fn unknown_paths_are_not_found() {
        for path in [
            "/nope",
            "/webhooks",
            "/webhooks/a/b",
            "/v1/messages/x/y",
            "/sources/cockpit/destinations/default/stop",
        ] {
            assert_eq!(
                Route::parse("GET", path, ""),
                Err(RouteError::NotFound),
                "{path}"
            );
        }
    }
}

//! Which operation a request asks for, from its method, path and query.
//!
//! The router is data: [`ROUTES`] lists every method and path template, [`Route::parse`]
//! maps a request onto one [`Route`], and the OpenAPI description is checked against
//! [`ROUTES`], so the three cannot drift apart.

use std::fmt;

use crate::feed::{EntityCursor, FeedQuery, QueryError};
use crate::hex::nibble;

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
    ("POST", "/v1/messages"),
    ("GET", "/v1/messages/status"),
    ("GET", "/inspect"),
];

/// One operation, with its path parameters decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// and the destination's health.
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
    /// `POST /admin/outbox/{source}/{entity}/retry`: dead letters back in the queue.
    RetryDead {
        /// The source name.
        source: String,
        /// The entity key.
        entity: String,
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
    /// `POST /v1/messages`: the publish API.
    Publish,
    /// `GET /v1/messages/status`: the delivery of the message published under the request's
    /// Idempotency-Key.
    MessageStatus,
}

/// Why a request matches no route.
#[derive(Clone, Debug, PartialEq, Eq)]
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

/// The path and query of a serialised WHATWG URL, as the runtime hands `request.url` over,
/// without parsing it again: serialisation never leaves `?` or `#` unescaped before the
/// query or fragment, and a special scheme's path is never empty. (Parsing with the `url`
/// crate pulled its IDNA tables into the wasm for nothing.)
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

/// The first value of `name` in an `application/x-www-form-urlencoded` query, decoded
/// (`+` is a space). `Ok(None)` when absent; an error when its escape is malformed.
pub fn query_param(query: &str, name: &str) -> Option<Result<String, RouteError>> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(k, _)| decode_form(k).as_deref() == Some(name))
        .map(|(_, v)| decode_form(v).ok_or(RouteError::BadEscape))
}

/// Percent-encodes `s` for a query value or path segment: everything but RFC 3986's
/// unreserved characters is escaped, so [`query_param`] and [`decode_segment`] read it back.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

fn decode_form(s: &str) -> Option<String> {
    decode_segment(&s.replace('+', " "))
}

/// Decodes `%XX` escapes in one path segment (RFC 3986 §2.1); `None` if an escape is
/// malformed or the result is not UTF-8.
pub fn decode_segment(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            // Two hex digits exactly: from_str_radix alone would also take a sign ("%+f").
            let hex = b.get(i + 1..i + 3)?;
            out.push((nibble(hex[0])? << 4) | nibble(hex[1])?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
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
                .replace("{event_id}", "evt_1");
            assert!(Route::parse(method, &path, "").is_ok(), "{method} {path}");
            let other = if *method == "GET" { "POST" } else { "GET" };
            assert_eq!(
                Route::parse(other, &path, ""),
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
    fn an_encoded_value_decodes_to_itself() {
        for v in ["evt_1", "a b+c&d=e/f", "évt%", ""] {
            let q = format!("id={}", encode_component(v));
            assert_eq!(query_param(&q, "id"), Some(Ok(v.to_owned())), "{v}");
            assert_eq!(decode_segment(&encode_component(v)).as_deref(), Some(v));
        }
    }

    #[test]
    fn unknown_paths_are_not_found() {
        for path in ["/nope", "/webhooks", "/webhooks/a/b", "/v1/messages/x/y"] {
            assert_eq!(
                Route::parse("GET", path, ""),
                Err(RouteError::NotFound),
                "{path}"
            );
        }
    }
}

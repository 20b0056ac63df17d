//! What a page of the read API asks for, and where the next one starts: the feed's query
//! ([`FeedQuery`]), an entity read's cursor ([`EntityCursor`]), and why a query is refused
//! ([`QueryError`]). Cursors are opaque to clients: base64url text that names its list.

use std::fmt;

use crate::feed::FeedOutcome;
use crate::percent::{encode_component, query_param};
use crate::time::UnixSeconds;

/// Rows per page when `limit` is absent, and the most a page may ask for.
pub const DEFAULT_LIMIT: u32 = 50;
/// The largest `limit`.
pub const MAX_LIMIT: u32 = 200;

/// Why a feed or entity request's query is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum QueryError {
    /// `limit` is not a whole number from 1 to [`MAX_LIMIT`].
    Limit,
    /// `before` is not a cursor hookonce handed out (for this kind of list).
    Cursor,
    /// `outcome` is not one of the four.
    Outcome(String),
    /// `type` is empty.
    Type,
    /// A `%`-escape is malformed.
    Escape,
    /// A parameter the route needs is missing or empty: its name.
    Required(&'static str),
    /// `since` is not unix seconds.
    Since,
    /// A sweep's `limit` is not a whole number from 1 to [`MAX_PAGE`].
    PageLimit,
    /// A sweep's `cursor` is not one a page handed out as its `next`.
    PageCursor,
    /// A time parameter (its name) is not unix seconds.
    Time(&'static str),
    /// `since` is after `until`.
    Range,
    /// `type` is not a list of event-type patterns: why.
    Pattern(String),
    /// A flag (its name) is not `true` or `false`.
    Flag(&'static str),
    /// A text parameter (its name) is longer than this many bytes.
    TooLong(&'static str, usize),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::Limit => write!(f, "limit: expected a whole number from 1 to {MAX_LIMIT}"),
            QueryError::Cursor => f.write_str(
                "before: not a cursor hookonce gave out; pass a page's `cursor` unchanged",
            ),
            QueryError::Outcome(o) => write!(
                f,
                "outcome: {o:?} is not one of applied, duplicate, stale, rejected"
            ),
            QueryError::Type => f.write_str("type: expected an event type"),
            QueryError::Escape => f.write_str("the query has a malformed %-escape"),
            QueryError::Required(name) => write!(f, "{name}: required"),
            QueryError::Since => {
                f.write_str("since: expected unix seconds, a whole number from 0 to 2^53 - 1")
            }
            QueryError::PageLimit => {
                write!(f, "limit: expected a whole number from 1 to {MAX_PAGE}")
            }
            QueryError::PageCursor => f.write_str(
                "cursor: not a cursor hookonce gave out; pass a page's `next` unchanged",
            ),
            QueryError::TooLong(name, max) => write!(f, "{name}: longer than {max} bytes"),
            QueryError::Time(name) => write!(
                f,
                "{name}: expected unix seconds, a whole number from 0 to 2^53 - 1"
            ),
            QueryError::Range => f.write_str("since: after until, so nothing is in the range"),
            QueryError::Pattern(why) => write!(f, "type: {why}"),
            QueryError::Flag(name) => write!(f, "{name}: expected true or false"),
        }
    }
}

/// `?limit=N&before=CURSOR&outcome=O&type=T` of `GET /sources/{source}/events`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedQuery {
    /// Rows per page.
    pub limit: u32,
    /// Only rows older than this `seq`.
    pub before: Option<i64>,
    /// Only rows with this outcome.
    pub outcome: Option<FeedOutcome>,
    /// Only rows of this event type.
    pub kind: Option<String>,
}

fn param(query: &str, name: &str) -> Result<Option<String>, QueryError> {
    query_param(query, name)
        .transpose()
        .map_err(|_| QueryError::Escape)
}

/// The largest time a query takes: what JSON numbers hold exactly, 2^53 - 1.
pub const MAX_SAFE_SECONDS: i64 = (1 << 53) - 1;

/// Reads the optional time parameter `name`: unix seconds, digits only, at most
/// [`MAX_SAFE_SECONDS`].
pub fn unix_param(query: &str, name: &'static str) -> Result<Option<UnixSeconds>, QueryError> {
    let Some(raw) = param(query, name)? else {
        return Ok(None);
    };
    match raw.parse::<i64>() {
        Ok(s) if (0..=MAX_SAFE_SECONDS).contains(&s) && !raw.starts_with('+') => {
            Ok(Some(UnixSeconds(s)))
        }
        _ => Err(QueryError::Time(name)),
    }
}

/// Reads the optional flag `name`: `true` or `false`, absent is false.
pub fn flag_param(query: &str, name: &'static str) -> Result<bool, QueryError> {
    match param(query, name)?.as_deref() {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(QueryError::Flag(name)),
    }
}

/// Reads `limit` (1 to [`MAX_LIMIT`], default `default`).
fn parse_limit(query: &str, default: u32) -> Result<u32, QueryError> {
    match param(query, "limit")? {
        None => Ok(default),
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_LIMIT).contains(n))
            .ok_or(QueryError::Limit),
    }
}

impl FeedQuery {
    /// Reads the query string (without `?`).
    pub fn parse(query: &str) -> Result<FeedQuery, QueryError> {
        let limit = parse_limit(query, DEFAULT_LIMIT)?;
        let before = param(query, "before")?
            .map(|c| decode_feed_cursor(&c).ok_or(QueryError::Cursor))
            .transpose()?;
        let outcome = param(query, "outcome")?
            .map(|o| FeedOutcome::parse(&o).ok_or(QueryError::Outcome(o)))
            .transpose()?;
        let kind = param(query, "type")?;
        if kind.as_deref() == Some("") {
            return Err(QueryError::Type);
        }
        Ok(FeedQuery {
            limit,
            before,
            outcome,
            kind,
        })
    }

    /// The query string that [`FeedQuery::parse`] reads back as `self`.
    pub fn to_query(&self) -> String {
        let mut q = format!("limit={}", self.limit);
        if let Some(b) = self.before {
            q.push_str(&format!("&before={}", feed_cursor(b)));
        }
        if let Some(o) = self.outcome {
            q.push_str(&format!("&outcome={}", o.as_str()));
        }
        if let Some(t) = &self.kind {
            q.push_str(&format!("&type={}", encode_component(t)));
        }
        q
    }
}

fn encode(text: &str) -> String {
    crate::b64::URL_NO_PAD.encode(text)
}

fn decode(cursor: &str) -> Option<String> {
    String::from_utf8(crate::b64::URL_NO_PAD.decode(cursor)?).ok()
}

/// The cursor that pages back from the feed row `seq`: the rows older than it.
pub fn feed_cursor(seq: i64) -> String {
    encode(&format!("feed:{seq}"))
}

fn decode_feed_cursor(c: &str) -> Option<i64> {
    decode(c)?
        .strip_prefix("feed:")?
        .parse()
        .ok()
        .filter(|s| *s > 0)
}

/// The next page's cursor: the last row's, when the store returned more rows than the
/// page shows (the edge asks for `limit + 1`).
pub fn next_cursor(returned: usize, limit: u32, last_shown_seq: Option<i64>) -> Option<String> {
    (returned > limit as usize)
        .then_some(last_shown_seq)
        .flatten()
        .map(feed_cursor)
}

/// Where the next page of an entity read starts: before this event (by processed time,
/// then id), and before this outbox row. `None`: that list is exhausted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityCursor {
    /// The last event shown: `(processed_at, event_id)`.
    pub events: Option<(i64, String)>,
    /// The last outbox row shown: its `seq`.
    pub outbox: Option<i64>,
}

/// Events per entity page.
pub const ENTITY_EVENTS: u32 = 20;
/// Outbox rows per entity page.
pub const ENTITY_OUTBOX: u32 = 50;

impl EntityCursor {
    /// The cursor after a page, if either list has more; each argument is the last row
    /// shown when that list has more rows, else `None`.
    pub fn after(events: Option<(i64, &str)>, outbox: Option<i64>) -> Option<EntityCursor> {
        (events.is_some() || outbox.is_some()).then(|| EntityCursor {
            events: events.map(|(t, id)| (t, id.to_owned())),
            outbox,
        })
    }

    /// The opaque text a client passes back as `before`.
    pub fn encode(&self) -> String {
        let o = self
            .outbox
            .map_or_else(|| "-".to_owned(), |s| s.to_string());
        match &self.events {
            Some((t, id)) => encode(&format!("entity:{o}:{t}:{id}")),
            None => encode(&format!("entity:{o}:-")),
        }
    }

    /// Reads back what [`EntityCursor::encode`] wrote.
    pub fn decode(c: &str) -> Result<EntityCursor, QueryError> {
        let text = decode(c).ok_or(QueryError::Cursor)?;
        let rest = text.strip_prefix("entity:").ok_or(QueryError::Cursor)?;
        let (o, rest) = rest.split_once(':').ok_or(QueryError::Cursor)?;
        let outbox = match o {
            "-" => None,
            s => Some(s.parse().map_err(|_| QueryError::Cursor)?),
        };
        let events = match rest {
            "-" => None,
            s => {
                let (t, id) = s.split_once(':').ok_or(QueryError::Cursor)?;
                let t = t.parse().map_err(|_| QueryError::Cursor)?;
                Some((t, id.to_owned()))
            }
        };
        Ok(EntityCursor { events, outbox })
    }
}

/// Entities per sweep page (`sweep::Sweep`) when `limit` is absent.
pub const DEFAULT_PAGE: u32 = 25;
/// The most entities one page calls: each is a subrequest of the Worker's.
pub const MAX_PAGE: u32 = 100;

/// `?limit=N&cursor=C` of a sweep: where the page starts and how many entities it calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageAsk {
    /// After this entity key (the previous page's `next`); `None`: from the first.
    pub after: Option<String>,
    /// Entities to call, 1 to [`MAX_PAGE`]; 0 reads as [`DEFAULT_PAGE`].
    pub limit: u32,
}

impl PageAsk {
    /// Reads `limit` and `cursor` from a query string.
    pub fn parse(query: &str) -> Result<PageAsk, QueryError> {
        let get = |k| param(query, k);
        let limit = match get("limit")? {
            None => DEFAULT_PAGE,
            Some(s) => s
                .parse()
                .ok()
                .filter(|n| (1..=MAX_PAGE).contains(n))
                .ok_or(QueryError::PageLimit)?,
        };
        let after = match get("cursor")? {
            None => None,
            Some(c) => Some(decode_sweep_cursor(&c).ok_or(QueryError::PageCursor)?),
        };
        Ok(PageAsk { after, limit })
    }
}

/// The opaque cursor of a sweep's page after entity `key`.
#[must_use]
pub fn sweep_cursor(key: &str) -> String {
    encode(&format!("sweep:{key}"))
}

fn decode_sweep_cursor(c: &str) -> Option<String> {
    decode(c)?.strip_prefix("sweep:").map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_parse_and_bad_ones_say_what_is_wrong() {
        let q = FeedQuery::parse("limit=5&outcome=rejected&type=a.b").unwrap();
        assert_eq!(q.limit, 5);
        assert_eq!(q.outcome, Some(FeedOutcome::Rejected));
        assert_eq!(q.kind.as_deref(), Some("a.b"));
        assert_eq!(FeedQuery::parse("").unwrap().limit, DEFAULT_LIMIT);
        let q = FeedQuery::parse(&format!("before={}&type=x%20y", feed_cursor(9))).unwrap();
        assert_eq!(q.before, Some(9));
        assert_eq!(FeedQuery::parse(&q.to_query()), Ok(q));
        for (bad, err) in [
            ("limit=0", QueryError::Limit),
            ("limit=201", QueryError::Limit),
            ("limit=x", QueryError::Limit),
            ("before=nope", QueryError::Cursor),
            ("outcome=lost", QueryError::Outcome("lost".into())),
            ("type=", QueryError::Type),
            ("type=%zz", QueryError::Escape),
        ] {
            assert_eq!(FeedQuery::parse(bad), Err(err), "{bad}");
        }
        // An entity cursor is not a feed cursor.
        let e = EntityCursor::after(Some((1, "evt")), None)
            .unwrap()
            .encode();
        assert_eq!(
            FeedQuery::parse(&format!("before={e}")),
            Err(QueryError::Cursor)
        );
    }

    #[test]
    fn a_next_cursor_is_given_only_when_there_is_more() {
        assert_eq!(next_cursor(5, 5, Some(3)), None);
        assert_eq!(next_cursor(6, 5, Some(3)), Some(feed_cursor(3)));
    }

    #[test]
    fn entity_cursors_round_trip_with_either_list_exhausted() {
        for c in [
            EntityCursor::after(Some((17, "evt:with:colons")), Some(4)),
            EntityCursor::after(None, Some(4)),
            EntityCursor::after(Some((17, "e")), None),
        ] {
            let c = c.unwrap();
            assert_eq!(EntityCursor::decode(&c.encode()), Ok(c));
        }
        assert_eq!(EntityCursor::after(None, None), None);
        assert_eq!(
            EntityCursor::decode(&feed_cursor(3)),
            Err(QueryError::Cursor)
        );
        assert_eq!(EntityCursor::decode("%%%"), Err(QueryError::Cursor));
    }

    #[test]
    fn a_page_ask_reads_its_limit_and_cursor_and_refuses_bad_ones() {
        assert_eq!(
            PageAsk::parse(""),
            Ok(PageAsk {
                after: None,
                limit: DEFAULT_PAGE
            })
        );
        let c = sweep_cursor("cus:1");
        assert_eq!(
            PageAsk::parse(&format!("limit=100&cursor={c}")),
            Ok(PageAsk {
                after: Some("cus:1".into()),
                limit: 100
            })
        );
        for (bad, e) in [
            ("limit=0", QueryError::PageLimit),
            ("limit=101", QueryError::PageLimit),
            ("limit=x", QueryError::PageLimit),
            ("cursor=nope", QueryError::PageCursor),
            ("cursor=%zz", QueryError::Escape),
        ] {
            assert_eq!(PageAsk::parse(bad), Err(e), "{bad}");
        }
        // A feed cursor is not a sweep cursor.
        let feed = feed_cursor(3);
        assert_eq!(
            PageAsk::parse(&format!("cursor={feed}")),
            Err(QueryError::PageCursor)
        );
    }
}

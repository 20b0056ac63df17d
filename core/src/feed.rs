//! The source-wide feed: what a row says, how many rows a source keeps and for how long,
//! how rejected requests are sampled, how cursors are encoded, and which rows to prune.
//!
//! The edge keeps one feed store per source. Entity objects and the Worker post it a
//! [`Note`] after they have answered; [`admit`] turns a note, with what the store holds
//! ([`FeedState`]), into the [`FeedWrite`]s to run, one statement each.

use crate::small_map::SmallMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::ConfigError;
use crate::route::query_param;
use crate::time::{Seconds, UnixSeconds};

/// Rows a source's feed keeps by default.
pub const DEFAULT_KEEP: u32 = 1_000;
/// How long a feed row is kept by default (7 days).
pub const DEFAULT_MAX_AGE: Seconds = Seconds(7 * 86_400);
/// Rejected requests recorded per source and minute by default; the rest are counted.
pub const DEFAULT_REJECTED_PER_MINUTE: u32 = 10;
/// The most rows a feed may be configured to keep.
pub const MAX_KEEP: u32 = 100_000;
/// Rows per page when `limit` is absent, and the most a page may ask for.
pub const DEFAULT_LIMIT: u32 = 50;
/// The largest `limit`.
pub const MAX_LIMIT: u32 = 200;
/// The feed prunes once every this many rows, so a row costs one insert, not a delete too.
pub const PRUNE_EVERY: i64 = 32;
/// A rejected row's reason is cut to this many bytes.
pub const MAX_REASON: usize = 200;

/// How a source's feed is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeedPolicy {
    /// At most this many rows (plus up to [`PRUNE_EVERY`] between prunes).
    pub keep: u32,
    /// Rows older than this are pruned; `None`: only `keep` bounds the feed.
    pub max_age: Option<Seconds>,
    /// Rejected requests recorded per minute; more are counted, not stored.
    pub rejected_per_minute: u32,
}

impl Default for FeedPolicy {
    fn default() -> Self {
        FeedPolicy {
            keep: DEFAULT_KEEP,
            max_age: Some(DEFAULT_MAX_AGE),
            rejected_per_minute: DEFAULT_REJECTED_PER_MINUTE,
        }
    }
}

/// The `HOOKONCE_FEED` variable: a default policy and per-source overrides.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeedConfig {
    default: FeedPolicy,
    by_source: SmallMap<String, FeedPolicy>,
}

const VAR: &str = "HOOKONCE_FEED";

fn policy_from(at: &str, v: &Value, base: FeedPolicy) -> Result<FeedPolicy, ConfigError> {
    let obj = v
        .as_object()
        .ok_or_else(|| ConfigError::Invalid(at.to_owned(), "expected an object"))?;
    let mut p = base;
    for (k, v) in obj {
        let path = format!("{at}.{k}");
        let n = || {
            v.as_u64()
                .ok_or_else(|| ConfigError::Invalid(path.clone(), "expected a whole number"))
        };
        match k.as_str() {
            "keep" => {
                p.keep = u32::try_from(n()?)
                    .ok()
                    .filter(|k| (1..=MAX_KEEP).contains(k))
                    .ok_or_else(|| ConfigError::Invalid(path.clone(), "expected 1 to 100000"))?;
            }
            // 0: no age limit, only `keep`.
            "max_age_secs" => p.max_age = Some(Seconds(n()?)).filter(|s| s.0 > 0),
            "rejected_per_minute" => {
                p.rejected_per_minute = u32::try_from(n()?)
                    .ok()
                    .filter(|r| *r <= 1_000)
                    .ok_or_else(|| ConfigError::Invalid(path.clone(), "expected 0 to 1000"))?;
            }
            "sources" if at == VAR => {}
            _ => return Err(ConfigError::Unknown(path)),
        }
    }
    Ok(p)
}

impl FeedConfig {
    /// Reads `{"keep": N, "max_age_secs": T, "rejected_per_minute": R, "sources": {name: {…}}}`;
    /// every field is optional.
    pub fn from_json(v: &Value) -> Result<FeedConfig, ConfigError> {
        let default = policy_from(VAR, v, FeedPolicy::default())?;
        let mut by_source = SmallMap::new();
        if let Some(sources) = v.get("sources") {
            let at = format!("{VAR}.sources");
            let sources = sources
                .as_object()
                .ok_or_else(|| ConfigError::Invalid(at.clone(), "expected an object"))?;
            for (name, p) in sources {
                by_source.insert(
                    name.clone(),
                    policy_from(&format!("{at}.{name}"), p, default)?,
                );
            }
        }
        Ok(FeedConfig { default, by_source })
    }

    /// The policy for `source`.
    pub fn for_source(&self, source: &str) -> FeedPolicy {
        self.by_source.get(source).copied().unwrap_or(self.default)
    }
}

/// What a feed row reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedOutcome {
    /// A new event, applied.
    Applied,
    /// A copy of an event seen before; nothing written.
    Duplicate,
    /// Older than the entity's state; recorded, not applied.
    Stale,
    /// Refused before it reached an entity: signature, parse or size.
    Rejected,
}

impl FeedOutcome {
    /// The stored and reported name.
    pub fn as_str(self) -> &'static str {
        match self {
            FeedOutcome::Applied => "applied",
            FeedOutcome::Duplicate => "duplicate",
            FeedOutcome::Stale => "stale",
            FeedOutcome::Rejected => "rejected",
        }
    }

    /// Reads a name back.
    pub fn parse(s: &str) -> Option<FeedOutcome> {
        [
            FeedOutcome::Applied,
            FeedOutcome::Duplicate,
            FeedOutcome::Stale,
            FeedOutcome::Rejected,
        ]
        .into_iter()
        .find(|o| o.as_str() == s)
    }

    /// The outcome a decision's label reports in the feed; `None` for a delivery that is
    /// not over yet (in flight, claimed, released).
    pub fn of_decision(label: &str) -> Option<FeedOutcome> {
        FeedOutcome::parse(label).filter(|o| *o != FeedOutcome::Rejected)
    }
}

/// What an entity object or the Worker tells a source's feed, after it has answered.
///
/// On the wire it is externally tagged (`{"delivery": {…}}`): an internally tagged enum
/// is read through serde's buffering `Content` deserializer, a second copy of every
/// field's deserializer (15.7 KB of wasm, 5.5 KB gzipped).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Note {
    /// A delivery reached a decision.
    Delivery {
        /// The event id.
        event_id: String,
        /// The event type.
        event_type: String,
        /// The entity, if the event has one.
        entity: Option<String>,
        /// Applied, duplicate or stale.
        outcome: FeedOutcome,
        /// Rows the decision wrote.
        rows_written: u32,
        /// When it arrived, unix seconds.
        received_at: i64,
    },
    /// A delivery refused before any entity saw it. Never its body or its signature.
    Rejected {
        /// The status answered (400, 401, 413).
        status: u16,
        /// Why, as answered.
        reason: String,
        /// When it arrived, unix seconds.
        received_at: i64,
        /// Rejected requests the sender did not pass on before this one.
        skipped: u32,
    },
    /// An outbox row became a dead letter.
    Dead(DeadLetter),
    /// An admin put an entity's dead letters back in the queue.
    Requeued {
        /// The entity.
        entity: String,
    },
    /// An alarm pass made forward attempts that came to this result (`/metrics` counts
    /// them; the feed keeps no row).
    Attempts {
        /// `metrics::attempt_result`'s label.
        result: String,
        /// How many.
        count: u32,
    },
}

/// A dead letter, as noted and as kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadLetter {
    /// The entity, if the event has one.
    pub entity: Option<String>,
    /// The event id.
    pub event_id: String,
    /// Attempts made.
    pub attempts: u32,
    /// The last attempt's result (cut to [`MAX_REASON`] bytes when kept).
    pub last_result: String,
    /// When it died, unix seconds.
    pub at: i64,
}

/// One row of the feed, as stored and as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedRow {
    /// Its position: newer rows have larger numbers.
    pub seq: i64,
    /// When the delivery arrived, unix seconds.
    pub received_at: i64,
    /// What came of it.
    pub outcome: FeedOutcome,
    /// The event id (absent for a rejected request).
    pub event_id: Option<String>,
    /// The event type (absent for a rejected request).
    pub event_type: Option<String>,
    /// The entity.
    pub entity: Option<String>,
    /// Rows the decision wrote.
    pub rows_written: u32,
    /// A rejected request's status.
    pub status: Option<u16>,
    /// A rejected request's reason.
    pub reason: Option<String>,
}

/// What the feed store holds that bears on a note: its newest row and this minute's
/// rejected-request window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeedState {
    /// The newest row's `seq` (0 when empty).
    pub last_seq: i64,
    /// The rejected-request window.
    pub window: RejectWindow,
}

/// Rejected requests in the current minute: how many were recorded, and how many were
/// not recorded, ever.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RejectWindow {
    /// The minute (unix seconds / 60) the count is for.
    pub minute: i64,
    /// Rejected rows recorded in that minute.
    pub recorded: u32,
    /// Rejected requests counted and not stored, since the feed began.
    pub suppressed: u64,
}

impl RejectWindow {
    /// Whether one more rejected request at `now` may be recorded under `per_minute`,
    /// and the window after it. Used by the feed store (authoritative) and by each Worker
    /// isolate (so a flood does not even cost requests to the store).
    pub fn admit(self, now: UnixSeconds, per_minute: u32, skipped: u32) -> (bool, RejectWindow) {
        let minute = now.0.div_euclid(60);
        let recorded = if minute == self.minute {
            self.recorded
        } else {
            0
        };
        let suppressed = self.suppressed + u64::from(skipped);
        if recorded < per_minute {
            let w = RejectWindow {
                minute,
                recorded: recorded + 1,
                suppressed,
            };
            (true, w)
        } else {
            let w = RejectWindow {
                minute,
                recorded,
                suppressed: suppressed + 1,
            };
            (false, w)
        }
    }
}

/// One statement the feed store runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedWrite {
    /// Append these rows, in order: one statement for a run of deliveries, where a
    /// statement per row cost the feed object most of its time under load.
    Append(Vec<FeedRow>),
    /// Store the rejected-request window.
    Window(RejectWindow),
    /// Delete rows with `seq <= through`, then, from the oldest left, the rows received
    /// before `before` up to the first that was not. Rows arrive nearly in time order, so
    /// this reads only the rows it deletes; an old row behind a newer one goes at a later
    /// prune, seconds later.
    Prune {
        /// The newest `seq` that no longer fits in `keep`.
        through: i64,
        /// The age cutoff, if any.
        before: Option<UnixSeconds>,
    },
    /// Keep the `keep` newest dead letters only.
    PruneDead {
        /// How many to keep.
        keep: u32,
    },
    /// Record (or refresh) a dead letter, keyed by (entity, event id).
    Dead(DeadLetter),
    /// Forget an entity's dead letters (they were requeued).
    Requeued {
        /// The entity.
        entity: String,
    },
}

/// Cuts `s` to at most `max` bytes, on a character boundary.
fn cut(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// What the feed store writes for `note`, given what it holds and `now`.
pub fn admit(
    note: &Note,
    state: &FeedState,
    policy: FeedPolicy,
    now: UnixSeconds,
) -> Vec<FeedWrite> {
    let seq = state.last_seq + 1;
    let mut writes = Vec::new();
    match note {
        Note::Delivery {
            event_id,
            event_type,
            entity,
            outcome,
            rows_written,
            received_at,
        } => writes.push(FeedWrite::Append(vec![FeedRow {
            seq,
            received_at: *received_at,
            outcome: *outcome,
            event_id: Some(event_id.clone()),
            event_type: Some(event_type.clone()),
            entity: entity.clone(),
            rows_written: *rows_written,
            status: None,
            reason: None,
        }])),
        Note::Rejected {
            status,
            reason,
            received_at,
            skipped,
        } => {
            let (record, window) = state.window.admit(
                UnixSeconds(*received_at),
                policy.rejected_per_minute,
                *skipped,
            );
            writes.push(FeedWrite::Window(window));
            if !record {
                return writes;
            }
            writes.push(FeedWrite::Append(vec![FeedRow {
                seq,
                received_at: *received_at,
                outcome: FeedOutcome::Rejected,
                event_id: None,
                event_type: None,
                entity: None,
                rows_written: 0,
                status: Some(*status),
                reason: Some(cut(reason, MAX_REASON)),
            }]));
        }
        Note::Dead(d) => {
            let kept = DeadLetter {
                last_result: cut(&d.last_result, MAX_REASON),
                ..d.clone()
            };
            return vec![
                FeedWrite::Dead(kept),
                FeedWrite::PruneDead { keep: policy.keep },
            ];
        }
        Note::Requeued { entity } => {
            return vec![FeedWrite::Requeued {
                entity: entity.clone(),
            }]
        }
        Note::Attempts { .. } => return Vec::new(),
    }
    if seq % PRUNE_EVERY == 0 {
        writes.push(FeedWrite::Prune {
            through: seq - i64::from(policy.keep),
            before: policy.max_age.map(|age| now.minus(age)),
        });
    }
    writes
}

/// What the feed store writes for `notes`: the store ends up as it would one note at a
/// time, each note seeing the sequence number and rejected-request window the ones before
/// it left. Rows appended back to back are one [`FeedWrite::Append`], and the batch prunes
/// once, where its last prune falls: each prune deletes every row an earlier one would
/// (its `through` is larger, its age bound the same, and what it deletes is a prefix of
/// the rows by `seq`). A batch of 500 notes used to run 15.
pub fn admit_batch(
    notes: &[Note],
    state: &FeedState,
    policy: FeedPolicy,
    now: UnixSeconds,
) -> Vec<FeedWrite> {
    let mut state = *state;
    let mut writes: Vec<FeedWrite> = Vec::new();
    for note in notes {
        for w in admit(note, &state, policy, now) {
            match &w {
                FeedWrite::Append(rows) => {
                    state.last_seq = rows.last().map_or(state.last_seq, |r| r.seq);
                }
                FeedWrite::Window(window) => state.window = *window,
                FeedWrite::Prune { .. }
                | FeedWrite::PruneDead { .. }
                | FeedWrite::Dead(_)
                | FeedWrite::Requeued { .. } => {}
            }
            writes.push(w);
        }
    }
    let last_prune = writes
        .iter()
        .rposition(|w| matches!(w, FeedWrite::Prune { .. }));
    let mut out: Vec<FeedWrite> = Vec::with_capacity(writes.len());
    for (i, w) in writes.into_iter().enumerate() {
        match w {
            FeedWrite::Prune { .. } if Some(i) != last_prune => {}
            FeedWrite::Append(rows) => match out.last_mut() {
                Some(FeedWrite::Append(run)) => run.extend(rows),
                _ => out.push(FeedWrite::Append(rows)),
            },
            other => out.push(other),
        }
    }
    out
}

/// Why a feed or entity request's query is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
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
            q.push_str(&format!("&type={}", crate::route::encode_component(t)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: UnixSeconds = UnixSeconds(1_791_244_800);

    fn delivery(n: u32) -> Note {
        Note::Delivery {
            event_id: format!("evt_{n}"),
            event_type: "t".into(),
            entity: Some("ch_1".into()),
            outcome: FeedOutcome::Applied,
            rows_written: 3,
            received_at: NOW.0,
        }
    }

    /// A delivery received before the default age cutoff.
    fn old_delivery(n: u32) -> Note {
        let mut note = delivery(n);
        if let Note::Delivery { received_at, .. } = &mut note {
            *received_at = NOW.minus(DEFAULT_MAX_AGE).0 - 1;
        }
        note
    }

    fn rejected(at: i64) -> Note {
        Note::Rejected {
            status: 401,
            reason: "no signature matches".into(),
            received_at: at,
            skipped: 0,
        }
    }

    /// What `w` does to an in-memory feed's rows, as the edge's statements would.
    fn apply(rows: &mut Vec<FeedRow>, w: &FeedWrite) {
        match w {
            FeedWrite::Append(appended) => rows.extend(appended.iter().cloned()),
            FeedWrite::Prune { through, before } => {
                rows.retain(|r| r.seq > *through);
                let old = |r: &FeedRow| before.is_some_and(|b| r.received_at < b.0);
                let first_kept = rows.iter().position(|r| !old(r)).unwrap_or(rows.len());
                rows.drain(..first_kept);
            }
            _ => {}
        }
    }

    /// Runs notes through `admit` one at a time against an in-memory feed, as the edge
    /// would: its rows, its state, and every write in order.
    fn run_from(
        notes: &[Note],
        start: FeedState,
        policy: FeedPolicy,
    ) -> (Vec<FeedRow>, FeedState, Vec<FeedWrite>) {
        let mut rows: Vec<FeedRow> = Vec::new();
        let mut state = start;
        let mut writes = Vec::new();
        for note in notes {
            for w in admit(note, &state, policy, NOW) {
                apply(&mut rows, &w);
                match &w {
                    FeedWrite::Append(appended) => {
                        state.last_seq = appended.last().map_or(state.last_seq, |r| r.seq)
                    }
                    FeedWrite::Window(win) => state.window = *win,
                    _ => {}
                }
                writes.push(w);
            }
        }
        (rows, state, writes)
    }

    fn run(notes: &[Note], policy: FeedPolicy) -> (Vec<FeedRow>, FeedState) {
        let (rows, state, _) = run_from(notes, FeedState::default(), policy);
        (rows, state)
    }

    #[test]
    fn a_batch_leaves_the_feed_as_its_notes_one_at_a_time_would() {
        let policy = FeedPolicy {
            keep: 20,
            rejected_per_minute: 3,
            ..FeedPolicy::default()
        };
        // Deliveries and rejections, enough of both to cross several prunes and the sample
        // limit; some received before the age cutoff.
        let notes: Vec<Note> = (0..300)
            .map(|n| match n % 4 {
                0 => rejected(NOW.0),
                1 if n < 40 => old_delivery(n),
                _ => delivery(n),
            })
            .collect();
        let start = FeedState {
            last_seq: 7,
            ..FeedState::default()
        };
        let (rows, state, one_at_a_time) = run_from(&notes, start, policy);
        let batch = admit_batch(&notes, &start, policy, NOW);
        let mut batch_rows = Vec::new();
        for w in &batch {
            apply(&mut batch_rows, w);
        }
        assert_eq!(batch_rows, rows);
        let window = batch.iter().rev().find_map(|w| match w {
            FeedWrite::Window(win) => Some(*win),
            _ => None,
        });
        assert_eq!(window, Some(state.window));
        let prunes = |ws: &[FeedWrite]| {
            ws.iter()
                .filter(|w| matches!(w, FeedWrite::Prune { .. }))
                .count()
        };
        assert!(prunes(&one_at_a_time) > 1, "the notes cross several prunes");
        assert_eq!(prunes(&batch), 1);
        let apart = batch
            .windows(2)
            .all(|p| !matches!(p, [FeedWrite::Append(_), FeedWrite::Append(_)]));
        assert!(apart, "rows appended back to back are one write");
        // 225 deliveries, and 3 of the 75 rejections (one minute's sample).
        let inserted: usize = batch
            .iter()
            .map(|w| match w {
                FeedWrite::Append(rows) => rows.len(),
                _ => 0,
            })
            .sum();
        assert_eq!(inserted, 225 + 3);
    }

    #[test]
    fn a_batch_appends_its_rows_around_one_prune() {
        let notes: Vec<Note> = (1..=100).map(delivery).collect();
        let w = admit_batch(&notes, &FeedState::default(), FeedPolicy::default(), NOW);
        let shape: Vec<String> = w
            .iter()
            .map(|w| match w {
                FeedWrite::Append(rows) => format!("{}..{}", rows[0].seq, rows[rows.len() - 1].seq),
                FeedWrite::Prune { through, .. } => format!("prune through {through}"),
                other => format!("{other:?}"),
            })
            .collect();
        let through = 96 - i64::from(DEFAULT_KEEP);
        assert_eq!(
            shape,
            ["1..96", &format!("prune through {through}"), "97..100"]
        );
    }

    #[test]
    fn a_delivery_becomes_one_row_with_what_it_came_to() {
        let w = admit(
            &delivery(1),
            &FeedState::default(),
            FeedPolicy::default(),
            NOW,
        );
        assert_eq!(w.len(), 1);
        let [FeedWrite::Append(rows)] = &w[..] else {
            panic!("{w:?}")
        };
        let [row] = &rows[..] else { panic!("{rows:?}") };
        assert_eq!(row.seq, 1);
        assert_eq!(row.event_id.as_deref(), Some("evt_1"));
        assert_eq!(row.outcome, FeedOutcome::Applied);
        assert_eq!(row.rows_written, 3);
    }

    #[test]
    fn the_feed_keeps_at_most_keep_rows_plus_one_prune_interval() {
        let policy = FeedPolicy {
            keep: 50,
            ..FeedPolicy::default()
        };
        let notes: Vec<Note> = (0..1_000).map(delivery).collect();
        let (rows, _) = run(&notes, policy);
        assert!(rows.len() <= 50 + PRUNE_EVERY as usize, "{}", rows.len());
        assert!(rows.len() >= 50);
        assert_eq!(rows.last().unwrap().event_id.as_deref(), Some("evt_999"));
    }

    #[test]
    fn old_rows_are_pruned_by_age() {
        let w = admit(
            &delivery(1),
            &FeedState {
                last_seq: PRUNE_EVERY - 1,
                ..FeedState::default()
            },
            FeedPolicy::default(),
            NOW,
        );
        assert!(w.contains(&FeedWrite::Prune {
            through: PRUNE_EVERY - i64::from(DEFAULT_KEEP),
            before: Some(NOW.minus(DEFAULT_MAX_AGE)),
        }));
    }

    #[test]
    fn a_flood_of_rejected_requests_records_a_few_per_minute_and_counts_the_rest() {
        let policy = FeedPolicy::default();
        let notes: Vec<Note> = (0..10_000).map(|i| rejected(NOW.0 + i / 100)).collect();
        let (rows, state) = run(&notes, policy);
        // 10,000 requests over 100 s: two minutes, 10 rows each at most.
        assert!(rows.len() <= 20 + 10, "{}", rows.len());
        assert_eq!(rows.len() as u64 + state.window.suppressed, 10_000);
        assert!(rows.iter().all(|r| r.outcome == FeedOutcome::Rejected));
        // A delivery still gets in.
        let (rows, _) = run(&[notes, vec![delivery(1)]].concat(), policy);
        assert_eq!(rows.last().unwrap().outcome, FeedOutcome::Applied);
    }

    #[test]
    fn a_senders_skipped_requests_are_counted_and_a_reason_is_cut() {
        let note = Note::Rejected {
            status: 400,
            reason: "é".repeat(300),
            received_at: NOW.0,
            skipped: 7,
        };
        let (rows, state) = run(&[note], FeedPolicy::default());
        assert_eq!(state.window.suppressed, 7);
        assert!(rows[0].reason.as_ref().unwrap().len() <= MAX_REASON);
        let none = FeedPolicy {
            rejected_per_minute: 0,
            ..FeedPolicy::default()
        };
        assert!(run(&[rejected(NOW.0)], none).0.is_empty());
    }

    #[test]
    fn dead_letters_are_kept_by_entity_and_forgotten_when_requeued() {
        let dead = Note::Dead(DeadLetter {
            entity: None,
            event_id: "evt_1".into(),
            attempts: 3,
            last_result: "x".repeat(500),
            at: NOW.0,
        });
        let w = admit(&dead, &FeedState::default(), FeedPolicy::default(), NOW);
        assert!(matches!(&w[0], FeedWrite::Dead(d) if d.last_result.len() == MAX_REASON));
        assert_eq!(w[1], FeedWrite::PruneDead { keep: DEFAULT_KEEP });
        let requeued = Note::Requeued {
            entity: "ch_1".into(),
        };
        assert_eq!(
            admit(&requeued, &FeedState::default(), FeedPolicy::default(), NOW),
            vec![FeedWrite::Requeued {
                entity: "ch_1".into()
            }]
        );
    }

    #[test]
    fn notes_travel_as_json() {
        for note in [delivery(1), rejected(1)] {
            let text = serde_json::to_string(&note).unwrap();
            assert_eq!(serde_json::from_str::<Note>(&text).unwrap(), note);
        }
        assert!(serde_json::to_string(&delivery(1))
            .unwrap()
            .starts_with(r#"{"delivery":{"event_id":"#));
        let dead = Note::Dead(DeadLetter {
            entity: None,
            event_id: "evt_1".into(),
            attempts: 3,
            last_result: "503".into(),
            at: NOW.0,
        });
        let text = serde_json::to_string(&dead).unwrap();
        assert!(text.starts_with(r#"{"dead":{"entity":null,"#), "{text}");
        assert_eq!(serde_json::from_str::<Note>(&text).unwrap(), dead);
    }

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
    fn the_config_has_defaults_per_source_overrides_and_named_errors() {
        let c = FeedConfig::from_json(&json!({
            "keep": 500, "sources": { "cockpit": { "max_age_secs": 0, "rejected_per_minute": 2 } }
        }))
        .unwrap();
        assert_eq!(c.for_source("other").keep, 500);
        let p = c.for_source("cockpit");
        assert_eq!((p.keep, p.max_age, p.rejected_per_minute), (500, None, 2));
        assert_eq!(
            FeedConfig::from_json(&json!({})).unwrap(),
            FeedConfig::default()
        );
        assert_eq!(
            FeedConfig::from_json(&json!({ "keep": 0 })),
            Err(ConfigError::Invalid(
                "HOOKONCE_FEED.keep".into(),
                "expected 1 to 100000"
            ))
        );
        assert_eq!(
            FeedConfig::from_json(&json!({ "sources": { "a": { "kep": 1 } } })),
            Err(ConfigError::Unknown("HOOKONCE_FEED.sources.a.kep".into()))
        );
    }
}

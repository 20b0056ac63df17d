//! `GET /metrics`: a source's figures, what feeds them, and their Prometheus text exposition.
//!
//! Two kinds of figure, by where they come from:
//! - exact gauges (pending outbox rows, the oldest one's age, dead letters held) are sums of
//!   [`OutboxSnapshot`]s: each entity object counts its own outbox rows after every alarm
//!   pass (every change to them is followed by one) and, when they differ from what it last
//!   told its feed, tells it and awaits the answer; without one it keeps an alarm within a
//!   minute to tell it again, so a snapshot is never lost, and as a snapshot is absolute,
//!   telling it twice is harmless. A healthy destination costs nothing: a row enqueued and
//!   delivered leaves the count as it was. The event path pays nothing;
//! - best-effort counters (deliveries by outcome, rejections by reason, forward attempts by
//!   result) are added up from the feed's notes ([`counts`]), which a crash can lose.
//!
//! Every label is bounded: the source, a destination the configuration names (or named,
//! while its dead letters are held), and a value from a fixed list. Never an entity or an
//! event id.

use std::fmt::Write;

use crate::feed::Note;
use crate::retry::AttemptResult;
use crate::time::UnixSeconds;

/// The counter families a feed object keeps, by name.
pub const DELIVERIES: &str = "deliveries";
/// Rejected deliveries by reason.
pub const REJECTED: &str = "rejected";
/// Forward attempts by result.
pub const ATTEMPTS: &str = "attempts";
/// Rows superseded (`deliver = "latest"`) by destination.
pub const SUPERSEDED: &str = "superseded";

/// An addition to one counter of a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Count {
    /// The family: [`DELIVERIES`], [`REJECTED`], [`ATTEMPTS`] or [`SUPERSEDED`].
    pub family: String,
    /// The label value within it (an outcome, a reason, a result).
    pub label: String,
    /// How much to add.
    pub by: u64,
}

/// The reason label of a rejected delivery, from the status it was answered with.
pub fn rejected_reason(status: u16) -> &'static str {
    match status {
        401 => "signature",
        413 => "too_large",
        400 | 422 => "malformed",
        _ => "other",
    }
}

/// Every label [`attempt_result`] gives: the feed counts no other.
pub const ATTEMPT_RESULTS: &[&str] = &[
    "2xx",
    "4xx",
    "5xx",
    "other_status",
    "redirect",
    "timeout",
    "network_error",
    "enqueued",
    "queue_error",
    "too_large",
];

/// The result label of a forward attempt.
pub fn attempt_result(r: &AttemptResult) -> &'static str {
    match r {
        AttemptResult::Status { code, .. } => match code {
            200..=299 => "2xx",
            400..=499 => "4xx",
            500..=599 => "5xx",
            _ => "other_status",
        },
        AttemptResult::Redirect { .. } => "redirect",
        AttemptResult::Timeout => "timeout",
        AttemptResult::NetworkError => "network_error",
        AttemptResult::Enqueued => "enqueued",
        AttemptResult::QueueError => "queue_error",
        AttemptResult::TooLarge { .. } => "too_large",
    }
}

/// Adds `by` to (`family`, `label`) in `counts`.
pub fn add(counts: &mut Vec<Count>, family: &str, label: &str, by: u64) {
    if by == 0 {
        return;
    }
    match counts
        .iter_mut()
        .find(|c| c.family == family && c.label == label)
    {
        Some(c) => c.by += by,
        None => counts.push(Count {
            family: family.to_owned(),
            label: label.to_owned(),
            by,
        }),
    }
}

/// The counters a batch of notes adds to, summed per (family, label), in first-seen order.
/// Requests an isolate did not pass on (`skipped`) have no known status: `unsampled`.
pub fn counts(notes: &[Note]) -> Vec<Count> {
    let mut out: Vec<Count> = Vec::new();
    for note in notes {
        match note {
            Note::Delivery { outcome, .. } => add(&mut out, DELIVERIES, outcome.as_str(), 1),
            Note::Rejected {
                status, skipped, ..
            } => {
                add(&mut out, REJECTED, rejected_reason(*status), 1);
                add(&mut out, REJECTED, "unsampled", u64::from(*skipped));
            }
            Note::Attempts { result, count } if ATTEMPT_RESULTS.contains(&result.as_str()) => {
                add(&mut out, ATTEMPTS, result, u64::from(*count));
            }
            Note::Superseded { destination, count } => {
                add(&mut out, SUPERSEDED, destination, u64::from(*count));
            }
            Note::Dead(_) | Note::Requeued { .. } | Note::Attempts { .. } => {}
        }
    }
    out
}

/// One destination's rows in an entity object's outbox.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DestinationRows {
    /// The destination's name (`default` for a source's `forward`).
    pub destination: String,
    /// Rows waiting to be delivered.
    pub pending: u64,
    /// When the oldest of them was written, unix seconds.
    pub oldest_pending_at: Option<i64>,
    /// Dead letters held.
    pub dead: u64,
}

/// What an entity object tells its source's feed after an alarm pass that changed it: its
/// own outbox rows now, per destination that has a row pending or dead, in name order
/// (none: the object holds nothing the feed counts).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutboxSnapshot {
    /// Per destination.
    pub destinations: Vec<DestinationRows>,
}

/// The text a feed passes a source's figures in: a line a figure, `pending N`, `oldest T`
/// (only when a row is pending), `dead N`, `count FAMILY LABEL N` a counter, then each
/// destination's rows ([`encode_rows`]).
/// Not JSON: serde's derives cost the wasm several KB a type, this a few hundred bytes.
fn encode(pending: u64, oldest: Option<i64>, dead: u64, counts: &[Count]) -> String {
    let mut out = format!("pending {pending}\ndead {dead}\n");
    if let Some(t) = oldest {
        let _ = writeln!(out, "oldest {t}");
    }
    for c in counts {
        let _ = writeln!(out, "count {} {} {}", c.family, c.label, c.by);
    }
    out
}

/// Reads back what [`SourceFigures::encode`] wrote, for `source`; `None` if a line is not
/// one it writes.
fn decode(source: &str, text: &str) -> Option<SourceFigures> {
    let mut f = SourceFigures {
        source: source.to_owned(),
        ..SourceFigures::default()
    };
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        match words[..] {
            ["pending", n] => f.pending = n.parse().ok()?,
            ["dead", n] => f.dead = n.parse().ok()?,
            ["oldest", t] => f.oldest_pending_at = Some(t.parse().ok()?),
            ["count", family, label, n] => add(&mut f.counters, family, label, n.parse().ok()?),
            ["rows", ..] => f.destinations.push(decode_rows(&words)?),
            _ => return None,
        }
    }
    Some(f)
}

/// Appends each destination's rows as a line, `rows NAME PENDING DEAD OLDEST` (`-` when
/// none is pending). A destination's name has no space.
fn encode_rows(out: &mut String, rows: &[DestinationRows]) {
    for d in rows {
        let oldest = d
            .oldest_pending_at
            .map_or("-".to_owned(), |t| t.to_string());
        let (name, pending, dead) = (&d.destination, d.pending, d.dead);
        let _ = writeln!(out, "rows {name} {pending} {dead} {oldest}");
    }
}

/// Reads back one line [`encode_rows`] wrote, split into words.
fn decode_rows(words: &[&str]) -> Option<DestinationRows> {
    let ["rows", name, pending, dead, oldest] = words[..] else {
        return None;
    };
    Some(DestinationRows {
        destination: (!name.is_empty()).then(|| name.to_owned())?,
        pending: pending.parse().ok()?,
        oldest_pending_at: match oldest {
            "-" => None,
            t => Some(t.parse().ok()?),
        },
        dead: dead.parse().ok()?,
    })
}

impl OutboxSnapshot {
    /// As an object sends it to its feed: a line a destination ([`encode_rows`]).
    pub fn encode(&self) -> String {
        let mut out = String::new();
        encode_rows(&mut out, &self.destinations);
        out
    }

    /// Reads back what [`OutboxSnapshot::encode`] wrote; `None` if a line is not one it
    /// writes.
    pub fn decode(text: &str) -> Option<OutboxSnapshot> {
        let destinations = text
            .lines()
            .map(|line| decode_rows(&line.split(' ').collect::<Vec<_>>()))
            .collect::<Option<Vec<_>>>()?;
        Some(OutboxSnapshot { destinations })
    }
}

impl SourceFigures {
    /// As a feed answers them (without the source: the Worker asked it by name).
    pub fn encode(&self) -> String {
        let mut out = encode(
            self.pending,
            self.oldest_pending_at,
            self.dead,
            &self.counters,
        );
        encode_rows(&mut out, &self.destinations);
        out
    }

    /// Reads back what [`SourceFigures::encode`] wrote, for `source`.
    pub fn decode(source: &str, text: &str) -> Option<SourceFigures> {
        decode(source, text)
    }
}

/// One source's figures, as its feed object answers them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceFigures {
    /// The source.
    pub source: String,
    /// Best-effort counters, as [`Count`]s summed since the feed began.
    pub counters: Vec<Count>,
    /// Exact: rows pending across the source's objects.
    pub pending: u64,
    /// Exact: when the oldest pending row was written.
    pub oldest_pending_at: Option<i64>,
    /// Exact: dead letters held across the source's objects.
    pub dead: u64,
    /// Exact: the same per destination that holds a row pending or dead, in name order.
    pub destinations: Vec<DestinationRows>,
}

/// What one scrape shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// Whether the configuration fails to load (then there are no sources).
    pub configuration_invalid: bool,
    /// Sources whose feed object did not answer.
    pub unavailable: Vec<String>,
    /// Each source that answered.
    pub sources: Vec<SourceFigures>,
    /// Each configured destination's protection whose gate answered.
    pub guards: Vec<Guard>,
}

/// A destination's protection, as its gate object answered this scrape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The source.
    pub source: String,
    /// Its destination.
    pub destination: String,
    /// The gate's status.
    pub status: crate::protect::Status,
}

/// The states [`Guard`]'s breaker gauge has one sample each for: the breaker's three and
/// an operator's pause, which overrides them.
const GUARD_STATES: [&str; 4] = ["closed", "open", "half-open", "paused"];

/// A label value as the text format writes it: `\`, `"` and line feeds escaped.
pub fn escape_label(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// The counter families: (family, metric, help, label name, the label values always shown).
const COUNTERS: &[(&str, &str, &str, &str, &[&str])] = &[
    (
        DELIVERIES,
        "hookonce_deliveries_total",
        "Verified deliveries by what they came to (best-effort: from feed notes).",
        "outcome",
        &["applied", "duplicate", "stale"],
    ),
    (
        REJECTED,
        "hookonce_rejected_deliveries_total",
        "Deliveries refused before any entity saw them, by reason (best-effort: from feed notes).",
        "reason",
        &["malformed", "signature", "too_large"],
    ),
    (
        ATTEMPTS,
        "hookonce_forward_attempts_total",
        "Queued forward attempts by result (best-effort: counted by each alarm pass).",
        "result",
        &[],
    ),
    (
        SUPERSEDED,
        "hookonce_superseded_rows_total",
        "Outbox rows never sent because a newer snapshot went in their place (deliver = \"latest\"; best-effort: counted by each alarm pass).",
        "destination",
        &[],
    ),
];

/// An exact gauge of outbox rows: its family per source and per destination (name, help),
/// and its value for a source's or a destination's rows at a time.
type RowsGauge = (
    (&'static str, &'static str),
    (&'static str, &'static str),
    fn(&DestinationRows, UnixSeconds) -> u64,
);

/// The Prometheus text exposition (format 0.0.4) of `f` at `now`: one HELP and TYPE per
/// family, samples in the order given (the sources', then the counters'), with a family's
/// known labels first. Nothing is sorted here: each sort of a new type costs the wasm a few
/// KB, and Prometheus needs no order within a family.
pub fn exposition(f: &Figures, now: UnixSeconds) -> String {
    let mut out = String::new();
    let sources = &f.sources;
    let head = |out: &mut String, name: &str, kind: &str, help: &str| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
    };
    head(
        &mut out,
        "hookonce_configuration_errors",
        "gauge",
        "1 when the configuration does not load (no source is served), else 0.",
    );
    let _ = writeln!(
        out,
        "hookonce_configuration_errors {}",
        u8::from(f.configuration_invalid)
    );
    head(
        &mut out,
        "hookonce_source_up",
        "gauge",
        "1 when the source's feed object answered this scrape, else 0.",
    );
    let answered = sources.iter().map(|s| (s.source.as_str(), 1));
    for (s, v) in answered.chain(f.unavailable.iter().map(|s| (s.as_str(), 0))) {
        let _ = writeln!(
            out,
            "hookonce_source_up{{source=\"{}\"}} {v}",
            escape_label(s)
        );
    }
    for (family, name, help, label, always) in COUNTERS {
        head(&mut out, name, "counter", help);
        for s in sources {
            let mut values: Vec<(&str, u64)> = always.iter().map(|v| (*v, 0)).collect();
            for c in s.counters.iter().filter(|c| c.family == *family) {
                match values.iter_mut().find(|(v, _)| *v == c.label) {
                    Some((_, n)) => *n += c.by,
                    None => values.push((&c.label, c.by)),
                }
            }
            let source = escape_label(&s.source);
            for (v, n) in values {
                let v = escape_label(v);
                let _ = writeln!(out, "{name}{{source=\"{source}\",{label}=\"{v}\"}} {n}");
            }
        }
    }
    // The exact gauges of outbox rows: per source, then the same per destination, a sample
    // for each destination holding a row pending or dead (the configured ones, and removed
    // ones while their dead letters are held, so the labels stay bounded by the
    // configuration).
    let gauges: [RowsGauge; 3] = [
        (
            ("hookonce_outbox_pending_rows", "Outbox rows waiting to be delivered (exact, as of each object's last alarm pass)."),
            ("hookonce_destination_pending_rows", "Outbox rows waiting to be delivered to the destination (exact; no sample: none pending or dead)."),
            |r, _| r.pending,
        ),
        (
            ("hookonce_outbox_oldest_pending_age_seconds", "Age of the oldest pending outbox row; 0 when none is pending (exact)."),
            ("hookonce_destination_oldest_pending_age_seconds", "Age of the destination's oldest pending outbox row; 0 when none is pending (exact)."),
            |r, now| age(r.oldest_pending_at, now),
        ),
        (
            ("hookonce_dead_letters", "Dead letters held, until requeued (exact)."),
            ("hookonce_destination_dead_letters", "Dead letters held for the destination, until requeued (exact)."),
            |r, _| r.dead,
        ),
    ];
    for per_destination in [false, true] {
        for (source_family, destination_family, value) in &gauges {
            let (name, help) = match per_destination {
                false => source_family,
                true => destination_family,
            };
            head(&mut out, name, "gauge", help);
            for s in sources {
                let source = escape_label(&s.source);
                let total = DestinationRows {
                    destination: String::new(),
                    pending: s.pending,
                    oldest_pending_at: s.oldest_pending_at,
                    dead: s.dead,
                };
                let samples = match per_destination {
                    false => vec![(String::new(), value(&total, now))],
                    true => s
                        .destinations
                        .iter()
                        .map(|d| {
                            let to = escape_label(&d.destination);
                            (format!(",destination=\"{to}\""), value(d, now))
                        })
                        .collect(),
                };
                for (labels, v) in samples {
                    let _ = writeln!(out, "{name}{{source=\"{source}\"{labels}}} {v}");
                }
            }
        }
    }
    guards(&mut out, &f.guards);
    out
}

/// The destinations' protection: the breaker's state as one sample per state (1 for the
/// current one), and the leases out.
fn guards(out: &mut String, guards: &[Guard]) {
    let labels = |g: &Guard| {
        format!(
            "source=\"{}\",destination=\"{}\"",
            escape_label(&g.source),
            escape_label(&g.destination)
        )
    };
    let _ = writeln!(
        out,
        "# HELP hookonce_destination_breaker_state The destination's state: 1 for the current one (paused overrides the breaker's).\n# TYPE hookonce_destination_breaker_state gauge"
    );
    for g in guards {
        for state in GUARD_STATES {
            let v = u8::from(g.status.state() == state);
            let _ = writeln!(
                out,
                "hookonce_destination_breaker_state{{{},state=\"{state}\"}} {v}",
                labels(g)
            );
        }
    }
    let _ = writeln!(
        out,
        "# HELP hookonce_destination_in_flight Attempts to the destination in flight now, across entities.\n# TYPE hookonce_destination_in_flight gauge"
    );
    for g in guards {
        let _ = writeln!(
            out,
            "hookonce_destination_in_flight{{{}}} {}",
            labels(g),
            g.status.in_flight
        );
    }
}

/// Seconds since `at` at `now`; 0 for none.
fn age(at: Option<i64>, now: UnixSeconds) -> u64 {
    at.map_or(0, |at| u64::try_from(now.0 - at).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feed::FeedOutcome;

    fn delivery(outcome: FeedOutcome) -> Note {
        Note::Delivery {
            event_id: "evt_1".into(),
            event_type: "t".into(),
            entity: Some("ch_1".into()),
            outcome,
            rows_written: 1,
            received_at: 0,
        }
    }

    fn count(family: &str, label: &str, by: u64) -> Count {
        Count {
            family: family.into(),
            label: label.into(),
            by,
        }
    }

    #[test]
    fn notes_add_up_per_family_and_label() {
        let notes = [
            delivery(FeedOutcome::Applied),
            delivery(FeedOutcome::Duplicate),
            delivery(FeedOutcome::Applied),
            Note::Rejected {
                status: 401,
                reason: "no signature matches".into(),
                received_at: 0,
                skipped: 4,
            },
            Note::Requeued {
                entity: "ch_1".into(),
                destination: None,
                events: Vec::new(),
            },
        ];
        assert_eq!(
            counts(&notes),
            [
                count(DELIVERIES, "applied", 2),
                count(DELIVERIES, "duplicate", 1),
                count(REJECTED, "signature", 1),
                count(REJECTED, "unsampled", 4),
            ]
        );
    }

    #[test]
    fn label_values_escape_backslash_quote_and_newline() {
        assert_eq!(escape_label("a\\b\"c\nd é"), "a\\\\b\\\"c\\nd é");
    }

    #[test]
    fn the_exposition_shows_each_family_once_with_zeroes_for_known_labels() {
        let f = Figures {
            configuration_invalid: false,
            unavailable: vec!["down".into()],
            sources: vec![SourceFigures {
                source: "st\"ripe".into(),
                counters: vec![
                    count(DELIVERIES, "applied", 3),
                    count(ATTEMPTS, "5xx", 2),
                    count(ATTEMPTS, "2xx", 1),
                    count(SUPERSEDED, "billing", 4),
                ],
                pending: 2,
                oldest_pending_at: Some(900),
                dead: 1,
                destinations: vec![
                    DestinationRows {
                        destination: "billing".into(),
                        pending: 2,
                        oldest_pending_at: Some(900),
                        dead: 0,
                    },
                    DestinationRows {
                        destination: "gone".into(),
                        pending: 0,
                        oldest_pending_at: None,
                        dead: 1,
                    },
                ],
            }],
            guards: vec![Guard {
                source: "st\"ripe".into(),
                destination: "billing".into(),
                status: crate::protect::Protect::<&str>::new(
                    crate::protect::Settings::default(),
                    UnixSeconds(1_000),
                )
                .status(UnixSeconds(1_000)),
            }],
        };
        let text = exposition(&f, UnixSeconds(1_000));
        let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            samples,
            [
                "hookonce_configuration_errors 0",
                "hookonce_source_up{source=\"st\\\"ripe\"} 1",
                "hookonce_source_up{source=\"down\"} 0",
                "hookonce_deliveries_total{source=\"st\\\"ripe\",outcome=\"applied\"} 3",
                "hookonce_deliveries_total{source=\"st\\\"ripe\",outcome=\"duplicate\"} 0",
                "hookonce_deliveries_total{source=\"st\\\"ripe\",outcome=\"stale\"} 0",
                "hookonce_rejected_deliveries_total{source=\"st\\\"ripe\",reason=\"malformed\"} 0",
                "hookonce_rejected_deliveries_total{source=\"st\\\"ripe\",reason=\"signature\"} 0",
                "hookonce_rejected_deliveries_total{source=\"st\\\"ripe\",reason=\"too_large\"} 0",
                "hookonce_forward_attempts_total{source=\"st\\\"ripe\",result=\"5xx\"} 2",
                "hookonce_forward_attempts_total{source=\"st\\\"ripe\",result=\"2xx\"} 1",
                "hookonce_superseded_rows_total{source=\"st\\\"ripe\",destination=\"billing\"} 4",
                "hookonce_outbox_pending_rows{source=\"st\\\"ripe\"} 2",
                "hookonce_outbox_oldest_pending_age_seconds{source=\"st\\\"ripe\"} 100",
                "hookonce_dead_letters{source=\"st\\\"ripe\"} 1",
                "hookonce_destination_pending_rows{source=\"st\\\"ripe\",destination=\"billing\"} 2",
                "hookonce_destination_pending_rows{source=\"st\\\"ripe\",destination=\"gone\"} 0",
                "hookonce_destination_oldest_pending_age_seconds{source=\"st\\\"ripe\",destination=\"billing\"} 100",
                "hookonce_destination_oldest_pending_age_seconds{source=\"st\\\"ripe\",destination=\"gone\"} 0",
                "hookonce_destination_dead_letters{source=\"st\\\"ripe\",destination=\"billing\"} 0",
                "hookonce_destination_dead_letters{source=\"st\\\"ripe\",destination=\"gone\"} 1",
                "hookonce_destination_breaker_state{source=\"st\\\"ripe\",destination=\"billing\",state=\"closed\"} 1",
                "hookonce_destination_breaker_state{source=\"st\\\"ripe\",destination=\"billing\",state=\"open\"} 0",
                "hookonce_destination_breaker_state{source=\"st\\\"ripe\",destination=\"billing\",state=\"half-open\"} 0",
                "hookonce_destination_breaker_state{source=\"st\\\"ripe\",destination=\"billing\",state=\"paused\"} 0",
                "hookonce_destination_in_flight{source=\"st\\\"ripe\",destination=\"billing\"} 0",
            ]
        );
        let types = text.lines().filter(|l| l.starts_with("# TYPE")).count();
        assert_eq!(types, 14, "one TYPE per family");
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn a_configuration_that_does_not_load_is_one_gauge() {
        let f = Figures {
            configuration_invalid: true,
            ..Figures::default()
        };
        let text = exposition(&f, UnixSeconds(0));
        assert!(
            text.contains("\nhookonce_configuration_errors 1\n"),
            "{text}"
        );
        assert!(!text.contains("source="));
    }

    #[test]
    fn figures_and_snapshots_travel_as_text_and_come_back_the_same() {
        let f = SourceFigures {
            source: "acme".into(),
            counters: vec![count(DELIVERIES, "applied", 3), count(ATTEMPTS, "5xx", 2)],
            pending: 2,
            oldest_pending_at: Some(-5),
            dead: 1,
            destinations: vec![DestinationRows {
                destination: "billing".into(),
                pending: 2,
                oldest_pending_at: Some(-5),
                dead: 1,
            }],
        };
        assert_eq!(SourceFigures::decode("acme", &f.encode()), Some(f));
        let s = OutboxSnapshot::default();
        assert_eq!(s.encode(), "");
        assert_eq!(OutboxSnapshot::decode(&s.encode()), Some(s));
        let rows = |destination: &str, pending, oldest_pending_at, dead| DestinationRows {
            destination: destination.into(),
            pending,
            oldest_pending_at,
            dead,
        };
        let s = OutboxSnapshot {
            destinations: vec![rows("billing", 2, Some(-5), 0), rows("default", 0, None, 3)],
        };
        assert_eq!(s.encode(), "rows billing 2 0 -5\nrows default 0 3 -\n");
        assert_eq!(OutboxSnapshot::decode(&s.encode()), Some(s));
        let bad = [
            "pending 1",
            "rows a 1 2",
            "rows  1 2 -",
            "rows a x 2 -",
            "rows a 1 2 3 4",
            "{}",
            "count a b 1",
        ];
        for bad in bad {
            assert_eq!(OutboxSnapshot::decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn attempts_are_counted_by_result_and_an_unknown_result_is_not() {
        let notes = [
            Note::Attempts {
                result: "5xx".into(),
                count: 2,
            },
            Note::Attempts {
                result: "evt_123".into(),
                count: 1,
            },
        ];
        assert_eq!(counts(&notes), [count(ATTEMPTS, "5xx", 2)]);
        for r in [
            AttemptResult::Timeout,
            AttemptResult::NetworkError,
            AttemptResult::Enqueued,
            AttemptResult::QueueError,
            AttemptResult::TooLarge { bytes: 1 },
            AttemptResult::redirect(301, None),
            AttemptResult::answered(204, None, None, UnixSeconds(0)),
            AttemptResult::answered(410, None, None, UnixSeconds(0)),
            AttemptResult::answered(503, None, None, UnixSeconds(0)),
            AttemptResult::answered(103, None, None, UnixSeconds(0)),
        ] {
            assert!(ATTEMPT_RESULTS.contains(&attempt_result(&r)), "{r:?}");
        }
        assert_eq!(rejected_reason(413), "too_large");
    }
}

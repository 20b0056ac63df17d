//! A source's last hour, for the inspector (`GET /sources/{source}/activity`): deliveries
//! per minute by outcome, and each destination's health.
//!
//! A feed object adds each batch of notes to per-minute tallies ([`tally`]) and forgets the
//! minutes before the hour ([`first_minute`]), so it holds at most [`MINUTES`] × 4 rows
//! whatever it is sent. The tallies are best effort, as the notes they are counted from (a
//! crash can lose a batch); the health figures are `/metrics`' exact ones.

use serde_json::{json, Map, Value};

use crate::config::Destination;
use crate::feed::{FeedOutcome, Note};
use crate::metrics::DestinationRows;
use crate::time::UnixSeconds;

/// Minutes in the chart, the current one included.
pub const MINUTES: i64 = 60;

/// The outcomes counted, in the chart's order.
pub const OUTCOMES: [FeedOutcome; 4] = [
    FeedOutcome::Applied,
    FeedOutcome::Duplicate,
    FeedOutcome::Stale,
    FeedOutcome::Rejected,
];

/// The minute (unix seconds / 60) that `t` falls in.
#[must_use]
pub fn minute_of(t: i64) -> i64 {
    t.div_euclid(60)
}

/// The oldest minute the chart at `now` shows; tallies before it are forgotten.
#[must_use]
pub fn first_minute(now: UnixSeconds) -> i64 {
    minute_of(now.0) - (MINUTES - 1)
}

/// Deliveries of one outcome in one minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The minute (unix seconds / 60).
    pub minute: i64,
    /// The outcome.
    pub outcome: FeedOutcome,
    /// How many.
    pub count: u64,
}

/// What a batch of `notes` adds, summed per (minute, outcome) in first-seen order. A note
/// from before the hour adds nothing; one stamped after `now` (an isolate's clock ahead of
/// the feed's) counts in `now`'s minute, so no tally outlives the hour. A rejected note
/// also counts the rejected requests its sender did not pass on.
#[must_use]
pub fn tally(notes: &[Note], now: UnixSeconds) -> Vec<Tally> {
    let (first, last) = (first_minute(now), minute_of(now.0));
    let mut out: Vec<Tally> = Vec::new();
    for note in notes {
        let (outcome, at, count) = match note {
            Note::Delivery {
                outcome,
                received_at,
                ..
            } => (*outcome, *received_at, 1),
            Note::Rejected {
                received_at,
                skipped,
                ..
            } => (FeedOutcome::Rejected, *received_at, 1 + u64::from(*skipped)),
            Note::Dead(_)
            | Note::Requeued { .. }
            | Note::Attempts { .. }
            | Note::Superseded { .. } => continue,
        };
        let minute = minute_of(at).min(last);
        if minute < first {
            continue;
        }
        match out
            .iter_mut()
            .find(|t| t.minute == minute && t.outcome == outcome)
        {
            Some(t) => t.count += count,
            None => out.push(Tally {
                minute,
                outcome,
                count,
            }),
        }
    }
    out
}

/// The hour at `now` from the stored `tallies`: one entry a minute, oldest first, each the
/// count of every outcome (0 where none was noted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chart {
    /// The first minute shown.
    pub first_minute: i64,
    /// Per minute, per outcome in [`OUTCOMES`]' order.
    pub counts: Vec<[u64; 4]>,
}

/// The [`Chart`] at `now` of `tallies`; tallies outside the hour are left out.
#[must_use]
pub fn chart(tallies: &[Tally], now: UnixSeconds) -> Chart {
    let first = first_minute(now);
    let mut counts = vec![[0u64; 4]; MINUTES as usize];
    for t in tallies {
        let Ok(at) = usize::try_from(t.minute - first) else {
            continue;
        };
        let kind = OUTCOMES.iter().position(|o| *o == t.outcome);
        if let (Some(minute), Some(kind)) = (counts.get_mut(at), kind) {
            minute[kind] = minute[kind].saturating_add(t.count);
        }
    }
    Chart {
        first_minute: first,
        counts,
    }
}

/// How a destination's target is shown to the inspector: its kind (`url`, `service` or
/// `queue`) and a URL by its origin only (its path or query may carry a credential), a
/// binding by its name.
#[must_use]
pub fn target_label(d: Destination<&str>) -> (&'static str, &str) {
    match d {
        Destination::Url(url) => {
            let rest_at = url.find("://").map_or(0, |i| i + 3);
            let end = url[rest_at..]
                .find(['/', '?', '#'])
                .map_or(url.len(), |i| rest_at + i);
            ("url", &url[..end])
        }
        Destination::Service(name) => ("service", name),
        Destination::Queue(name) => ("queue", name),
    }
}

fn by_outcome(counts: &[u64; 4]) -> Map<String, Value> {
    OUTCOMES
        .iter()
        .zip(counts)
        .map(|(o, n)| (o.as_str().to_owned(), json!(n)))
        .collect()
}

/// The activity document: the chart, its totals, and each destination's health from the
/// source's exact outbox figures (`rows`, per destination), at `now`: one entry per
/// configured destination (`destinations`: name and target, in the configuration's order),
/// then one per destination that holds rows but is no longer configured (its dead letters),
/// `configured: false`. None when the source forwards nowhere and holds nothing.
#[must_use]
pub fn document(
    source: &str,
    chart: &Chart,
    destinations: &[(&str, Destination<&str>)],
    rows: &[DestinationRows],
    now: UnixSeconds,
) -> Value {
    let mut totals = [0u64; 4];
    let minutes: Vec<Value> = chart
        .counts
        .iter()
        .zip(chart.first_minute..)
        .map(|(counts, minute)| {
            for (total, n) in totals.iter_mut().zip(counts) {
                *total = total.saturating_add(*n);
            }
            let mut entry = by_outcome(counts);
            entry.insert("at".to_owned(), json!(minute * 60));
            Value::Object(entry)
        })
        .collect();
    let health = |name: &str, target: Option<Destination<&str>>| {
        let none = DestinationRows::default();
        let r = rows.iter().find(|r| r.destination == name).unwrap_or(&none);
        let (kind, target) = target.map(target_label).unzip();
        json!({
            "destination": name,
            "configured": kind.is_some(),
            "kind": kind,
            "target": target,
            "pending": r.pending,
            "oldest_pending_age_secs": r
                .oldest_pending_at
                .map(|t| now.0.saturating_sub(t).max(0)),
            "dead": r.dead,
        })
    };
    let configured = destinations.iter().map(|(name, d)| health(name, Some(*d)));
    let removed = rows
        .iter()
        .filter(|r| !destinations.iter().any(|(name, _)| *name == r.destination))
        .map(|r| health(&r.destination, None));
    let destinations: Vec<Value> = configured.chain(removed).collect();
    json!({
        "source": source,
        "now": now.0,
        "minute_secs": 60,
        "minutes": minutes,
        "totals": by_outcome(&totals),
        "destinations": destinations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: UnixSeconds = UnixSeconds(1_791_270_430); // 10 s into a minute

    fn delivery(outcome: FeedOutcome, received_at: i64) -> Note {
        Note::Delivery {
            event_id: "e".into(),
            event_type: "t".into(),
            entity: None,
            outcome,
            rows_written: 0,
            received_at,
        }
    }

    fn rejected(received_at: i64, skipped: u32) -> Note {
        Note::Rejected {
            status: 401,
            reason: "signature".into(),
            received_at,
            skipped,
        }
    }

    #[test]
    fn notes_are_summed_per_minute_and_outcome_and_only_within_the_hour() {
        let now = NOW.0;
        let minute = minute_of(now);
        let notes = [
            delivery(FeedOutcome::Applied, now),
            delivery(FeedOutcome::Applied, now - 5),
            delivery(FeedOutcome::Duplicate, now),
            delivery(FeedOutcome::Applied, now - 60),
            rejected(now, 4),
            delivery(FeedOutcome::Stale, now - 3_600), // an hour ago: before the chart
            delivery(FeedOutcome::Stale, now + 600),   // a clock ahead: counted now
            Note::Attempts {
                result: "2xx".into(),
                count: 3,
            },
        ];
        let t = |minute, outcome, count| Tally {
            minute,
            outcome,
            count,
        };
        assert_eq!(
            tally(&notes, NOW),
            [
                t(minute, FeedOutcome::Applied, 2),
                t(minute, FeedOutcome::Duplicate, 1),
                t(minute - 1, FeedOutcome::Applied, 1),
                t(minute, FeedOutcome::Rejected, 5),
                t(minute, FeedOutcome::Stale, 1),
            ]
        );
        assert_eq!(first_minute(NOW), minute - 59);
        let oldest = delivery(FeedOutcome::Stale, (minute - 59) * 60);
        assert_eq!(tally(&[oldest], NOW).len(), 1);
    }

    #[test]
    fn the_chart_has_sixty_minutes_oldest_first_with_zeros_where_nothing_was_noted() {
        let minute = minute_of(NOW.0);
        let tallies = [
            Tally {
                minute,
                outcome: FeedOutcome::Applied,
                count: 3,
            },
            Tally {
                minute: minute - 59,
                outcome: FeedOutcome::Rejected,
                count: 2,
            },
            Tally {
                minute: minute - 60, // just forgotten
                outcome: FeedOutcome::Applied,
                count: 9,
            },
        ];
        let c = chart(&tallies, NOW);
        assert_eq!(c.counts.len(), 60);
        assert_eq!(c.first_minute, minute - 59);
        assert_eq!(c.counts[59], [3, 0, 0, 0]);
        assert_eq!(c.counts[0], [0, 0, 0, 2]);
        assert_eq!(c.counts.iter().flatten().sum::<u64>(), 5);
    }

    #[test]
    fn the_document_totals_the_hour_and_gives_each_destinations_health_without_its_path() {
        let minute = minute_of(NOW.0);
        let c = chart(
            &[Tally {
                minute,
                outcome: FeedOutcome::Duplicate,
                count: 2,
            }],
            NOW,
        );
        let rows = |destination: &str, pending, oldest_pending_at, dead| DestinationRows {
            destination: destination.into(),
            pending,
            oldest_pending_at,
            dead,
        };
        let held = [
            rows("analytics", 0, None, 4),
            rows("billing", 3, Some(NOW.0 - 90), 1),
            rows("gone", 0, None, 2),
        ];
        let configured = [
            (
                "billing",
                Destination::Url("https://hooks.example.com:8443/in?token=secret"),
            ),
            ("app", Destination::Service("APP")),
            ("analytics", Destination::Queue("EVENTS")),
        ];
        let doc = document("s", &c, &configured, &held, NOW);
        assert_eq!(doc["minutes"].as_array().unwrap().len(), 60);
        assert_eq!(doc["minutes"][59]["duplicate"], 2);
        assert_eq!(doc["minutes"][59]["at"], minute * 60);
        assert_eq!(
            doc["totals"],
            json!({"applied": 0, "duplicate": 2, "stale": 0, "rejected": 0})
        );
        let entry = |name: &str, kind: Option<&str>, target: Option<&str>, p, age, d| {
            json!({"destination": name, "configured": kind.is_some(), "kind": kind,
                "target": target, "pending": p, "oldest_pending_age_secs": age, "dead": d})
        };
        let no_age: Option<i64> = None;
        assert_eq!(
            doc["destinations"],
            json!([
                entry(
                    "billing",
                    Some("url"),
                    Some("https://hooks.example.com:8443"),
                    3,
                    Some(90),
                    1
                ),
                entry("app", Some("service"), Some("APP"), 0, no_age, 0),
                entry("analytics", Some("queue"), Some("EVENTS"), 0, no_age, 4),
                entry("gone", None, None, 0, no_age, 2),
            ])
        );
        assert!(!doc.to_string().contains("secret"));
        let none = document("s", &c, &[], &[], NOW);
        assert_eq!(none["destinations"], json!([]));
    }
}

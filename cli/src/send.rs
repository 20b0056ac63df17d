//! `send`: sign each delivery at the moment it leaves and post it, as a provider would,
//! with repeats, older versions and shuffling to show deduplication and stale drops.

use std::io::IsTerminal as _;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{bail, Result};
use hookonce_core::sign;
use hookonce_core::verify::{Scheme, Secret};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};

use crate::args::{scheme_name, SendArgs};
use crate::fixtures::{self, Event};
use crate::http::{self, Reply};
use crate::input;

/// Runs with at least this many deliveries get a progress bar (on a terminal).
const BAR_FROM: usize = 20;

/// What happened to one delivery.
#[derive(Debug, Clone)]
struct Outcome {
    n: usize,
    event_id: String,
    /// `applied`, `duplicate`, `stale`, or what else hookonce or the transport answered.
    label: String,
    status: u16,
    entity: Option<String>,
    detail: Option<String>,
    ms: f64,
}

impl Outcome {
    fn counted_as(&self) -> &str {
        match (self.status, self.label.as_str()) {
            (200, l @ ("applied" | "duplicate" | "stale")) => l,
            _ => "errors",
        }
    }

    fn line(&self) -> String {
        let mut s = format!("#{:<4} {:<10} {}", self.n, self.label, self.event_id);
        if let Some(e) = &self.entity {
            s.push_str(&format!("  {e}"));
        }
        s.push_str(&format!("  {:.1} ms", self.ms));
        if let Some(d) = &self.detail {
            s.push_str(&format!("  {d}"));
        }
        s
    }

    fn to_json(&self) -> Value {
        json!({
            "n": self.n, "event_id": self.event_id, "outcome": self.label, "status": self.status,
            "entity": self.entity, "detail": self.detail, "ms": self.ms,
        })
    }
}

pub fn run(mut a: SendArgs, json: bool) -> Result<ExitCode> {
    // With HOOKONCE_URL set, `send FILE` is FILE alone: clap gave it to URL.
    if a.file.is_none() && !a.target.url.contains("://") {
        if let Ok(url) = std::env::var("HOOKONCE_URL") {
            a.file = Some(std::mem::replace(&mut a.target.url, url).into());
        }
    }
    let url = format!(
        "{}/webhooks/{}",
        input::base_url(&a.target.url)?,
        input::escape(&a.source)
    );
    let secret = input::secret(&a.scheme, &a.secret)?;
    let extra = a
        .headers
        .iter()
        .map(|h| input::header(h))
        .collect::<Result<Vec<_>>>()?;

    let mut event = match (&a.fixture, &a.file) {
        (Some(name), _) => fixtures::build(
            name,
            &a.scheme,
            a.id.as_deref(),
            a.entity.as_deref(),
            std::time::SystemTime::now(),
        )?,
        (None, Some(file)) => from_body(input::body(Some(file))?, &a.scheme, a.id.as_deref()),
        (None, None) => bail!(
            "send needs an event: a FILE (- for standard input) or --fixture NAME ({})",
            fixtures::names()
        ),
    };
    if a.entity.is_some() && a.fixture.is_none() {
        bail!("--entity applies to --fixture; a FILE names its own entity");
    }
    merge_headers(&mut event.headers, extra);
    let mut events = vec![event];
    if a.older {
        let old = fixtures::older(&events[0], &a.scheme)?;
        events.push(old);
    }
    let mut plan: Vec<&Event> = events
        .iter()
        .flat_map(|e| std::iter::repeat_n(e, a.repeat as usize))
        .collect();
    if a.shuffle {
        fastrand::shuffle(&mut plan);
    }

    let started = Instant::now();
    let outcomes = deliver_all(
        &url,
        &a.scheme,
        &secret,
        &plan,
        a.concurrency as usize,
        json,
    )?;
    let summary = Summary::of(&outcomes);
    if json {
        println!(
            "{}",
            json!({
                "url": url,
                "scheme": scheme_name(&a.scheme),
                "deliveries": outcomes.iter().map(Outcome::to_json).collect::<Vec<_>>(),
                "summary": summary.to_json(),
            })
        );
    } else {
        println!(
            "sent {} to {url} in {:.2} s: {}",
            outcomes.len(),
            started.elapsed().as_secs_f64(),
            summary.line()
        );
    }
    Ok(if summary.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// An event from a user's body: its id is `--id`, else the body's `id`, else fresh.
fn from_body(body: Vec<u8>, scheme: &Scheme, id: Option<&str>) -> Event {
    let body_id = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v["id"].as_str().map(str::to_owned));
    let id = id
        .map(str::to_owned)
        .or(body_id)
        .unwrap_or_else(|| fixtures::fresh_event_id(scheme));
    Event {
        headers: fixtures::provider_headers(scheme, &id, "push"),
        id,
        body,
    }
}

/// `extra` replaces headers of the same name and adds the rest.
fn merge_headers(headers: &mut Vec<(String, String)>, extra: Vec<(String, String)>) {
    for (k, v) in extra {
        headers.retain(|(h, _)| !h.eq_ignore_ascii_case(&k));
        headers.push((k, v));
    }
}

/// Sends `plan` with `concurrency` threads and prints each outcome as it arrives. Stops at
/// the first delivery that got no answer at all: the rest would not get one either.
fn deliver_all(
    url: &str,
    scheme: &Scheme,
    secret: &Secret,
    plan: &[&Event],
    concurrency: usize,
    json: bool,
) -> Result<Vec<Outcome>> {
    let agent = http::agent();
    let next = AtomicUsize::new(0);
    let abort = AtomicBool::new(false);
    let bar = progress_bar(plan.len(), json);
    let (tx, rx) = mpsc::channel::<Result<Outcome>>();
    let mut outcomes = Vec::with_capacity(plan.len());
    let mut failure = None;
    std::thread::scope(|s| {
        for _ in 0..concurrency.min(plan.len()) {
            let tx = tx.clone();
            let (agent, next, abort) = (&agent, &next, &abort);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= plan.len() || abort.load(Ordering::SeqCst) {
                    break;
                }
                let r = deliver_one(agent, url, scheme, secret, plan[i], i + 1);
                let failed = r.is_err();
                if tx.send(r).is_err() || failed {
                    abort.store(true, Ordering::SeqCst);
                    break;
                }
            });
        }
        drop(tx);
        for r in rx {
            match r {
                Ok(o) => {
                    if !json {
                        match &bar {
                            Some(b) => b.println(o.line()),
                            None => println!("{}", o.line()),
                        }
                    }
                    if let Some(b) = &bar {
                        b.inc(1);
                    }
                    outcomes.push(o);
                }
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(outcomes),
    }
}

fn progress_bar(len: usize, json: bool) -> Option<ProgressBar> {
    if json || len < BAR_FROM || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:40.cyan/blue} {pos}/{len} deliveries {per_sec} eta {eta}",
    ) {
        bar.set_style(style);
    }
    Some(bar)
}

/// Signs `event` now, so even the last of a long run is inside the timestamp tolerance.
fn deliver_one(
    agent: &ureq::Agent,
    url: &str,
    scheme: &Scheme,
    secret: &Secret,
    event: &Event,
    n: usize,
) -> Result<Outcome> {
    let mut headers: Vec<(String, String)> =
        vec![("content-type".into(), "application/json".into())];
    headers.extend(
        sign::headers(scheme, secret, &event.id, input::now(), &event.body)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v)),
    );
    headers.extend(event.headers.iter().cloned());
    let started = Instant::now();
    let reply = http::request(agent, "POST", url, &headers, Some(&event.body))?;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(outcome(&reply, &event.id, n, ms))
}

fn outcome(reply: &Reply, event_id: &str, n: usize, ms: f64) -> Outcome {
    let body = reply.json().unwrap_or(Value::Null);
    let label = reply
        .header("hookonce-outcome")
        .map(str::to_owned)
        .or_else(|| body["outcome"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "error".to_owned());
    Outcome {
        n,
        event_id: body["event_id"].as_str().unwrap_or(event_id).to_owned(),
        status: reply.status,
        entity: body["entity"].as_str().map(str::to_owned),
        detail: (reply.status != 200).then(|| reply.describe()),
        label,
        ms,
    }
}

/// Counts and latency percentiles of a run.
#[derive(Debug, Default, PartialEq)]
struct Summary {
    applied: usize,
    duplicate: usize,
    stale: usize,
    errors: usize,
    p50_ms: f64,
    p99_ms: f64,
}

impl Summary {
    fn of(outcomes: &[Outcome]) -> Summary {
        let mut s = Summary::default();
        for o in outcomes {
            match o.counted_as() {
                "applied" => s.applied += 1,
                "duplicate" => s.duplicate += 1,
                "stale" => s.stale += 1,
                _ => s.errors += 1,
            }
        }
        let mut ms: Vec<f64> = outcomes.iter().map(|o| o.ms).collect();
        ms.sort_by(f64::total_cmp);
        s.p50_ms = percentile(&ms, 50.0);
        s.p99_ms = percentile(&ms, 99.0);
        s
    }

    fn line(&self) -> String {
        format!(
            "{} applied, {} duplicate, {} stale, {} errors; p50 {:.1} ms, p99 {:.1} ms",
            self.applied, self.duplicate, self.stale, self.errors, self.p50_ms, self.p99_ms
        )
    }

    fn to_json(&self) -> Value {
        json!({
            "applied": self.applied, "duplicate": self.duplicate, "stale": self.stale,
            "errors": self.errors, "p50_ms": self.p50_ms, "p99_ms": self.p99_ms,
        })
    }
}

/// Nearest-rank percentile of sorted values; 0 for none.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(status: u16, label: &str, ms: f64) -> Outcome {
        Outcome {
            n: 1,
            event_id: "evt_1".into(),
            label: label.into(),
            status,
            entity: None,
            detail: None,
            ms,
        }
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&[7.0], 99.0), 7.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }

    #[test]
    fn only_a_200_counts_as_applied_duplicate_or_stale() {
        let s = Summary::of(&[
            o(200, "applied", 1.0),
            o(200, "duplicate", 2.0),
            o(200, "stale", 3.0),
            o(409, "in_flight", 4.0),
            o(401, "error", 5.0),
        ]);
        assert_eq!((s.applied, s.duplicate, s.stale, s.errors), (1, 1, 1, 2));
        assert_eq!(s.p50_ms, 3.0);
    }

    #[test]
    fn a_body_id_is_the_event_id_unless_one_is_given() {
        let e = from_body(
            br#"{"id":"evt_7"}"#.to_vec(),
            &Scheme::StandardWebhooks,
            None,
        );
        assert_eq!(e.id, "evt_7");
        let e = from_body(
            br#"{"id":"evt_7"}"#.to_vec(),
            &Scheme::Stripe,
            Some("evt_8"),
        );
        assert_eq!(e.id, "evt_8");
        let e = from_body(b"{}".to_vec(), &Scheme::GitHub, None);
        assert_eq!(e.headers[0].1, e.id);
    }

    #[test]
    fn extra_headers_replace_those_of_the_same_name() {
        let mut h = vec![("x-github-event".to_owned(), "push".to_owned())];
        merge_headers(&mut h, vec![("X-GitHub-Event".into(), "issues".into())]);
        assert_eq!(h, vec![("X-GitHub-Event".into(), "issues".into())]);
    }
}

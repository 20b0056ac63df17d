//! Sends signed webhooks to a worker at a fixed concurrency and reports throughput, latency,
//! errors, `Hookonce-Outcome` counts and `rows_written` per outcome.
//!
//! ```text
//! loadgen --url http://127.0.0.1:8787 --scenario unique --seconds 20 --concurrency 16 --json
//! loadgen --url http://127.0.0.1:8787 --ready --timeout 30   # prints unix ns of the first 200
//! loadgen --url http://127.0.0.1:8787 --ready --pid 4242     # …or fails once process 4242 is gone
//! loadgen --url http://127.0.0.1:8787 --seconds 20 --pid 4242 --json  # …and the server's CPU per event
//! ```

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hookonce_core::sign;
use hookonce_core::time::UnixSeconds;
use hookonce_core::verify::{Scheme, Secret};
use hookonce_loadgen::{Delivery, Scenario, ENTITIES};
use serde_json::{json, Value};

const DEFAULT_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const USAGE: &str = "usage: loadgen --url URL [--source cockpit] [--secret whsec_…] \
[--scenario unique|hot|dupes|shuffled|big|no-entity] [--seconds 20] [--concurrency 16] [--json] \
[--progress] [--pid PID [--waves]] [--ready [--timeout 30] [--pid PID]]";
/// Error responses kept verbatim for the report; the rest are only counted.
const ERROR_SAMPLES: usize = 5;

struct Args {
    url: String,
    source: String,
    secret: Secret,
    /// The same secret as a GitHub source reads it (its UTF-8 bytes), for `no-entity`.
    github_secret: Secret,
    scenario: Scenario,
    seconds: f64,
    concurrency: usize,
    json: bool,
    ready: bool,
    /// Print the requests started in each second on stderr, as the run goes.
    progress: bool,
    timeout: f64,
    /// The server's process: `--ready` gives up as soon as it has exited, and a load
    /// reports its CPU time per event.
    pid: Option<u32>,
    /// Print the CPU time of `pid`'s main thread per request for each wave of
    /// [`ENTITIES`] answers: in `unique` the first wave is every entity's first event.
    waves: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut flags: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut it = std::env::args().skip(1).peekable();
    while let Some(arg) = it.next() {
        let name = arg
            .strip_prefix("--")
            .ok_or(format!("unexpected argument {arg}"))?;
        let value = match it.peek() {
            Some(v) if !v.starts_with("--") => it.next(),
            _ => None,
        };
        flags.insert(name.to_owned(), value);
    }
    let mut take = |name: &str| flags.remove(name);
    let value = |v: Option<Option<String>>, name: &str, default: &str| -> Result<String, String> {
        match v {
            None => Ok(default.to_owned()),
            Some(Some(v)) => Ok(v),
            Some(None) => Err(format!("--{name} needs a value")),
        }
    };
    let number = |s: String, name: &str| {
        s.parse::<f64>()
            .map_err(|_| format!("--{name}: not a number: {s}"))
    };

    let url = value(take("url"), "url", "")?;
    if url.is_empty() {
        return Err("--url is required".into());
    }
    let scenario_name = value(take("scenario"), "scenario", "unique")?;
    let secret = value(take("secret"), "secret", DEFAULT_SECRET)?;
    let args = Args {
        url: url.trim_end_matches('/').to_owned(),
        source: value(take("source"), "source", "cockpit")?,
        secret: Scheme::StandardWebhooks
            .parse_secret(&secret)
            .map_err(|e| format!("--secret: {e}"))?,
        github_secret: Scheme::GitHub
            .parse_secret(&secret)
            .map_err(|e| format!("--secret: {e}"))?,
        scenario: Scenario::parse(&scenario_name)
            .ok_or(format!("unknown scenario {scenario_name}"))?,
        seconds: number(value(take("seconds"), "seconds", "20")?, "seconds")?,
        concurrency: number(
            value(take("concurrency"), "concurrency", "16")?,
            "concurrency",
        )? as usize,
        timeout: number(value(take("timeout"), "timeout", "30")?, "timeout")?,
        pid: match take("pid") {
            None => None,
            v => Some(
                value(v, "pid", "")?
                    .parse()
                    .map_err(|_| "--pid: not a process id".to_owned())?,
            ),
        },
        json: take("json").is_some(),
        ready: take("ready").is_some(),
        progress: take("progress").is_some(),
        waves: take("waves").is_some(),
    };
    match flags.keys().next() {
        Some(unknown) => Err(format!("unknown flag --{unknown}")),
        None if args.waves && args.pid.is_none() => Err("--waves needs --pid".into()),
        None if args.concurrency == 0 => Err("--concurrency must be at least 1".into()),
        None => Ok(args),
    }
}

/// What one answered request said.
struct Answer {
    status: u16,
    outcome: Option<String>,
    rows_written: Option<f64>,
    body: String,
}

struct Client {
    agent: ureq::Agent,
    endpoint: String,
    /// `no-entity`'s: the `github` source, and its secret.
    github: (String, Secret),
}

impl Client {
    fn new(args: &Args) -> Client {
        let config = ureq::Agent::config_builder()
            // A 4xx/5xx is a result to count, not a transport failure.
            .http_status_as_error(false)
            .build();
        Client {
            agent: config.into(),
            endpoint: format!("{}/webhooks/{}", args.url, args.source),
            github: (
                format!("{}/webhooks/github", args.url),
                args.github_secret.clone(),
            ),
        }
    }

    /// Signs `d` as the provider would, at the current time, and sends it.
    fn send(&self, secret: &Secret, d: &Delivery, body: &[u8]) -> Result<Answer, ureq::Error> {
        let ts = UnixSeconds(unix_now().as_secs() as i64);
        let mut res = match d.github {
            false => self
                .agent
                .post(&self.endpoint)
                .header("content-type", "application/json")
                .header("webhook-id", &d.id)
                .header("webhook-timestamp", ts.to_string())
                .header(
                    "webhook-signature",
                    sign::standard_webhooks(secret, &d.id, ts, body),
                )
                .send(body)?,
            true => self
                .agent
                .post(&self.github.0)
                .header("content-type", "application/json")
                .header("x-github-delivery", &d.id)
                .header("x-github-event", "push")
                .header("x-hub-signature-256", sign::github(&self.github.1, body))
                .send(body)?,
        };
        let outcome = res
            .headers()
            .get("hookonce-outcome")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = res.body_mut().read_to_string()?;
        let rows_written = serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| v.get("rows_written")?.as_f64());
        Ok(Answer {
            status: res.status().as_u16(),
            outcome,
            rows_written,
            body,
        })
    }
}

fn unix_now() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// A per-run nonce so that each run's event ids and entities are new.
fn run_nonce() -> String {
    format!("{}", unix_now().as_millis())
}

/// Whether process `pid` still runs: its `/proc` entry exists and is not a zombie, the state
/// a child of the shell that started it keeps until the shell reaps it.
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat_fields(&stat).next() != Some("Z"))
}

/// The fields of a `/proc/…/stat` line after the command name (field 3, the state, first):
/// the name is in parentheses and may hold spaces and parentheses itself.
fn stat_fields(stat: &str) -> std::str::SplitWhitespace<'_> {
    stat.rsplit(')')
        .next()
        .unwrap_or_default()
        .split_whitespace()
}

/// Polls with one signed event until it is answered 200; prints that instant (unix ns).
/// With `--pid`, fails as soon as that process has exited, so that a server that could not
/// start (say, its port was taken) is known at once rather than after the timeout.
fn ready(args: &Args) -> Result<(), String> {
    let client = Client::new(args);
    let d = Scenario::Unique.delivery(&format!("ready{}", run_nonce()), 0);
    let body = d.body();
    let deadline = Instant::now() + Duration::from_secs_f64(args.timeout);
    let mut last = String::from("no attempt");
    while Instant::now() < deadline {
        if let Some(pid) = args.pid.filter(|&pid| !running(pid)) {
            return Err(format!("process {pid} exited; last: {last}"));
        }
        match client.send(&args.secret, &d, &body) {
            Ok(a) if a.status == 200 => {
                println!("{}", unix_now().as_nanos());
                return Ok(());
            }
            Ok(a) => last = format!("HTTP {}: {}", a.status, snippet(&a.body)),
            Err(e) => last = e.to_string(),
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Err(format!("not ready after {}s; last: {last}", args.timeout))
}

/// What one thread saw.
#[derive(Default)]
struct Tally {
    latencies_us: Vec<u64>,
    ok: u64,
    errors: u64,
    error_samples: Vec<String>,
    outcomes: BTreeMap<String, u64>,
    /// Per outcome: (sum of rows_written, answers that reported it).
    rows: BTreeMap<String, (f64, u64)>,
}

impl Tally {
    fn record(&mut self, answer: Result<Answer, ureq::Error>, latency: Duration) {
        self.latencies_us.push(latency.as_micros() as u64);
        let error = match answer {
            Ok(a) if a.status == 200 => {
                self.ok += 1;
                let outcome = a.outcome.unwrap_or_else(|| "(none)".into());
                if let Some(rows) = a.rows_written {
                    let entry = self.rows.entry(outcome.clone()).or_default();
                    entry.0 += rows;
                    entry.1 += 1;
                }
                *self.outcomes.entry(outcome).or_default() += 1;
                return;
            }
            Ok(a) => format!("HTTP {}: {}", a.status, snippet(&a.body)),
            Err(e) => e.to_string(),
        };
        self.errors += 1;
        if self.error_samples.len() < ERROR_SAMPLES {
            self.error_samples.push(error);
        }
    }

    fn merge(&mut self, other: Tally) {
        self.latencies_us.extend(other.latencies_us);
        self.ok += other.ok;
        self.errors += other.errors;
        let room = ERROR_SAMPLES.saturating_sub(self.error_samples.len());
        self.error_samples
            .extend(other.error_samples.into_iter().take(room));
        for (k, v) in other.outcomes {
            *self.outcomes.entry(k).or_default() += v;
        }
        for (k, (sum, n)) in other.rows {
            let entry = self.rows.entry(k).or_default();
            entry.0 += sum;
            entry.1 += n;
        }
    }
}

fn snippet(body: &str) -> String {
    body.chars().take(200).collect()
}

/// CPU time, user + system, of a process's main thread, in clock ticks.
fn main_thread_ticks(pid: u32) -> Option<u64> {
    ticks_in(&format!("/proc/{pid}/task/{pid}/stat"))
}

/// CPU time, user + system, of a whole process (every thread), in clock ticks.
fn process_ticks(pid: u32) -> Option<u64> {
    ticks_in(&format!("/proc/{pid}/stat"))
}

/// [`stat_ticks`] of the stat file at `path`.
fn ticks_in(path: &str) -> Option<u64> {
    stat_ticks(&std::fs::read_to_string(path).ok()?)
}

/// Linux reports process and thread times in USER_HZ, 100 a second on every architecture
/// it runs on.
const US_PER_TICK: f64 = 10_000.0;

/// Microseconds of CPU per event between two readings of a process's ticks; `None` without
/// both readings or without an event.
fn cpu_us_per_event(before: Option<u64>, after: Option<u64>, events: u64) -> Option<f64> {
    let spent = after?.checked_sub(before?)?;
    (events > 0).then(|| spent as f64 * US_PER_TICK / events as f64)
}

/// utime + stime of a `/proc/…/stat` line: fields 14 and 15, the 12th and 13th after the
/// command name ([`stat_fields`]).
fn stat_ticks(stat: &str) -> Option<u64> {
    let mut fields = stat_fields(stat).skip(11);
    Some(fields.next()?.parse::<u64>().ok()? + fields.next()?.parse::<u64>().ok()?)
}

/// `--waves`' lines, one per wave between two marks of (answers, main-thread ticks).
fn wave_lines(marks: &[(u64, u64)]) -> Vec<String> {
    marks
        .windows(2)
        .enumerate()
        .map(|(i, pair)| {
            let ((a, t0), (b, t1)) = (pair[0], pair[1]);
            let per = cpu_us_per_event(Some(t0), Some(t1), b - a).unwrap_or(0.0);
            format!(
                "loadgen: wave {}: answers {a}-{b}: {per:.0} us of the server's main thread each",
                i + 1
            )
        })
        .collect()
}

fn load(args: &Args) -> Value {
    let run = run_nonce();
    let next = AtomicU64::new(0);
    let answered = AtomicU64::new(0);
    let wave_pid = args.pid.filter(|_| args.waves);
    let marks = Mutex::new(Vec::from_iter(
        wave_pid.and_then(main_thread_ticks).map(|t| (0, t)),
    ));
    let cpu_before = args.pid.and_then(process_ticks);
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(args.seconds);
    let mut total = Tally::default();
    std::thread::scope(|s| {
        if args.progress {
            let next = &next;
            s.spawn(move || {
                let mut before = 0;
                for second in 1.. {
                    std::thread::sleep(Duration::from_secs(1));
                    let now = next.load(Ordering::Relaxed);
                    eprintln!("loadgen: second {second}: {} requests", now - before);
                    before = now;
                    if Instant::now() >= deadline {
                        break;
                    }
                }
            });
        }
        let threads: Vec<_> = (0..args.concurrency)
            .map(|_| {
                s.spawn(|| {
                    let client = Client::new(args);
                    let mut tally = Tally::default();
                    while Instant::now() < deadline {
                        let d = args
                            .scenario
                            .delivery(&run, next.fetch_add(1, Ordering::Relaxed));
                        let body = d.body();
                        let t0 = Instant::now();
                        let answer = client.send(&args.secret, &d, &body);
                        tally.record(answer, t0.elapsed());
                        let k = answered.fetch_add(1, Ordering::Relaxed) + 1;
                        if let Some(pid) = wave_pid.filter(|_| k.is_multiple_of(ENTITIES)) {
                            let ticks = main_thread_ticks(pid);
                            let mut marks = marks.lock().expect("wave marks poisoned");
                            marks.extend(ticks.map(|t| (k, t)));
                        }
                    }
                    tally
                })
            })
            .collect();
        for t in threads {
            total.merge(t.join().expect("load thread panicked"));
        }
    });
    let elapsed = started.elapsed().as_secs_f64();
    let cpu_after = args.pid.and_then(process_ticks);
    for line in wave_lines(&marks.into_inner().expect("wave marks poisoned")) {
        eprintln!("{line}");
    }

    let mut lat = total.latencies_us;
    lat.sort_unstable();
    let pct = |p: f64| -> f64 {
        if lat.is_empty() {
            return 0.0;
        }
        let i = ((p * lat.len() as f64).ceil() as usize).clamp(1, lat.len()) - 1;
        lat[i] as f64 / 1000.0
    };
    let rows: BTreeMap<_, _> = total
        .rows
        .iter()
        .map(|(k, (sum, n))| (k.clone(), json!({ "mean": sum / *n as f64, "answers": n })))
        .collect();
    json!({
        "scenario": args.scenario.name(),
        "url": args.url,
        "concurrency": args.concurrency,
        "seconds": elapsed,
        "requests": lat.len(),
        "ok": total.ok,
        "events_per_sec": total.ok as f64 / elapsed,
        "latency_ms": { "p50": pct(0.50), "p99": pct(0.99), "p999": pct(0.999), "max": pct(1.0) },
        "errors": total.errors,
        "error_samples": total.error_samples,
        "outcomes": total.outcomes,
        "rows_written": rows,
        // What an event cost the server's process, all its threads, whatever else ran.
        "server_cpu_us_per_event": cpu_us_per_event(cpu_before, cpu_after, total.ok),
    })
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("loadgen: {e}\n{USAGE}");
        std::process::exit(2);
    });
    if args.ready {
        if let Err(e) = ready(&args) {
            eprintln!("loadgen: {e}");
            std::process::exit(1);
        }
        return;
    }
    let report = load(&args);
    if args.json {
        println!("{report}");
    } else {
        let l = &report["latency_ms"];
        println!(
            "{}: {} requests in {:.1}s, {:.0} events/s, p50 {} ms, p99 {} ms, p999 {} ms, {} errors, outcomes {}, rows_written {}",
            report["scenario"], report["requests"], report["seconds"].as_f64().unwrap_or(0.0),
            report["events_per_sec"].as_f64().unwrap_or(0.0), l["p50"], l["p99"], l["p999"],
            report["errors"], report["outcomes"], report["rows_written"],
        );
        for e in report["error_samples"].as_array().into_iter().flatten() {
            println!("  error: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_user_and_system_ticks_whatever_the_command_name() {
        let line = "4242 (work (erd) x) S 1 4242 4242 0 -1 4194560 1200 0 3 0 731 269 0 0 20 0 9 0";
        assert_eq!(stat_ticks(line), Some(731 + 269));
        assert_eq!(stat_ticks("4242 (workerd) S 1"), None);
        assert!(main_thread_ticks(std::process::id()).is_some());
        assert!(process_ticks(std::process::id()).is_some());
    }

    #[test]
    fn the_servers_cpu_per_event_is_its_ticks_over_the_events_in_microseconds() {
        assert_eq!(cpu_us_per_event(Some(100), Some(250), 3_000), Some(500.0));
        assert_eq!(cpu_us_per_event(Some(100), Some(100), 10), Some(0.0));
        assert_eq!(cpu_us_per_event(Some(100), Some(250), 0), None);
        assert_eq!(cpu_us_per_event(None, Some(250), 3_000), None);
        assert_eq!(cpu_us_per_event(Some(100), None, 3_000), None);
        // A process that was replaced between the readings: no figure, not a huge one.
        assert_eq!(cpu_us_per_event(Some(250), Some(100), 3_000), None);
    }

    #[test]
    fn each_wave_is_its_ticks_over_its_answers_in_microseconds() {
        let lines = wave_lines(&[(0, 100), (1_000, 250), (2_000, 300)]);
        assert_eq!(
            lines,
            [
                "loadgen: wave 1: answers 0-1000: 1500 us of the server's main thread each",
                "loadgen: wave 2: answers 1000-2000: 500 us of the server's main thread each",
            ]
        );
        assert!(wave_lines(&[(0, 100)]).is_empty());
    }
}

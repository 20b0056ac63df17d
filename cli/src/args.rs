//! The command line, as clap derives it. Every command's `--help` ends with an example.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use hookonce_core::verify::Scheme;

#[derive(Parser, Debug)]
#[command(
    name = "hookonce",
    version,
    about = "Sign, verify, send, replay and watch webhooks for a hookonce gateway",
    after_help = "Examples:
  hookonce sign --scheme standard-webhooks --secret whsec_… event.json
  hookonce send http://127.0.0.1:8787 --source cockpit --secret whsec_… --fixture cardholder.updated --repeat 3
  hookonce check http://127.0.0.1:8787 --source cockpit --entity ch_sample_1
  hookonce stats http://127.0.0.1:8787 --source cockpit --watch
  hookonce destination pause http://127.0.0.1:8787 --source cockpit --destination default
  hookonce listen --port 4000 --secret whsec_…

The base URL and the admin token may also come from HOOKONCE_URL and HOOKONCE_ADMIN_TOKEN.
Exit status: 0 ok, 1 a negative answer (invalid, failed, changed), 2 an error."
)]
pub struct Cli {
    /// Print JSON: one document, or one line per event (tail, listen) or per refresh (stats --watch).
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    Sign(SignArgs),
    Verify(VerifyArgs),
    Send(SendArgs),
    Replay(ReplayArgs),
    Check(CheckArgs),
    Tail(TailArgs),
    Stats(StatsArgs),
    Destination(DestinationArgs),
    Listen(ListenArgs),
    Requeue(RequeueArgs),
    Redeliver(RedeliverArgs),
    Backfill(BackfillArgs),
}

/// A scheme by its configuration name, read with core's own names so that a scheme added
/// there is accepted here without a change.
pub fn parse_scheme(s: &str) -> Result<Scheme, String> {
    serde_json::from_value(serde_json::Value::String(s.to_owned())).map_err(|_| {
        format!("unknown scheme {s:?}; hookonce verifies standard-webhooks, stripe and github")
    })
}

/// The configuration name of a scheme, e.g. "standard-webhooks".
pub fn scheme_name(scheme: &Scheme) -> String {
    serde_json::to_value(scheme)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{scheme:?}"))
}

/// Where hookonce runs.
#[derive(Args, Debug, Clone)]
pub struct Target {
    /// hookonce's base URL, e.g. http://127.0.0.1:8787.
    #[arg(env = "HOOKONCE_URL", value_name = "URL")]
    pub url: String,
}

/// Where hookonce runs, and the token of its read and admin APIs.
#[derive(Args, Debug, Clone)]
pub struct AdminTarget {
    #[command(flatten)]
    pub target: Target,

    /// The admin API's bearer token (HOOKONCE_ADMIN_TOKEN in the worker's secrets).
    #[arg(long, env = "HOOKONCE_ADMIN_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// The source, as named in HOOKONCE_SOURCES.
    #[arg(long)]
    pub source: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `Name: value` lines.
    Headers,
    /// A ready-to-run curl command (needs --url).
    Curl,
    /// A JSON object of the headers (the same as --json).
    Json,
}

/// Print the signature headers a provider of the scheme would send with a body.
#[derive(Args, Debug)]
#[command(after_help = "Example:
  echo -n '{\"id\":\"evt_1\"}' | hookonce sign --scheme standard-webhooks \\
      --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw --id evt_1 --timestamp 1791270400
  hookonce sign --scheme stripe --secret whsec_test --format curl \\
      --url http://127.0.0.1:8787/webhooks/stripe event.json")]
pub struct SignArgs {
    /// standard-webhooks, stripe, github, shopify or slack.
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: Scheme,

    /// The signing secret, as the provider shows it (whsec_… for Standard Webhooks).
    #[arg(long)]
    pub secret: String,

    /// The webhook-id (Standard Webhooks signs it; default: a fresh msg_… id).
    #[arg(long)]
    pub id: Option<String>,

    /// The signed unix timestamp (default: now; GitHub signs none).
    #[arg(long)]
    pub timestamp: Option<i64>,

    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Headers)]
    pub format: Format,

    /// The delivery URL for --format curl, e.g. http://127.0.0.1:8787/webhooks/cockpit.
    #[arg(long)]
    pub url: Option<String>,

    /// The body: a file, or - for standard input (the default).
    #[arg(value_name = "FILE|-")]
    pub file: Option<PathBuf>,
}

/// Say whether a captured delivery is validly signed, or exactly why not (exit 0 or 1).
#[derive(Args, Debug)]
#[command(after_help = "Example (GitHub's documented test vector):
  echo -n 'Hello, World!' | hookonce verify --scheme github --secret \"It's a Secret to Everybody\" \\
      --header 'X-Hub-Signature-256: sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17'")]
pub struct VerifyArgs {
    /// standard-webhooks, stripe, github, shopify or slack.
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: Scheme,

    /// A secret to accept (repeat it for a rotation).
    #[arg(long, required = true)]
    pub secret: Vec<String>,

    /// A header of the delivery, 'Name: value' (repeat it).
    #[arg(long = "header", short = 'H', value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,

    /// The unix time to check the timestamp against (default: now), e.g. when it arrived.
    #[arg(long)]
    pub now: Option<i64>,

    /// Seconds the timestamp may be away from --now (default: the scheme's own, 300).
    #[arg(long)]
    pub tolerance: Option<u64>,

    /// The raw body: a file, or - for standard input (the default).
    #[arg(value_name = "FILE|-")]
    pub file: Option<PathBuf>,
}

/// Sign deliveries freshly and post them to URL/webhooks/SOURCE; print each outcome and a summary.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  hookonce send http://127.0.0.1:8787 --source cockpit --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw \\
      --fixture cardholder.updated --repeat 3 --older --shuffle
  hookonce send http://127.0.0.1:8787 --source cockpit --secret whsec_… event.json

Fixtures: cardholder.created, cardholder.updated (snapshots), payment.captured (a ledger
entry), push (GitHub's event); each run gets a fresh event id, shaped for --scheme.
--repeat N sends each event N times (one applied, N-1 duplicates); --older also sends an
older version of it, a new event id an hour earlier for the same entity (stale when it
arrives after the newer one); --shuffle sends everything in random order.")]
pub struct SendArgs {
    #[command(flatten)]
    pub target: Target,

    /// The event body to send (a file, or - for standard input).
    #[arg(value_name = "FILE|-", conflicts_with = "fixture")]
    pub file: Option<PathBuf>,

    /// The source, as named in HOOKONCE_SOURCES.
    #[arg(long)]
    pub source: String,

    /// standard-webhooks, stripe, github, shopify or slack.
    #[arg(long, value_parser = parse_scheme, default_value = "standard-webhooks")]
    pub scheme: Scheme,

    /// The source's signing secret.
    #[arg(long)]
    pub secret: String,

    /// A built-in event instead of a file.
    #[arg(long)]
    pub fixture: Option<String>,

    /// The entity a fixture is about (default: the fixture's sample entity).
    #[arg(long)]
    pub entity: Option<String>,

    /// The event id of a fixture, or the delivery id of a GitHub body (default: fresh).
    #[arg(long)]
    pub id: Option<String>,

    /// An extra request header, 'Name: value' (repeat it).
    #[arg(long = "header", short = 'H', value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,

    /// Send each event this many times.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,

    /// Deliveries in flight at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,

    /// Send the deliveries in random order.
    #[arg(long)]
    pub shuffle: bool,

    /// Also send an older version of each event (a snapshot an hour earlier).
    #[arg(long)]
    pub older: bool,
}

/// One stored event: its id, and the entity whose object holds it.
#[derive(Args, Debug)]
pub struct StoredEvent {
    /// The event id.
    #[arg(long)]
    pub event: String,

    /// The entity the event is about (events without one are found by id alone).
    #[arg(long)]
    pub entity: Option<String>,
}

/// Replay one stored event through the whole pipeline; print its outcome and `changed`.
#[derive(Args, Debug)]
#[command(after_help = "Example:
  hookonce replay http://127.0.0.1:8787 --source cockpit --event evt_1 --entity ch_sample_1")]
pub struct ReplayArgs {
    #[command(flatten)]
    pub admin: AdminTarget,

    #[command(flatten)]
    pub stored: StoredEvent,
}

/// Replay every stored event of an entity; report any replay that changed anything (exit 1),
/// and the entity's outbox rows per destination: delivered, pending, dead.
#[derive(Args, Debug)]
#[command(after_help = "Example:
  hookonce check http://127.0.0.1:8787 --source cockpit --entity ch_sample_1")]
pub struct CheckArgs {
    #[command(flatten)]
    pub admin: AdminTarget,

    /// The entity.
    #[arg(long)]
    pub entity: String,
}

/// Follow a source's deliveries, one line each: the source's event feed where the worker
/// has one, else one entity's events (--entity); and where each went, with its destination:
/// the source's dead letters, or with --entity each change of the entity's outbox rows.
#[derive(Args, Debug)]
#[command(after_help = "Example:
  hookonce tail http://127.0.0.1:8787 --source cockpit --entity ch_sample_1")]
pub struct TailArgs {
    #[command(flatten)]
    pub admin: AdminTarget,

    /// The entity to follow when the worker has no source-wide feed.
    #[arg(long)]
    pub entity: Option<String>,

    /// Seconds between polls.
    #[arg(long, default_value_t = 1.0)]
    pub interval: f64,
}

/// Seconds between refreshes: a number, at least 1.
fn parse_watch(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(secs) if (1.0..=86_400.0).contains(&secs) => Ok(secs),
        _ => Err(format!("{s:?} is not a number of seconds from 1 to 86400")),
    }
}

/// Print a source's figures from GET /metrics as a table: deliveries by outcome, rejections
/// by reason, forward attempts by result, pending outbox rows, the oldest one's age and dead
/// letters, each marked exact or best-effort.
#[derive(Args, Debug)]
#[command(after_help = "Example (refreshes every 10 seconds until Ctrl-C):
  hookonce stats http://127.0.0.1:8787 --source cockpit --watch 10

Exact figures are counted from the entities' outbox rows; best-effort ones from the feed's
notes, which a crash can lose. Put --watch after the URL: it takes an optional value.")]
pub struct StatsArgs {
    #[command(flatten)]
    pub admin: AdminTarget,

    /// Clear the screen and show the figures again every SECONDS (default 5) until Ctrl-C.
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "5",
          value_parser = parse_watch)]
    pub watch: Option<f64>,
}

/// What `hookonce destination` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DestinationAction {
    /// Show its state: closed, open, half-open or paused, with its figures.
    Status,
    /// Send nothing to it until resumed; its rows wait, none is spent.
    Pause,
    /// Send to it again.
    Resume,
}

/// Show, pause or resume a source's destination: the guard all its entities share.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  hookonce destination status http://127.0.0.1:8787 --source cockpit
  hookonce destination pause http://127.0.0.1:8787 --source cockpit --destination default

A source's single forward is the destination named default. While paused, no entity
sends to it: their rows wait, spend no attempt and never become dead letters for it.")]
pub struct DestinationArgs {
    /// status, pause or resume.
    #[arg(value_enum)]
    pub action: DestinationAction,

    #[command(flatten)]
    pub admin: AdminTarget,

    /// The destination's name.
    #[arg(long, default_value = "default")]
    pub destination: String,
}

/// Receive what hookonce forwards: verify each event's signature, print it with its
/// Idempotency-Key, flag keys seen before, and optionally pass it on.
#[derive(Args, Debug)]
#[command(
    after_help = "Example (the forward.url of a source is then http://127.0.0.1:4000/):
  hookonce listen --port 4000 --secret whsec_CVHbIk2dr2WGJQt+GtI9aPv40fJj6c7VgJDfaj3hJc4= \\
      --forward-to http://127.0.0.1:3000/hooks"
)]
pub struct ListenArgs {
    /// The port on 127.0.0.1 (0: any free port; the address is printed on stderr).
    #[arg(long)]
    pub port: u16,

    /// The address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,

    /// HOOKONCE_FORWARD_SECRET, to verify signatures (without it, nothing is verified).
    #[arg(long, env = "HOOKONCE_FORWARD_SECRET", hide_env_values = true)]
    pub secret: Option<String>,

    /// Pass each verified event on to this URL and answer with its status.
    #[arg(long)]
    pub forward_to: Option<String>,
}

/// Put dead letters back in the queue, their attempts starting over: one entity's (with
/// --entity), or those across the whole source that match the filters, page by page with
/// progress; --dry-run only counts them. Print how many, and any left dead with the reason.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  hookonce requeue http://127.0.0.1:8787 --source stripe --destination billing --since 2h --dry-run
  hookonce requeue http://127.0.0.1:8787 --source stripe --destination billing --since 2h \\
      --type 'invoice.*' --reason 503
  hookonce requeue http://127.0.0.1:8787 --source stripe --entity cus_1 --destination billing

--since and --until (when the row died) take unix seconds, or an age: a whole number with
s, m, h or d.")]
pub struct RequeueArgs {
    #[command(flatten)]
    pub admin: AdminTarget,

    /// Only this entity's dead letters (the filters and --dry-run apply across a source).
    #[arg(long, conflicts_with_all = ["kind", "since", "until", "reason", "dry_run"])]
    pub entity: Option<String>,

    /// Only this destination's dead letters (a source's single `forward` is `default`).
    #[arg(long)]
    pub destination: Option<String>,

    /// Only events of these types: patterns as a destination's `types`, comma-separated,
    /// e.g. 'invoice.*,!invoice.upcoming'.
    #[arg(long = "type", value_name = "PATTERNS")]
    pub kind: Option<String>,

    /// Only rows that died at or after this: unix seconds, or an age such as 2h.
    #[arg(long, value_parser = parse_since)]
    pub since: Option<Since>,

    /// Only rows that died at or before this: unix seconds, or an age such as 30m.
    #[arg(long, value_parser = parse_since)]
    pub until: Option<Since>,

    /// Only rows whose last result contains this text, e.g. 503.
    #[arg(long)]
    pub reason: Option<String>,

    /// Count what would go back, per destination, and change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Entities per request (1 to 100): each is one object the worker calls.
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub page: u32,
}

/// Send an applied event again, with the same Idempotency-Key, to one destination or to
/// every one that takes it (a replay, by contrast, sends nothing).
#[derive(Args, Debug)]
#[command(after_help = "Example:
  hookonce redeliver http://127.0.0.1:8787 --source stripe --event evt_1 --entity cus_1 \\
      --destination billing")]
pub struct RedeliverArgs {
    #[command(flatten)]
    pub admin: AdminTarget,

    #[command(flatten)]
    pub stored: StoredEvent,

    /// Only to this destination.
    #[arg(long)]
    pub destination: Option<String>,
}

/// Send a destination added later an entity's kept events since a time, in order, before
/// its later ones: one entity's, or (without --entity) every entity's the source saw since
/// then, page by page with progress; print what was enqueued and skipped.
#[derive(Args, Debug)]
#[command(after_help = "Examples (the events of the last two hours):
  hookonce backfill http://127.0.0.1:8787 --source stripe --destination analytics \\
      --entity cus_1 --since 2h
  hookonce backfill http://127.0.0.1:8787 --source stripe --destination analytics --since 2h

--since takes unix seconds, or an age: a whole number with s, m, h or d.")]
pub struct BackfillArgs {
    #[command(flatten)]
    pub admin: AdminTarget,

    /// The destination.
    #[arg(long)]
    pub destination: String,

    /// The entity; without it, every entity of the source seen since then.
    #[arg(long)]
    pub entity: Option<String>,

    /// Unix seconds, or an age such as 90s, 30m, 2h or 7d.
    #[arg(long, value_parser = parse_since)]
    pub since: Since,

    /// Entities per request without --entity (1 to 100): each is one object the worker calls.
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub page: u32,
}

/// Where a backfill starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Since {
    /// At this instant, unix seconds.
    At(u64),
    /// This many seconds ago.
    Ago(u64),
}

impl Since {
    /// The instant, given the time now in unix seconds.
    pub fn at(self, now: u64) -> u64 {
        match self {
            Since::At(at) => at,
            Since::Ago(secs) => now.saturating_sub(secs),
        }
    }
}

/// Unix seconds (digits only), or an age: digits then `s`, `m`, `h` or `d`.
pub fn parse_since(s: &str) -> Result<Since, String> {
    let bad = || format!("{s:?} is neither unix seconds nor an age such as 90s, 30m, 2h or 7d");
    let digits = |d: &str| -> Result<u64, String> {
        match d.bytes().all(|b| b.is_ascii_digit()) && !d.is_empty() {
            true => d.parse().map_err(|_| bad()),
            false => Err(bad()),
        }
    };
    let Some(unit) = s.chars().last() else {
        return Err(bad());
    };
    let per = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        _ => return digits(s).map(Since::At),
    };
    let n = digits(&s[..s.len() - 1])?;
    n.checked_mul(per).map(Since::Ago).ok_or_else(bad)
}

#[cfg(test)]
mod since_tests {
    use super::*;

    #[test]
    fn since_reads_unix_seconds_or_an_age() {
        assert_eq!(parse_since("1700000000"), Ok(Since::At(1_700_000_000)));
        assert_eq!(parse_since("0"), Ok(Since::At(0)));
        assert_eq!(parse_since("90s"), Ok(Since::Ago(90)));
        assert_eq!(parse_since("30m"), Ok(Since::Ago(1_800)));
        assert_eq!(parse_since("2h"), Ok(Since::Ago(7_200)));
        assert_eq!(parse_since("7d"), Ok(Since::Ago(604_800)));
        for bad in [
            "",
            "h",
            "2x",
            "-1",
            "1.5h",
            "+3",
            "2 h",
            "99999999999999999999d",
        ] {
            assert!(parse_since(bad).is_err(), "{bad:?}");
        }
        assert_eq!(Since::Ago(7_200).at(10_000), 2_800);
        assert_eq!(Since::Ago(7_200).at(100), 0);
    }
}

//! `stats`: one source's figures from `GET /metrics`, as a table, once or every few seconds.
//!
//! Every family with a `source` label is shown, named after its metric, so a figure the
//! worker adds appears without a change here. Whether a figure is exact or best-effort is
//! what its `# HELP` says.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use serde_json::{json, Map, Value};

use crate::args::StatsArgs;
use crate::exposition::{self, Exposition};
use crate::http::Admin;
use crate::input::{now, rfc3339};

/// The gauge that says whether the configuration loads; hookonce's `/metrics` always has it.
const CONFIGURATION_ERRORS: &str = "hookonce_configuration_errors";
/// The gauge that lists the sources, 1 for each one whose figures are in the scrape.
const SOURCE_UP: &str = "hookonce_source_up";

/// Clears the terminal and puts the cursor home (ANSI).
const CLEAR: &str = "\x1b[2J\x1b[H";

/// One line of the table.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    /// The metric without `hookonce_` and `_total`, e.g. `deliveries`.
    key: String,
    /// The values of its labels other than `source`, e.g. `applied`.
    by: String,
    value: f64,
    /// `exact`, `best-effort` or `-`, from the family's help text.
    counted: &'static str,
}

/// The ways a figure is counted, in the order the table shows them.
const COUNTED: [&str; 3] = ["exact", "best-effort", "-"];

/// The source's rows, or an error saying why the scrape has none for it.
fn rows(e: &Exposition, source: &str) -> Result<Vec<Row>> {
    let Some(config) = e.samples.iter().find(|s| s.name == CONFIGURATION_ERRORS) else {
        bail!("the answer has no {CONFIGURATION_ERRORS}: is this a hookonce?");
    };
    if config.value != 0.0 {
        bail!("hookonce's configuration does not load ({CONFIGURATION_ERRORS} 1), so it serves no source; its logs say why (msg configuration_invalid)");
    }
    let ups: Vec<_> = e.samples.iter().filter(|s| s.name == SOURCE_UP).collect();
    match ups.iter().find(|s| s.label("source") == Some(source)) {
        None => {
            let known: Vec<&str> = ups.iter().filter_map(|s| s.label("source")).collect();
            bail!(
                "this hookonce has no source {source:?}; its sources are: {}",
                known.join(", ")
            )
        }
        Some(up) if up.value != 1.0 => bail!(
            "the feed object of source {source} did not answer this scrape ({SOURCE_UP} 0): its figures are unknown until it does"
        ),
        Some(_) => {}
    }
    let mut rows: Vec<Row> = e
        .samples
        .iter()
        .filter(|s| s.name != SOURCE_UP && s.label("source") == Some(source))
        .map(|s| {
            let help = e.help(&s.name).unwrap_or_default();
            let counted = if help.contains("best-effort") {
                COUNTED[1]
            } else if help.contains("exact") {
                COUNTED[0]
            } else {
                COUNTED[2]
            };
            let key = s.name.strip_prefix("hookonce_").unwrap_or(&s.name);
            let others = s.labels.iter().filter(|(k, _)| k != "source");
            Row {
                key: key.strip_suffix("_total").unwrap_or(key).to_owned(),
                by: others
                    .map(|(_, v)| v.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
                value: s.value,
                counted,
            }
        })
        .collect();
    rows.sort_by_key(|r| COUNTED.iter().position(|c| *c == r.counted));
    Ok(rows)
}

/// A value as people read it: whole numbers without a fraction, `_seconds` as a duration.
fn shown(r: &Row) -> String {
    let whole = r.value.fract() == 0.0 && r.value.abs() < 9e15;
    match (whole, r.key.ends_with("_seconds") && r.value >= 0.0) {
        (true, true) => humantime::format_duration(Duration::from_secs(r.value as u64)).to_string(),
        (true, false) => format!("{}", r.value as i64),
        _ => r.value.to_string(),
    }
}

/// The table: a title, a header, one line a row, and what each way of counting means.
fn table(source: &str, at: &str, rows: &[Row]) -> String {
    let figure = |r: &Row| {
        let name = r.key.strip_suffix("_seconds").unwrap_or(&r.key);
        name.replace('_', " ")
    };
    let lines: Vec<[String; 4]> = rows
        .iter()
        .map(|r| [figure(r), r.by.clone(), shown(r), r.counted.to_owned()])
        .collect();
    let head = ["FIGURE", "BY", "VALUE", "COUNTED"].map(str::to_owned);
    let width = |i: usize| {
        let cells = lines.iter().chain([&head]).map(|l| l[i].chars().count());
        cells.max().unwrap_or(0)
    };
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let mut out = format!("hookonce stats: source {source} at {at}\n\n");
    for [f, by, v, c] in [head].iter().chain(&lines) {
        out.push_str(&format!("{f:<w0$}  {by:<w1$}  {v:>w2$}  {c}\n"));
    }
    if rows.is_empty() {
        out.push_str("(the worker reports no figures for this source)\n");
    }
    let has = |c: &str| rows.iter().any(|r| r.counted == c);
    out.push('\n');
    if has(COUNTED[0]) {
        out.push_str(
            "exact: counted from the entities' outbox rows (as of each one's last alarm pass)\n",
        );
    }
    if has(COUNTED[1]) {
        out.push_str("best-effort: added up from the feed's notes, which a crash can lose\n");
    }
    out
}

/// The rows as one JSON document: `figures` by key (an object by label where a family has
/// one), and how each is `counted`.
fn document(source: &str, at: &str, rows: &[Row]) -> Value {
    let number = |v: f64| {
        if v.fract() == 0.0 && v.abs() < 9e15 {
            json!(v as i64)
        } else {
            json!(v)
        }
    };
    let (mut figures, mut counted) = (Map::new(), Map::new());
    for r in rows {
        counted.insert(r.key.clone(), json!(r.counted));
        if r.by.is_empty() {
            figures.insert(r.key.clone(), number(r.value));
        } else if let Value::Object(m) = figures.entry(r.key.clone()).or_insert(json!({})) {
            m.insert(r.by.clone(), number(r.value));
        }
    }
    json!({ "source": source, "at": at, "figures": figures, "counted": counted })
}

/// One scrape of `/metrics`, printed as the table or as JSON.
fn scrape(api: &Admin, source: &str, json: bool) -> Result<String> {
    let reply = api.call("GET", "/metrics")?;
    if reply.status != 200 {
        bail!("GET /metrics: {}", reply.describe());
    }
    let text = String::from_utf8(reply.body).context("GET /metrics: the answer is not UTF-8")?;
    let parsed = exposition::parse(&text)
        .context("GET /metrics: the answer is not the Prometheus text format")?;
    let rows = rows(&parsed, source)?;
    let at = rfc3339(now());
    Ok(if json {
        format!("{}\n", document(source, &at, &rows))
    } else {
        table(source, &at, &rows)
    })
}

pub fn run(a: StatsArgs, json: bool) -> Result<ExitCode> {
    let api = crate::admin::connect(&a.admin)?;
    let source = &a.admin.source;
    // The first scrape's error ends the command, watched or not: a wrong token or source
    // is said at once.
    let first = scrape(&api, source, json)?;
    let Some(every) = a.watch else {
        print!("{first}");
        return Ok(ExitCode::SUCCESS);
    };
    let every = Duration::from_secs_f64(every);
    let mut shown = Ok(first);
    loop {
        match (&shown, json) {
            (Ok(text), true) => print!("{text}"),
            (Ok(text), false) => println!("{CLEAR}{text}every {every:?}; Ctrl-C ends"),
            // Later failures (a redeploy, a network blip) are shown, and the watch goes on.
            (Err(e), true) => eprintln!("hookonce stats: {e:#}; trying again in {every:?}"),
            (Err(e), false) => {
                println!("{CLEAR}hookonce stats: {e:#}; trying again in {every:?}");
            }
        }
        std::thread::sleep(every);
        shown = scrape(&api, source, json);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookonce_core::metrics::{
        exposition as text_of, Count, DestinationRows, Figures, SourceFigures,
    };
    use hookonce_core::time::UnixSeconds;

    fn figures(source: &str) -> SourceFigures {
        let count = |family: &str, label: &str, by| Count {
            family: family.into(),
            label: label.into(),
            by,
        };
        SourceFigures {
            source: source.into(),
            counters: vec![
                count("deliveries", "applied", 5),
                count("attempts", "2xx", 4),
            ],
            pending: 1,
            oldest_pending_at: Some(1_000 - 3_725),
            dead: 2,
            destinations: vec![DestinationRows {
                destination: "billing".into(),
                pending: 1,
                oldest_pending_at: Some(1_000 - 3_725),
                dead: 2,
            }],
        }
    }

    fn parsed(f: &Figures) -> Exposition {
        exposition::parse(&text_of(f, UnixSeconds(1_000))).unwrap()
    }

    #[test]
    fn the_table_shows_exact_figures_first_then_best_effort_ones() {
        let f = Figures {
            sources: vec![figures("other"), figures("cockpit")],
            ..Figures::default()
        };
        let rows = rows(&parsed(&f), "cockpit").unwrap();
        let text = table("cockpit", "2026-12-07T11:40:00Z", &rows);
        let words: Vec<String> = text
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        let at = |line: &str| {
            words
                .iter()
                .position(|w| w == line)
                .unwrap_or_else(|| panic!("no {line:?} in\n{text}"))
        };
        let exact = [
            "outbox pending rows 1 exact",
            "outbox oldest pending age 1h 2m 5s exact",
            "dead letters 2 exact",
            "destination pending rows billing 1 exact",
            "destination oldest pending age billing 1h 2m 5s exact",
            "destination dead letters billing 2 exact",
        ];
        let best_effort = [
            "deliveries applied 5 best-effort",
            "deliveries duplicate 0 best-effort",
            "deliveries stale 0 best-effort",
            "rejected deliveries signature 0 best-effort",
            "forward attempts 2xx 4 best-effort",
        ];
        let last_exact = exact.map(at).into_iter().max().unwrap();
        assert!(best_effort.map(at).into_iter().all(|i| i > last_exact));
        assert_eq!(at("FIGURE BY VALUE COUNTED"), 2);
        assert_eq!(rows.len(), 3 + 3 + 3 + 1 + 3, "one row a series of cockpit");
        assert!(text.contains("best-effort: added up from the feed's notes"));

        let doc = document("cockpit", "t", &rows);
        assert_eq!(doc["figures"]["deliveries"]["applied"], 5);
        assert_eq!(doc["figures"]["outbox_oldest_pending_age_seconds"], 3_725);
        assert_eq!(doc["counted"]["dead_letters"], "exact");
        assert_eq!(doc["figures"]["destination_dead_letters"]["billing"], 2);
        assert_eq!(doc["counted"]["forward_attempts"], "best-effort");
    }

    #[test]
    fn an_unknown_down_or_misconfigured_source_is_an_error_saying_which() {
        let f = Figures {
            sources: vec![figures("cockpit")],
            unavailable: vec!["shop".into()],
            ..Figures::default()
        };
        let e = rows(&parsed(&f), "cockpt").unwrap_err().to_string();
        assert!(
            e.contains("no source \"cockpt\"; its sources are: cockpit, shop"),
            "{e}"
        );
        let e = rows(&parsed(&f), "shop").unwrap_err().to_string();
        assert!(e.contains("did not answer this scrape"), "{e}");
        let broken = Figures {
            configuration_invalid: true,
            ..Figures::default()
        };
        let e = rows(&parsed(&broken), "cockpit").unwrap_err().to_string();
        assert!(e.contains("configuration does not load"), "{e}");
        let e = rows(&Exposition::default(), "cockpit").unwrap_err();
        assert!(e.to_string().contains("is this a hookonce?"), "{e}");
    }
}

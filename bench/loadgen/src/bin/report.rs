//! Renders `bench/run.sh`'s raw results as one markdown table.
//!
//! ```text
//! bench-report RAW_DIR CRITERION_DIR
//! ```
//! Reads `RAW_DIR/{bundle,meta}.json`, `startup-{worker}.json`, `load-{worker}-{scenario}.json`
//! (also for the `floor` and `floor-rs` workers, when present), `storage-{worker}-{scenario}.json` and, for
//! hookonce with bodies pruned, `{load,storage}-pruned-{scenario}.json`; and the criterion
//! medians under `CRITERION_DIR/{1KiB,64KiB}/<step>/new/estimates.json`.
//! Exits 1 after printing if any request failed or a duplicate wrote a row.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use hookonce_loadgen::Scenario;
use serde_json::Value;

const WORKERS: [&str; 2] = ["hookonce", "baseline"];
const STEPS: [&str; 4] = ["hmac_only", "verify", "verify+parse", "verify+parse+decide"];
const SIZES: [&str; 2] = ["1KiB", "64KiB"];
const OUTCOMES: [&str; 3] = ["applied", "duplicate", "stale"];
const NA: &str = "—";
/// The floor workers (`bench/floor`, then `bench/floor-rs`): name, and what each is.
const FLOORS: [(&str, &str, &str); 2] = [
    ("floor", "floor", "a JS Worker whose object answers at once"),
    (
        "floor-rs",
        "Rust floor",
        "the same in Rust, talking to the runtime as the edge does",
    ),
];

fn read(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// `12345.6` → `12,346`; below 100, one decimal.
fn num(x: f64) -> String {
    if x < 100.0 {
        return format!("{x:.1}");
    }
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn kib(bytes: f64) -> String {
    format!("{:.1} KiB", bytes / 1024.0)
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => NA.into(),
    }
}

struct Table(String);

impl Table {
    fn row(&mut self, cells: [&str; 5]) {
        let _ = writeln!(self.0, "| {} |", cells.join(" | "));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [raw, criterion] = args.as_slice() else {
        eprintln!("usage: bench-report RAW_DIR CRITERION_DIR");
        std::process::exit(2);
    };
    let (raw, criterion) = (Path::new(raw), Path::new(criterion));
    let meta = read(&raw.join("meta.json")).unwrap_or(Value::Null);
    let load = |w: &str, s: Scenario| read(&raw.join(format!("load-{w}-{}.json", s.name())));
    let mut problems = Vec::new();

    let mut t = Table(String::new());
    for key in ["date", "machine", "command"] {
        if let Some(v) = meta[key].as_str() {
            let _ = writeln!(t.0, "{}: {v}  ", capitalise(key));
        }
    }
    t.0.push('\n');
    t.row([
        "Figure",
        "Path",
        "hookonce",
        "baseline (JS)",
        "hookonce / baseline",
    ]);
    t.row(["---", "---", "---:", "---:", "---:"]);

    // 1. Native core.
    for step in STEPS {
        let cells: Vec<String> = SIZES
            .iter()
            .map(|size| {
                let f = criterion.join(size).join(step).join("new/estimates.json");
                read(&f)
                    .and_then(|v| v["median"]["point_estimate"].as_f64())
                    .map_or(NA.into(), |ns| num(1e9 / ns))
            })
            .collect();
        let floor = if step == "hmac_only" { " (floor)" } else { "" };
        t.row([
            &format!("core `{step}`{floor}, events/s per core, 1 KiB / 64 KiB"),
            "native, criterion median",
            &cells.join(" / "),
            NA,
            NA,
        ]);
    }

    // 2. Bundle.
    let bundle = read(&raw.join("bundle.json")).unwrap_or(Value::Null);
    let size = |key: &str| match (bundle[key][0].as_f64(), bundle[key][1].as_f64()) {
        (Some(r), Some(g)) => format!("{} / {}", kib(r), kib(g)),
        _ => NA.into(),
    };
    t.row([
        "wasm after wasm-opt, raw / gzip",
        "build/index_bg.wasm",
        &size("wasm"),
        NA,
        NA,
    ]);
    t.row([
        "JS glue (baseline: whole worker), raw / gzip",
        "build/index.js; bench/baseline/worker.js",
        &size("glue"),
        &size("baseline"),
        NA,
    ]);

    // 3-4. Load, per scenario.
    let path = format!(
        "workerd direct, c={}, {}s, DO storage on {}",
        meta["concurrency"].as_str().unwrap_or("?"),
        meta["seconds"].as_str().unwrap_or("?"),
        meta["storage"].as_str().unwrap_or("?"),
    );
    for s in Scenario::ALL {
        let runs: Vec<Option<Value>> = WORKERS.iter().map(|w| load(w, s)).collect();
        let eps: Vec<Option<f64>> = runs
            .iter()
            .map(|r| r.as_ref()?["events_per_sec"].as_f64())
            .collect();
        let cell = |f: &dyn Fn(&Value) -> String| -> Vec<String> {
            runs.iter()
                .map(|r| r.as_ref().map_or(NA.into(), f))
                .collect()
        };
        let e = cell(&|r| num(r["events_per_sec"].as_f64().unwrap_or(0.0)));
        t.row([
            &format!("`{}` events/s", s.name()),
            &path,
            &e[0],
            &e[1],
            &ratio(eps[0], eps[1]),
        ]);
        // The floors, under the same load: a JS Worker whose object answers at once, and
        // the same in Rust, talking to the runtime as the edge does.
        let floor = |w| load(w, s).and_then(|r| r["events_per_sec"].as_f64());
        let js_floor = floor(FLOORS[0].0);
        for (w, name, what) in FLOORS {
            let Some(f) = floor(w) else { continue };
            let of = |x: Option<f64>| x.map_or(NA.into(), |x| format!("{:.2}", x / f));
            // Every other floor, also as a fraction of the JS one.
            let relative = match js_floor {
                Some(js) if w != FLOORS[0].0 => format!(", {:.2} of the JS floor", f / js),
                _ => String::new(),
            };
            t.row([
                &format!(
                    "`{}` as a fraction of the {name} ({} events/s{relative}: {what})",
                    s.name(),
                    num(f)
                ),
                &path,
                &of(eps[0]),
                &of(eps[1]),
                NA,
            ]);
        }
        let lat = cell(&|r| {
            let l = &r["latency_ms"];
            let ms = |k: &str| format!("{:.1}", l[k].as_f64().unwrap_or(0.0));
            format!("{} / {} / {}", ms("p50"), ms("p99"), ms("p999"))
        });
        let p99: Vec<Option<f64>> = runs
            .iter()
            .map(|r| r.as_ref()?["latency_ms"]["p99"].as_f64())
            .collect();
        t.row([
            &format!("`{}` latency p50 / p99 / p999 ms (ratio: p99)", s.name()),
            &path,
            &lat[0],
            &lat[1],
            &ratio(p99[0], p99[1]),
        ]);
        let outcomes = cell(&|r| {
            let n = |k: &str| r["outcomes"][k].as_u64().unwrap_or(0).to_string();
            format!("{} · {}", r["errors"], OUTCOMES.map(n).join(" / "))
        });
        t.row([
            &format!("`{}` errors · applied / duplicate / stale", s.name()),
            &path,
            &outcomes[0],
            &outcomes[1],
            NA,
        ]);
        for (w, r) in WORKERS.iter().zip(&runs) {
            let Some(r) = r else { continue };
            if r["errors"].as_u64() != Some(0) {
                problems.push(format!(
                    "{w} `{}`: {} errors, e.g. {}",
                    s.name(),
                    r["errors"],
                    r["error_samples"]
                ));
            }
        }
    }

    // 5. Storage cost, weighted over every scenario.
    let rows: Vec<String> = WORKERS
        .iter()
        .map(|w| {
            let mut per: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
            for s in Scenario::ALL {
                let Some(r) = load(w, s) else { continue };
                for o in OUTCOMES {
                    let x = &r["rows_written"][o];
                    if let (Some(mean), Some(n)) = (x["mean"].as_f64(), x["answers"].as_f64()) {
                        let e = per.entry(o).or_default();
                        e.0 += mean * n;
                        e.1 += n;
                    }
                }
            }
            if per.get("duplicate").is_some_and(|(sum, _)| *sum > 0.0) {
                problems.push(format!("{w}: a duplicate wrote rows"));
            }
            OUTCOMES
                .map(|o| {
                    per.get(o)
                        .map_or(NA.into(), |(sum, n)| format!("{:.2}", sum / n))
                })
                .join(" / ")
        })
        .collect();
    t.row([
        "rows written per applied / duplicate / stale",
        "workerd direct, SQL cursor rowsWritten, mean over all scenarios",
        &rows[0],
        &rows[1],
        NA,
    ]);

    // 5b. Bytes on disk per event: the live pages of the scenario's objects over the events
    // they recorded (applied and stale; a duplicate records nothing).
    let per_event = |name: &str| -> Option<f64> {
        let bytes = read(&raw.join(format!("storage-{name}.json")))?["live_bytes"].as_f64()?;
        let outcomes = &read(&raw.join(format!("load-{name}.json")))?["outcomes"];
        let events = ["applied", "stale"]
            .iter()
            .filter_map(|o| outcomes[o].as_f64())
            .sum::<f64>();
        (events > 0.0).then(|| bytes / events)
    };
    let bytes = |x: Option<f64>| x.map_or(NA.into(), num);
    for s in [Scenario::Hot, Scenario::Unique] {
        let kept = per_event(&format!("hookonce-{}", s.name()));
        let pruned = per_event(&format!("pruned-{}", s.name()));
        let peer = per_event(&format!("baseline-{}", s.name()));
        t.row([
            &format!(
                "`{}` bytes on disk per event: body kept / body pruned (ratio: pruned)",
                s.name()
            ),
            "workerd direct, live SQLite pages of the run's objects / events recorded; pruned: body_retention_secs = 1",
            &format!("{} / {}", bytes(kept), bytes(pruned)),
            &format!("{} (keeps no body)", bytes(peer)),
            &ratio(pruned, peer),
        ]);
    }
    // Per object too: unlike per event, it does not move with how many events each of a
    // run's new entities got, so runs at different speeds compare.
    let per_object = |name: &str| -> Option<f64> {
        let storage = read(&raw.join(format!("storage-{name}.json")))?;
        let files = storage["files"].as_f64().filter(|n| *n > 0.0)?;
        Some(storage["live_bytes"].as_f64()? / files)
    };
    let (kept, pruned, peer) = (
        per_object("hookonce-unique"),
        per_object("pruned-unique"),
        per_object("baseline-unique"),
    );
    t.row([
        "`unique` bytes on disk per entity object: body kept / body pruned (ratio: pruned)",
        "workerd direct, live SQLite pages of the run's objects / objects; pruned: body_retention_secs = 1",
        &format!("{} / {}", bytes(kept), bytes(pruned)),
        &format!("{} (keeps no body)", bytes(peer)),
        &ratio(pruned, peer),
    ]);

    // 6. Start-up.
    let startup_json: Vec<Option<Value>> = WORKERS
        .iter()
        .map(|w| read(&raw.join(format!("startup-{w}.json"))))
        .collect();
    let startup: Vec<Option<f64>> = startup_json
        .iter()
        .map(|j| j.as_ref()?["ms"].as_f64())
        .collect();
    let starts = startup_json[0]
        .as_ref()
        .and_then(|j| j["runs_ms"].as_array())
        .map_or(1, Vec::len);
    let ms = |x: &Option<f64>| x.map_or(NA.into(), |v| format!("{v:.0}"));
    // The floors' start-ups, for what the runtime and a wasm module cost before any code.
    let floors: Vec<String> = FLOORS
        .iter()
        .filter_map(|(w, name, _)| {
            let ms = read(&raw.join(format!("startup-{w}.json")))?["ms"].as_f64()?;
            Some(format!("the {name} {ms:.0}"))
        })
        .collect();
    let floors = match floors.is_empty() {
        true => String::new(),
        false => format!(" ({})", floors.join(", ")),
    };
    t.row([
        &format!("start-up: process start → first 200, ms{floors}"),
        &format!("workerd direct, empty storage, median of {starts} starts"),
        &ms(&startup[0]),
        &ms(&startup[1]),
        &ratio(startup[0], startup[1]),
    ]);

    print!("{}", t.0);
    if let Some(note) = meta["note"].as_str().filter(|n| !n.is_empty()) {
        println!("\n{note}");
    }
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("bench-report: {p}");
        }
        std::process::exit(1);
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

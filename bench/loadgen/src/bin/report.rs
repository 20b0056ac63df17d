//! Renders `bench/run.sh`'s raw results as one markdown table.
//!
//! ```text
//! bench-report RAW_DIR CRITERION_DIR
//! ```
//! Reads `RAW_DIR/{bundle,meta}.json`, `startup-{worker}.json`, `load-{worker}-{scenario}-r{N}.json`
//! for each round N (workers `hookonce`, `baseline`, the ids-only peer, and `baseline-bodies`,
//! the body-keeping peer; also `floor` and `floor-rs`, when present),
//! `storage-{worker}-{scenario}.json` and, for
//! hookonce with bodies pruned, `{load,storage}-pruned-{scenario}.json` (hookonce alone also
//! runs `no-entity`: `load-hookonce-no-entity-r{N}.json`, and `hot` with 0, 1, 2 and 4
//! destinations: `load-fanout-{N}-r{R}.json`); and the criterion
//! medians under `CRITERION_DIR/{1KiB,64KiB}/<step>/new/estimates.json`.
//! Exits 1 after printing if any request failed or a duplicate wrote a row.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use hookonce_loadgen::Scenario;
use serde_json::Value;

/// hookonce, then the peers: ids only, and keeping each raw body with its id.
const WORKERS: [&str; 3] = ["hookonce", "baseline", "baseline-bodies"];
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

/// One worker's rounds of one scenario: `load-{name}-r1.json`, `-r2` … in order, or the one
/// `load-{name}.json` of a run without rounds (the pruned runs of step 6).
struct Rounds(Vec<Value>);

impl Rounds {
    fn read(raw: &Path, name: &str) -> Option<Rounds> {
        let mut runs: Vec<Value> = (1..)
            .map_while(|r| read(&raw.join(format!("load-{name}-r{r}.json"))))
            .collect();
        if runs.is_empty() {
            runs.extend(read(&raw.join(format!("load-{name}.json"))));
        }
        (!runs.is_empty()).then_some(Rounds(runs))
    }

    /// `f` of each round.
    fn each(&self, f: impl Fn(&Value) -> Option<f64>) -> Vec<f64> {
        self.0.iter().filter_map(f).collect()
    }

    fn events_per_sec(&self) -> Vec<f64> {
        self.each(|r| r["events_per_sec"].as_f64())
    }

    fn p99(&self) -> Vec<f64> {
        self.each(|r| r["latency_ms"]["p99"].as_f64())
    }

    /// The server's CPU µs per event, of the rounds that measured it (`loadgen --pid`).
    fn cpu_per_event(&self) -> Vec<f64> {
        self.each(|r| r["server_cpu_us_per_event"].as_f64())
    }

    /// The rounds as one run: the median round's rates and latencies; errors, outcomes and
    /// rows written over all rounds.
    fn merged(&self) -> Value {
        let median_of = |f: &dyn Fn(&Value) -> Option<f64>| median(&self.each(f));
        let mut m = self.0[0].clone();
        m["events_per_sec"] = median_of(&|r| r["events_per_sec"].as_f64()).into();
        for k in ["p50", "p99", "p999"] {
            m["latency_ms"][k] = median_of(&|r| r["latency_ms"][k].as_f64()).into();
        }
        let sum = |f: &dyn Fn(&Value) -> Option<u64>| -> u64 { self.0.iter().filter_map(f).sum() };
        m["errors"] = sum(&|r| r["errors"].as_u64()).into();
        m["error_samples"] = self
            .0
            .iter()
            .filter_map(|r| r["error_samples"].as_array())
            .flatten()
            .cloned()
            .collect();
        for o in OUTCOMES {
            m["outcomes"][o] = sum(&|r| r["outcomes"][o].as_u64()).into();
            let weighted: Vec<(f64, f64)> = self
                .0
                .iter()
                .filter_map(|r| {
                    let x = &r["rows_written"][o];
                    Some((x["mean"].as_f64()?, x["answers"].as_f64()?))
                })
                .collect();
            let answers: f64 = weighted.iter().map(|(_, n)| n).sum();
            if answers > 0.0 {
                let mean = weighted.iter().map(|(m, n)| m * n).sum::<f64>() / answers;
                m["rows_written"][o] = serde_json::json!({ "mean": mean, "answers": answers });
            }
        }
        m
    }
}

/// The median; of an even count, the mean of the middle two.
fn median(xs: &[f64]) -> Option<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The median of the rounds' ratios `a[i] / b[i]`: each pair ran minutes apart at most, so
/// drift on the machine cancels within a pair.
fn paired(a: &[f64], b: &[f64]) -> Option<f64> {
    let ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(_, b)| **b > 0.0)
        .map(|(a, b)| a / b)
        .collect();
    median(&ratios)
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
        (Some(a), Some(b)) if b > 0.0 => times(Some(a / b)),
        _ => NA.into(),
    }
}

fn times(x: Option<f64>) -> String {
    x.map_or(NA.into(), |x| format!("{x:.2}×"))
}

struct Table(String);

impl Table {
    /// Figure, path, hookonce, the ids-only peer, the body-keeping peer, hookonce over each.
    fn row(&mut self, cells: [&str; 7]) {
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
    let rounds = |w: &str, s: Scenario| Rounds::read(raw, &format!("{w}-{}", s.name()));
    let load = |w: &str, s: Scenario| rounds(w, s).map(|r| r.merged());
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
        "peer, ids only (JS)",
        "peer, bodies kept (JS)",
        "hookonce / ids-only peer",
        "hookonce / body-keeping peer",
    ]);
    t.row(["---", "---", "---:", "---:", "---:", "---:", "---:"]);

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
        NA,
        NA,
    ]);
    t.row([
        "JS glue (peers: whole worker), raw / gzip",
        "build/index.js; bench/baseline{,-bodies}/worker.js with bench/baseline/recipe.js",
        &size("glue"),
        &size("baseline"),
        &size("baseline-bodies"),
        NA,
        NA,
    ]);

    // 3-4. Load, per scenario.
    let n_rounds = meta["rounds"].as_str().unwrap_or("1");
    let warmup = match meta["warmup"].as_str() {
        Some(w) if w != "0" => format!(" after a {w}s warm-up"),
        _ => String::new(),
    };
    let path = format!(
        "workerd direct, c={}, {} rounds × {}s{warmup}, DO storage on {}",
        meta["concurrency"].as_str().unwrap_or("?"),
        n_rounds,
        meta["seconds"].as_str().unwrap_or("?"),
        meta["storage"].as_str().unwrap_or("?"),
    );
    for s in Scenario::ALL {
        let all: Vec<Option<Rounds>> = WORKERS.iter().map(|w| rounds(w, s)).collect();
        let runs: Vec<Option<Value>> = all.iter().map(|r| r.as_ref().map(Rounds::merged)).collect();
        let per_round =
            |w: usize, f: fn(&Rounds) -> Vec<f64>| all[w].as_ref().map(f).unwrap_or_default();
        // hookonce's rounds over each peer's: the two ratio cells.
        let against = |f: fn(&Rounds) -> Vec<f64>| {
            let h = per_round(0, f);
            [1, 2].map(|peer| times(paired(&h, &per_round(peer, f))))
        };
        let eps_rounds = [0, 1, 2].map(|w| per_round(w, Rounds::events_per_sec));
        let (eps, p99) = (against(Rounds::events_per_sec), against(Rounds::p99));
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
            &e[2],
            &eps[0],
            &eps[1],
        ]);
        // The floors, under the same load: a JS Worker whose object answers at once, and
        // the same in Rust, talking to the runtime as the edge does.
        let floor = |w| rounds(w, s).map(|r| r.events_per_sec());
        let js_floor = floor(FLOORS[0].0);
        for (w, name, what) in FLOORS {
            let Some(f_rounds) = floor(w) else { continue };
            let Some(f) = median(&f_rounds) else { continue };
            let of = |x: &[f64]| paired(x, &f_rounds).map_or(NA.into(), |x| format!("{x:.2}"));
            // Every other floor, also as a fraction of the JS one.
            let relative = match js_floor.as_deref().and_then(|js| paired(&f_rounds, js)) {
                Some(x) if w != FLOORS[0].0 => format!(", {x:.2} of the JS floor"),
                _ => String::new(),
            };
            t.row([
                &format!(
                    "`{}` as a fraction of the {name} ({} events/s{relative}: {what})",
                    s.name(),
                    num(f)
                ),
                &path,
                &of(&eps_rounds[0]),
                &of(&eps_rounds[1]),
                &of(&eps_rounds[2]),
                NA,
                NA,
            ]);
        }
        let lat = cell(&|r| {
            let l = &r["latency_ms"];
            let ms = |k: &str| format!("{:.1}", l[k].as_f64().unwrap_or(0.0));
            format!("{} / {} / {}", ms("p50"), ms("p99"), ms("p999"))
        });
        t.row([
            &format!("`{}` latency p50 / p99 / p999 ms (ratio: p99)", s.name()),
            &path,
            &lat[0],
            &lat[1],
            &lat[2],
            &p99[0],
            &p99[1],
        ]);
        // Each round's workerd CPU over its events: what an event cost the runtime, V8's
        // background threads included. Older raw results have none, and then no row.
        let cpu = [0, 1, 2].map(|w| per_round(w, Rounds::cpu_per_event));
        if cpu.iter().any(|c| !c.is_empty()) {
            let ratios = against(Rounds::cpu_per_event);
            let us = |c: &[f64]| median(c).map_or(NA.into(), |x| format!("{x:.0}"));
            t.row([
                &format!(
                    "`{}` workerd CPU per event, µs (user + system, all its threads)",
                    s.name()
                ),
                &path,
                &us(&cpu[0]),
                &us(&cpu[1]),
                &us(&cpu[2]),
                &ratios[0],
                &ratios[1],
            ]);
        }
        let outcomes = cell(&|r| {
            let n = |k: &str| r["outcomes"][k].as_u64().unwrap_or(0).to_string();
            format!("{} · {}", r["errors"], OUTCOMES.map(n).join(" / "))
        });
        t.row([
            &format!("`{}` errors · applied / duplicate / stale", s.name()),
            &path,
            &outcomes[0],
            &outcomes[1],
            &outcomes[2],
            NA,
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
        &rows[2],
        NA,
        NA,
    ]);

    // 5b. Bytes on disk per event: the live pages of the scenario's objects over the events
    // they recorded (applied and stale; a duplicate records nothing).
    let per_event = |name: &str| -> Option<f64> {
        let bytes = read(&raw.join(format!("storage-{name}.json")))?["live_bytes"].as_f64()?;
        let outcomes = &Rounds::read(raw, name)?.merged()["outcomes"];
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
        let bodies = per_event(&format!("baseline-bodies-{}", s.name()));
        t.row([
            &format!(
                "`{}` bytes on disk per event: body kept / body pruned (ratios: pruned to the ids-only peer, kept to the body-keeping peer)",
                s.name()
            ),
            "workerd direct, live SQLite pages of the run's objects / events recorded; pruned: body_retention_secs = 1",
            &format!("{} / {}", bytes(kept), bytes(pruned)),
            &format!("{} (keeps no body)", bytes(peer)),
            &bytes(bodies),
            &ratio(pruned, peer),
            &ratio(kept, bodies),
        ]);
    }
    // 5c. Events about no entity, GitHub-shaped, in the source's bucket objects: hookonce
    // only (the peers have no GitHub source); events/s against hookonce's own `hot`.
    if let Some(ne) = Rounds::read(raw, "hookonce-no-entity") {
        let eps = ne.events_per_sec();
        let hot = rounds("hookonce", Scenario::Hot).map(|r| r.events_per_sec());
        t.row([
            "`no-entity` events/s, GitHub-shaped, bucket objects (ratio: to hookonce's `hot`)",
            &path,
            &median(&eps).map_or(NA.into(), num),
            NA,
            NA,
            &times(hot.and_then(|h| paired(&eps, &h))),
            NA,
        ]);
        t.row([
            "`no-entity` bytes on disk per event: body kept / body pruned",
            "workerd direct, live SQLite pages of the run's bucket objects / events recorded; pruned: body_retention_secs = 1",
            &format!(
                "{} / {}",
                bytes(per_event("hookonce-no-entity")),
                bytes(per_event("pruned-no-entity"))
            ),
            NA,
            NA,
            NA,
            NA,
        ]);
    }
    // 5d. Fan-out: `hot` with 1, 2 and 4 destinations against the same run without
    // forwarding (each on a workerd of its own, rounds interleaved), and what an applied
    // event writes with them.
    if let Some(none) = Rounds::read(raw, "fanout-0") {
        let (eps0, cpu0) = (none.events_per_sec(), none.cpu_per_event());
        let mut fan_done: Vec<(u32, Vec<f64>, Vec<f64>)> = Vec::new();
        for n in [0, 1, 2, 4] {
            let Some(r) = Rounds::read(raw, &format!("fanout-{n}")) else {
                continue;
            };
            let (eps, cpu) = (r.events_per_sec(), r.cpu_per_event());
            let merged = r.merged();
            let applied = merged["rows_written"]["applied"]["mean"].as_f64();
            // Each round to the moment its forwarding was done (`done-fanout-N-rR.json`):
            // applied events over the seconds, and workerd's CPU µs per applied event.
            let done: Vec<Value> = (1..=r.0.len())
                .filter_map(|i| read(&raw.join(format!("done-fanout-{n}-r{i}.json"))))
                .collect();
            let rate = |d: &Value| Some(d["applied"].as_f64()? / d["seconds"].as_f64()?);
            let cost = |d: &Value| {
                let us = d["cpu_ticks"].as_f64()? * 1e6 / d["clk_tck"].as_f64()?;
                Some(us / d["applied"].as_f64().filter(|a| *a > 0.0)?)
            };
            let done_eps: Vec<f64> = done.iter().filter_map(rate).collect();
            let done_cpu: Vec<f64> = done.iter().filter_map(cost).collect();
            fan_done.push((n, done_eps, done_cpu));
            t.row([
                &format!(
                    "`hot`, every event forwarded to {n} destination{}: events/s · CPU µs per event · rows written per applied (ratios: events/s, CPU, to no forwarding)",
                    if n == 1 { "" } else { "s" }
                ),
                "workerd direct, each destination bench-origin (200 at once, loopback)",
                &format!(
                    "{} · {} · {}",
                    median(&eps).map_or(NA.into(), num),
                    median(&cpu).map_or(NA.into(), num),
                    applied.map_or(NA.into(), |a| format!("{a:.2}"))
                ),
                NA,
                NA,
                &times(paired(&eps, &eps0)),
                &times(paired(&cpu, &cpu0)),
            ]);
        }
        // The same rounds to the moment the origin had every message their applied events
        // owe it: the forwarding runs mostly after the load, so this is what it costs.
        let (eps0, cpu0) = match fan_done.first() {
            Some((0, eps, cpu)) => (eps.clone(), cpu.clone()),
            _ => (Vec::new(), Vec::new()),
        };
        for (n, eps, cpu) in &fan_done {
            t.row([
                &format!(
                    "`hot` with {n} destination{}, to every message delivered: applied events/s · CPU µs per applied event (ratios: to no forwarding)",
                    if *n == 1 { "" } else { "s" }
                ),
                "workerd direct, from the round's start until bench-origin took them all; CPU from /proc",
                &format!(
                    "{} · {}",
                    median(eps).map_or(NA.into(), num),
                    median(cpu).map_or(NA.into(), num)
                ),
                NA,
                NA,
                &times(paired(eps, &eps0)),
                &times(paired(cpu, &cpu0)),
            ]);
        }
    }
    // Per object too: unlike per event, it does not move with how many events each of a
    // run's new entities got, so runs at different speeds compare.
    let per_object = |name: &str| -> Option<f64> {
        let storage = read(&raw.join(format!("storage-{name}.json")))?;
        let files = storage["files"].as_f64().filter(|n| *n > 0.0)?;
        Some(storage["live_bytes"].as_f64()? / files)
    };
    let (kept, pruned, peer, bodies) = (
        per_object("hookonce-unique"),
        per_object("pruned-unique"),
        per_object("baseline-unique"),
        per_object("baseline-bodies-unique"),
    );
    t.row([
        "`unique` bytes on disk per entity object: body kept / body pruned (ratios: pruned to the ids-only peer, kept to the body-keeping peer)",
        "workerd direct, live SQLite pages of the run's objects / objects; pruned: body_retention_secs = 1",
        &format!("{} / {}", bytes(kept), bytes(pruned)),
        &format!("{} (keeps no body)", bytes(peer)),
        &bytes(bodies),
        &ratio(pruned, peer),
        &ratio(kept, bodies),
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
        &ms(&startup[2]),
        &ratio(startup[0], startup[1]),
        &ratio(startup[0], startup[2]),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(eps: f64, p99: f64, applied: u64, errors: u64) -> Value {
        json!({
            "events_per_sec": eps,
            "latency_ms": { "p50": p99 / 4.0, "p99": p99, "p999": p99 * 2.0 },
            "errors": errors,
            "error_samples": if errors > 0 { json!(["timeout"]) } else { json!([]) },
            "outcomes": { "applied": applied },
            "rows_written": { "applied": { "mean": 3.0, "answers": applied } },
        })
    }

    #[test]
    fn the_median_of_an_odd_count_is_the_middle_and_of_an_even_count_the_mean_of_two() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn a_ratio_is_the_median_of_the_rounds_ratios_not_the_ratio_of_the_medians() {
        // Round 2 ran while the machine was slow for both: its pair still says 1.0.
        let a = [900.0, 500.0, 1100.0];
        let b = [1000.0, 500.0, 1000.0];
        assert_eq!(paired(&a, &b), Some(1.0));
        assert_eq!(median(&a).zip(median(&b)).map(|(a, b)| a / b), Some(0.9));
    }

    #[test]
    fn merged_rounds_give_the_median_rates_and_every_rounds_counts() {
        let r = Rounds(vec![
            run(1000.0, 30.0, 100, 0),
            run(1200.0, 20.0, 120, 1),
            run(1100.0, 40.0, 110, 0),
        ]);
        let m = r.merged();
        assert_eq!(m["events_per_sec"], json!(1100.0));
        assert_eq!(m["latency_ms"]["p99"], json!(30.0));
        assert_eq!(m["errors"], json!(1));
        assert_eq!(m["error_samples"], json!(["timeout"]));
        assert_eq!(m["outcomes"]["applied"], json!(330));
        assert_eq!(m["rows_written"]["applied"]["answers"], json!(330.0));
        assert_eq!(m["rows_written"]["applied"]["mean"], json!(3.0));
    }

    #[test]
    fn cpu_per_event_comes_from_the_rounds_that_measured_it() {
        let mut measured = run(1000.0, 30.0, 100, 0);
        measured["server_cpu_us_per_event"] = json!(640.0);
        let mut unmeasured = run(1000.0, 30.0, 100, 0);
        unmeasured["server_cpu_us_per_event"] = Value::Null;
        let r = Rounds(vec![measured, unmeasured, run(900.0, 30.0, 90, 0)]);
        assert_eq!(r.cpu_per_event(), [640.0]);
    }
}

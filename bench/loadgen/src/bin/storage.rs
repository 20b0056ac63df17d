//! Measures what Durable Objects keep on disk, for `bench/run.sh`'s storage rows.
//!
//! ```text
//! bench-storage [--wait-pruned SECS] FILE...
//! ```
//! Prints one JSON object for the SQLite files given (one per object): `live_bytes`, the
//! pages in use, `(page_count − freelist_count) × page_size` (what workerd's
//! `sql.databaseSize` reports; a file keeps freed pages for reuse, `file_bytes` counts
//! them too), and `bodies`, the rows left in hookonce's `raw_bodies` (null for the
//! baseline, which keeps none). With `--wait-pruned`, first waits up to SECS for every
//! file's `raw_bodies` to be empty (the alarms have pruned them), and exits 1 if not.
//! Reads through the WAL, so a running workerd's last writes count.

use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};
use serde_json::json;

struct Measured {
    live_bytes: u64,
    file_bytes: u64,
    bodies: Option<u64>,
}

fn measure(path: &str) -> rusqlite::Result<Measured> {
    let c = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let pragma = |name: &str| -> rusqlite::Result<u64> {
        c.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
    };
    let live = (pragma("page_count")? - pragma("freelist_count")?) * pragma("page_size")?;
    let has_bodies: bool = c.query_row(
        "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'raw_bodies'",
        [],
        |r| r.get(0),
    )?;
    let bodies = match has_bodies {
        true => Some(c.query_row("SELECT COUNT(*) FROM raw_bodies", [], |r| r.get(0))?),
        false => None,
    };
    let file_bytes = ["", "-wal"]
        .iter()
        .filter_map(|ext| std::fs::metadata(format!("{path}{ext}")).ok())
        .map(|m| m.len())
        .sum();
    Ok(Measured {
        live_bytes: live,
        file_bytes,
        bodies,
    })
}

fn measure_all(files: &[String]) -> Result<Vec<Measured>, String> {
    files
        .iter()
        .map(|f| measure(f).map_err(|e| format!("{f}: {e}")))
        .collect()
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let wait = match args.first().map(String::as_str) {
        Some("--wait-pruned") if args.len() >= 2 => {
            let secs: u64 = args[1].parse().unwrap_or_else(|_| usage());
            args.drain(..2);
            Some(Duration::from_secs(secs))
        }
        Some(a) if a.starts_with("--") => usage(),
        _ => None,
    };
    let deadline = Instant::now() + wait.unwrap_or_default();
    let (all, waited) = loop {
        let all = measure_all(&args).unwrap_or_else(|e| {
            eprintln!("bench-storage: {e}");
            std::process::exit(1);
        });
        let left: u64 = all.iter().filter_map(|m| m.bodies).sum();
        if wait.is_none() || left == 0 {
            break (all, true);
        }
        if Instant::now() >= deadline {
            eprintln!("bench-storage: {left} bodies still kept after {wait:?}");
            break (all, false);
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let sum = |f: fn(&Measured) -> u64| all.iter().map(f).sum::<u64>();
    let bodies: Vec<u64> = all.iter().filter_map(|m| m.bodies).collect();
    println!(
        "{}",
        json!({
            "files": all.len(),
            "live_bytes": sum(|m| m.live_bytes),
            "file_bytes": sum(|m| m.file_bytes),
            "bodies": (!bodies.is_empty()).then(|| bodies.iter().sum::<u64>()),
        })
    );
    if !waited {
        std::process::exit(1);
    }
}

fn usage() -> ! {
    eprintln!("usage: bench-storage [--wait-pruned SECS] FILE...");
    std::process::exit(2);
}

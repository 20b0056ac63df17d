//! `make fuzz`: every target (or `--target NAME`) for `--cases N` inputs (default
//! 1,000,000) from `--seed S`. A panic is saved to `fuzz/crashes/<target>-<n>` and the run
//! fails; add the file to `fuzz/corpus/<target>/` and a named test in `core/tests/` once
//! it is understood.

use std::time::Instant;

use hookonce_fuzz::targets::TARGETS;
use hookonce_fuzz::{campaign, corpus};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let cases: u64 = arg("--cases").map_or(1_000_000, |v| v.parse().expect("--cases N"));
    let seed: u64 = arg("--seed").map_or(15, |v| v.parse().expect("--seed S"));
    let only = arg("--target");
    // Panics are findings, reported below; the default hook would print each one.
    std::panic::set_hook(Box::new(|_| {}));
    let crashes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crashes");
    let mut failed = false;
    println!(
        "| target | cases | seconds | cases/s | panics |\n| --- | ---: | ---: | ---: | ---: |"
    );
    for t in TARGETS.iter().filter(|t| only.is_none_or(|o| o == t.name)) {
        let start = Instant::now();
        let found = campaign(t, &corpus(t.name), cases, seed);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "| {} | {} | {secs:.1} | {:.0} | {} |",
            t.name,
            found.cases,
            found.cases as f64 / secs,
            found.panics.len()
        );
        for (i, (input, msg)) in found.panics.iter().enumerate() {
            failed = true;
            std::fs::create_dir_all(&crashes).expect("create fuzz/crashes");
            let path = crashes.join(format!("{}-{i}", t.name));
            std::fs::write(&path, input).expect("save the crash");
            eprintln!(
                "{}: {msg}\n  input {:?} saved to {}",
                t.name,
                String::from_utf8_lossy(input),
                path.display()
            );
        }
    }
    if failed {
        std::process::exit(1);
    }
}

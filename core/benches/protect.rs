//! What a destination's shared guard costs per attempt, native: one `ask` and one `report`
//! (`protect/ask+report`), with the line empty and with 1,000 entities waiting in it (every
//! ask then scans the line). Entities are named by `String`s, as the adapter names them.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use hookonce_core::protect::{Ask, Protect, Settings};
use hookonce_core::retry::AttemptResult;
use hookonce_core::time::UnixSeconds;

const NOW: UnixSeconds = UnixSeconds(1_791_270_390);

fn protect(c: &mut Criterion) {
    let ok = AttemptResult::Status {
        code: 200,
        retry_after: None,
    };
    let mut group = c.benchmark_group("protect");
    for waiting in [0usize, 1_000] {
        let settings = Settings::builder()
            .max_in_flight(1)
            .build()
            .expect("bench settings are valid");
        let mut p: Protect<String> = Protect::new(settings, NOW);
        // One entity holds the only slot while the others take their places in line.
        let Ask::Grant(holder) = p.ask(&"holder".to_owned(), NOW) else {
            panic!("the first ask is granted");
        };
        for i in 0..waiting {
            let _ = p.ask(&format!("ch_waiting_{i}"), NOW);
        }
        let hot = "ch_hot".to_owned();
        let line = p.status(NOW).waiting;
        assert_eq!(line as usize, waiting);
        // With a line, the hot entity is refused its turn; without, granted and reported.
        let _ = p.report(&"holder".to_owned(), holder.lease, &ok, NOW);
        group.bench_function(format!("ask+report/{waiting}_waiting"), |b| {
            b.iter(|| {
                if let Ask::Grant(g) = p.ask(black_box(&hot), NOW) {
                    black_box(p.report(&hot, g.lease, &ok, NOW));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, protect);
criterion_main!(benches);

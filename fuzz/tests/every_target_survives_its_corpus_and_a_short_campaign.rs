//! `make test`'s share of the fuzzing: each target's seed corpus and regression inputs,
//! then 20,000 fresh inputs (`make fuzz` runs 1,000,000 per target).

use hookonce_fuzz::targets::TARGETS;
use hookonce_fuzz::{campaign, corpus};

#[test]
fn every_target_survives_its_corpus_and_a_short_campaign() {
    let mut failures = Vec::new();
    for t in TARGETS {
        let found = campaign(t, &corpus(t.name), 20_000, 7);
        assert!(found.cases >= 20_000);
        for (input, msg) in found.panics {
            failures.push(format!(
                "{}: {msg}: {:?}",
                t.name,
                String::from_utf8_lossy(&input)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! `hookonce requeue --source S --destination D --since 2h --dry-run` pages through the
//! source's entities, printing each page's progress on stderr as it comes, then how many
//! dead letters would go back, per destination; nothing is sent. Without `--dry-run` the
//! same command puts them back, and they are delivered.

mod common;

use std::time::Duration;

use common::{assert_output, hookonce};
use hookonce_e2e::events::ADMIN_TOKEN;
use hookonce_e2e::origin;

#[test]
fn the_dry_run_prints_progress_and_counts_then_the_real_run_requeues() {
    let (w, billing, _audit) = origin::dead_at_billing_and_audit(|w| {
        origin::deliver_applied(
            w,
            &[
                ("evt_clirq_1", "ent_clirq_a"),
                ("evt_clirq_2", "ent_clirq_b"),
                ("evt_clirq_3", "ent_clirq_c"),
            ],
        )
    });
    let before = billing.requests().len();

    let args = |dry: bool| {
        let mut a = vec![
            "requeue",
            w.base.as_str(),
            "--source",
            "acme",
            "--token",
            ADMIN_TOKEN,
            "--destination",
            "billing",
            "--since",
            "2h",
            "--page",
            "2",
        ];
        if dry {
            a.push("--dry-run");
        }
        a
    };
    let out = hookonce(&args(true), b"");
    assert_output(
        &out,
        0,
        &out.stderr,
        "page 1: 2 entities (2 so far), 2 dead letters would go back\n\
         page 2: 1 entities (3 so far), 1 dead letters would go back\n",
    );
    assert_output(
        &out,
        0,
        &out.stdout,
        "3 dead letters would go back (billing 3) across 3 entities; dry run, nothing changed\n",
    );
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(billing.requests().len(), before, "a dry run sends nothing");

    let out = hookonce(&args(false), b"");
    assert_output(
        &out,
        0,
        &out.stderr,
        "page 2: 1 entities (3 so far), 1 dead letters requeued\n",
    );
    assert_output(
        &out,
        0,
        &out.stdout,
        "3 dead letters requeued (billing 3) across 3 entities\n",
    );
    billing.wait_requests(before + 3, Duration::from_secs(15));
    let dead = origin::wait_dead(&w, |dead| dead.len() == 3);
    assert!(
        dead.iter().all(|d| d["destination"] == "audit"),
        "{dead:#?}"
    );
}

//! `hookonce requeue`, `redeliver` and `backfill` call the admin API with `--destination`
//! and `--since` (an age or unix seconds) and print what it answered: as a line, or as its
//! JSON with `--json`; a backfill without `--entity` prints each page's progress, then the
//! sums; a problem is an error (exit 2) naming it.

mod common;

use std::time::Duration;

use common::{assert_output, hookonce, json_of};
use hookonce_e2e::events::{wait_feed, ADMIN_TOKEN};
use hookonce_e2e::origin::{deliver, worker_to, Origin};
use serde_json::json;

#[test]
fn each_prints_the_counts_the_api_answered() {
    let (billing, audit) = (Origin::start(), Origin::start());
    let to = |o: &Origin| json!({ "url": o.url("/hooks") });
    let w = worker_to(json!({ "billing": to(&billing), "audit": to(&audit) }));
    let (r, _) = deliver(&w, "evt_cli_1", "ent_cli");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    billing.wait_requests(1, Duration::from_secs(10));
    let admin = ["--source", "acme", "--token", ADMIN_TOKEN];
    let run = |args: &[&str]| hookonce(&[args, &admin[..]].concat(), b"");

    let out = run(&[
        "redeliver",
        &w.base,
        "--event",
        "evt_cli_1",
        "--entity",
        "ent_cli",
        "--destination",
        "billing",
        "--json",
    ]);
    assert_eq!(
        json_of(&out, 0),
        json!({ "enqueued": 1, "destinations": ["billing"] })
    );
    billing.wait_requests(2, Duration::from_secs(10));

    let backfill = |destination: &str, since: &str| {
        let to = [
            "--destination",
            destination,
            "--entity",
            "ent_cli",
            "--since",
            since,
        ];
        run(&[&["backfill", w.base.as_str()][..], &to[..]].concat())
    };
    let out = backfill("audit", "2h");
    assert_output(
        &out,
        0,
        &out.stdout,
        "ent_cli: 0 events enqueued for audit since ",
    );
    assert_output(
        &out,
        0,
        &out.stdout,
        "skipped 0 whose bodies were pruned, 1 it already has",
    );

    let out = run(&[
        "requeue",
        &w.base,
        "--entity",
        "ent_cli",
        "--destination",
        "audit",
    ]);
    assert_output(&out, 0, &out.stdout, "0 dead letters requeued\n");

    // Without --entity: every entity the source saw since then, page by page; the source
    // knows its entities from the feed's notes, which follow the answer.
    wait_feed(&w, "acme", "limit=1", |rows| !rows.is_empty());
    let whole = ["--destination", "audit", "--since", "2h"];
    let out = run(&[&["backfill", w.base.as_str()][..], &whole[..]].concat());
    assert_output(
        &out,
        0,
        &out.stderr,
        "page 1: 1 entities (1 so far), 0 events enqueued\n",
    );
    assert_output(
        &out,
        0,
        &out.stdout,
        "1 entities: 0 events enqueued for audit since ",
    );
    assert_output(&out, 0, &out.stdout, "1 it already has");

    let out = backfill("nope", "0");
    assert_output(&out, 2, &out.stderr, "HTTP 404 unknown-destination");
    let out = backfill("audit", "2x");
    assert_output(&out, 2, &out.stderr, "neither unix seconds nor an age");
}

//! What fan-out costs in rows written (`rows_written`, workerd's own count): an applied
//! snapshot writes its body, record and snapshot (3), plus one outbox row and its
//! `(status, seq)` index entry (2) for each destination that takes its type; a copy
//! writes none.

use hookonce_e2e::origin::{self, Origin};
use hookonce_e2e::unix_now;
use serde_json::json;

#[test]
fn two_destinations_of_three_take_a_snapshot_and_add_4_rows_and_none_to_a_copy() {
    let o = Origin::start();
    let w = origin::worker_to(json!({
        "billing": { "url": o.url("/billing") },
        "audit": { "url": o.url("/audit"), "types": ["item.*"] },
        "payments": { "url": o.url("/payments"), "types": ["payment.*"] },
    }));
    for i in 0..3 {
        let id = format!("evt_rows_{i}");
        let body = origin::event_body(&id, "item.snapshot", "ent_rows", unix_now() + i);
        let r = origin::deliver_body(&w, &id, &body);
        assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
        assert_eq!(r.json()["rows_written"], 3 + 2 * 2, "{r}");
        let copy = origin::deliver_body(&w, &id, &body);
        assert_eq!(copy.json()["rows_written"], 0, "{copy}");
    }
}

//! The feed object's statements (`edge/src/store/feed/statements.rs`, run natively here on
//! the SQLite that workerd embeds, bound as `store::feed` binds them): rows appended as one
//! JSON array come back field for field, newest first and filtered; a prune deletes one
//! range of old rows; counters add up; outbox reports sum; dead letters keep the newest;
//! per-minute tallies add up and the minutes before the hour are forgotten; the entities
//! that may hold dead letters, and those seen since a time, page in key order.

#[path = "../../edge/src/store/feed/statements.rs"]
#[allow(dead_code, unreachable_pub)]
mod statements;

use rusqlite::types::Value;
use rusqlite::{params, Connection};

fn feed() -> Connection {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(statements::SCHEMA).unwrap();
    c
}

type Row = (
    i64,
    i64,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    u32,
    Option<u16>,
    Option<&'static str>,
);

/// `FeedStore::append`: the rows as one JSON array of arrays. The bundled SQLite (3.50)
/// predates `jsonb_each` (3.51, in workerd's); `json_each` yields the same rows.
fn append(c: &Connection, rows: &[Row]) {
    let json = serde_json::to_string(rows).unwrap();
    let statement = statements::APPEND.replace("jsonb_each", "json_each");
    assert_ne!(
        statement,
        statements::APPEND,
        "APPEND reads its rows with jsonb_each"
    );
    c.execute(&statement, params![json]).unwrap();
}

fn delivery(seq: i64, at: i64, outcome: &'static str, kind: &'static str) -> Row {
    (
        seq,
        at,
        outcome,
        Some("evt"),
        Some(kind),
        Some("ent"),
        1,
        None,
        None,
    )
}

/// `FeedStore::page`: seqs of the page, newest first.
fn page(
    c: &Connection,
    before: Option<i64>,
    outcome: Option<&str>,
    kind: Option<&str>,
    limit: i64,
) -> Vec<i64> {
    let mut s = c.prepare(statements::PAGE).unwrap();
    s.query_map(params![before, outcome, kind, limit], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn seqs(c: &Connection) -> Vec<i64> {
    page(c, None, None, None, 1000).into_iter().rev().collect()
}

#[test]
fn rows_appended_as_one_json_array_read_back_field_for_field() {
    let c = feed();
    let odd: Row = (
        1,
        100,
        "applied",
        Some("ev\"t'1 é\u{1F600}"),
        Some("a.b"),
        Some("e/1?x"),
        3,
        None,
        None,
    );
    let rejected: Row = (
        2,
        101,
        "rejected",
        None,
        None,
        None,
        0,
        Some(401),
        Some("bad sig"),
    );
    append(&c, &[odd, rejected]);
    let all: Vec<Vec<Value>> = c
        .prepare(statements::PAGE)
        .unwrap()
        .query_map(params![None::<i64>, None::<&str>, None::<&str>, 10], |r| {
            (0..9).map(|i| r.get::<_, Value>(i)).collect()
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    use Value::{Integer as I, Null as N, Text as T};
    assert_eq!(
        all,
        [
            vec![
                I(2),
                I(101),
                T("rejected".into()),
                N,
                N,
                N,
                I(0),
                I(401),
                T("bad sig".into())
            ],
            vec![
                I(1),
                I(100),
                T("applied".into()),
                T("ev\"t'1 é\u{1F600}".into()),
                T("a.b".into()),
                T("e/1?x".into()),
                I(3),
                N,
                N
            ],
        ]
    );
}

#[test]
fn a_page_is_newest_first_and_narrowed_by_cursor_outcome_and_type() {
    let c = feed();
    append(
        &c,
        &[
            delivery(1, 10, "applied", "a"),
            delivery(2, 11, "duplicate", "a"),
            delivery(3, 12, "applied", "b"),
            delivery(4, 13, "stale", "a"),
        ],
    );
    assert_eq!(page(&c, None, None, None, 3), [4, 3, 2]);
    assert_eq!(page(&c, Some(3), None, None, 10), [2, 1]);
    assert_eq!(page(&c, None, Some("applied"), None, 10), [3, 1]);
    assert_eq!(page(&c, None, None, Some("a"), 10), [4, 2, 1]);
    assert_eq!(page(&c, Some(4), Some("applied"), Some("a"), 10), [1]);
}

#[test]
fn a_prune_deletes_through_its_seq_then_the_old_rows_up_to_the_first_young_one() {
    let c = feed();
    let rows: Vec<Row> = (1..=10)
        .map(|i| delivery(i, 100 + i, "applied", "t"))
        .collect();
    append(&c, &rows);
    // `keep` only: `before` is i64::MIN, as the store binds `None`.
    c.execute(statements::PRUNE, params![3, i64::MIN]).unwrap();
    assert_eq!(seqs(&c), (4..=10).collect::<Vec<_>>());
    // Age: rows received before 107 go, from the oldest left.
    c.execute(statements::PRUNE, params![0, 107]).unwrap();
    assert_eq!(seqs(&c), (7..=10).collect::<Vec<_>>());
    // Every row too old: all go.
    c.execute(statements::PRUNE, params![0, 1_000]).unwrap();
    assert!(seqs(&c).is_empty());
}

#[test]
fn counters_add_up_outbox_reports_sum_and_dead_letters_keep_the_newest() {
    let c = feed();
    for (family, label, by) in [
        ("deliveries", "applied", 2),
        ("deliveries", "applied", 3),
        ("rejected", "signature", 1),
    ] {
        c.execute(statements::ADD_COUNT, params![family, label, by])
            .unwrap();
    }
    let counters: Vec<(String, String, i64)> = c
        .prepare(statements::COUNTERS)
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        counters,
        [
            ("deliveries".into(), "applied".into(), 5),
            ("rejected".into(), "signature".into(), 1)
        ]
    );

    let sums = |c: &Connection| -> (i64, Option<i64>, i64) {
        c.query_row(statements::OUTBOX_SUMS, [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap()
    };
    let per_destination = |c: &Connection| -> Vec<(String, i64, Option<i64>, i64)> {
        c.prepare(statements::DESTINATION_SUMS)
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(sums(&c), (0, None, 0));
    assert_eq!(per_destination(&c), []);
    for (object, to, pending, oldest, dead) in [
        ("s/e/a", "default", 2, Some(50), 0),
        ("s/e/a", "billing", 1, Some(45), 0),
        ("s/e/b", "default", 1, Some(40), 1),
        ("s/e/c", "billing", 0, None::<i64>, 4),
    ] {
        c.execute(
            statements::KEEP_OUTBOX,
            params![object, to, pending, oldest, dead],
        )
        .unwrap();
    }
    assert_eq!(sums(&c), (4, Some(40), 5));
    assert_eq!(
        per_destination(&c),
        [
            ("billing".into(), 1, Some(45), 4),
            ("default".into(), 3, Some(40), 1)
        ]
    );
    // A report replaces the object's last one, every destination's; a forgotten object
    // counts no more.
    c.execute(statements::FORGET_OUTBOX, params!["s/e/a"])
        .unwrap();
    c.execute(
        statements::KEEP_OUTBOX,
        params!["s/e/a", "default", 1, 60, 0],
    )
    .unwrap();
    c.execute(statements::FORGET_OUTBOX, params!["s/e/b"])
        .unwrap();
    assert_eq!(sums(&c), (1, Some(60), 4));
    assert_eq!(
        per_destination(&c),
        [
            ("billing".into(), 0, None, 4),
            ("default".into(), 1, Some(60), 0)
        ]
    );

    // One event dead at two destinations is two dead letters.
    for (entity, id, to, at) in [
        ("a", "1", "default", 10),
        ("a", "2", "default", 30),
        ("a", "2", "billing", 35),
        ("", "3", "default", 20),
        ("b", "4", "default", 40),
    ] {
        c.execute(
            statements::DEAD,
            params![entity, id, to, 5, "status 500", at],
        )
        .unwrap();
    }
    c.execute(statements::PRUNE_DEAD, params![4]).unwrap();
    let dead: Vec<String> = c
        .prepare(statements::DEAD_LETTERS)
        .unwrap()
        .query_map([], |r| {
            Ok(format!(
                "{}@{}",
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(dead, ["4@default", "2@billing", "2@default", "3@default"]);
    // A requeue of one destination forgets only its letters; of some events, only theirs;
    // of every one, all of the entity's.
    let count = || -> i64 {
        c.query_row("SELECT count(*) FROM dead_letters", [], |r| r.get(0))
            .unwrap()
    };
    c.execute(
        statements::REQUEUED,
        params!["a", "billing", None::<String>],
    )
    .unwrap();
    assert_eq!(count(), 3);
    c.execute(statements::REQUEUED, params!["a", "default", r#"["1"]"#])
        .unwrap();
    assert_eq!(count(), 3, "evt 1 of a was pruned from the list already");
    c.execute(
        statements::REQUEUED,
        params!["a", None::<String>, r#"["2","9"]"#],
    )
    .unwrap();
    assert_eq!(count(), 2);
    c.execute(
        statements::REQUEUED,
        params!["b", None::<String>, None::<String>],
    )
    .unwrap();
    assert_eq!(count(), 1);
}

/// `FeedStore::candidates` of the dead: a page of entity keys.
fn dead_candidates(
    c: &Connection,
    destination: Option<&str>,
    since: Option<i64>,
    after: Option<&str>,
    limit: i64,
) -> Vec<String> {
    c.prepare(statements::DEAD_CANDIDATES)
        .unwrap()
        .query_map(
            params![destination, since, None::<i64>, after, limit, "s/e/"],
            |r| r.get(0),
        )
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn dead_candidates_page_in_key_order_through_the_list_and_the_outbox_reports() {
    let c = feed();
    // In the list only (its report is gone), in both, in a report only (the list pruned).
    for (entity, id, to, at) in [
        ("a", "1", "billing", 10),
        ("c", "2", "audit", 30),
        ("", "3", "billing", 20),
    ] {
        c.execute(statements::DEAD, params![entity, id, to, 5, "503", at])
            .unwrap();
    }
    for (object, to, pending, dead) in [
        ("s/e/c", "audit", 0, 1),
        ("s/e/d", "billing", 0, 2),
        ("s/e/e", "billing", 3, 0),
        ("s/b/0", "billing", 0, 1),
        ("t/e/f", "billing", 0, 1),
    ] {
        c.execute(
            statements::KEEP_OUTBOX,
            params![object, to, pending, None::<i64>, dead],
        )
        .unwrap();
    }
    let all = dead_candidates(&c, None, None, None, 10);
    assert_eq!(
        all,
        ["a", "c", "d"],
        "no bucket, no pending-only, no other source"
    );
    assert_eq!(
        dead_candidates(&c, Some("billing"), None, None, 10),
        ["a", "d"]
    );
    assert_eq!(dead_candidates(&c, None, None, None, 2), ["a", "c"]);
    assert_eq!(dead_candidates(&c, None, None, Some("c"), 2), ["d"]);
    // The list's letters that died before `since` are no candidates; reports have no time.
    assert_eq!(dead_candidates(&c, None, Some(15), None, 10), ["c", "d"]);
}

#[test]
fn the_registry_keeps_each_entitys_latest_time_and_pages_those_seen_since() {
    let c = feed();
    let seen = |pairs: &str| c.execute(statements::SEEN, params![pairs]).unwrap();
    seen(r#"[["a", 10], ["b", 20]]"#);
    seen(r#"[["a", 30], ["b", 15], ["c", 5]]"#);
    let page = |since: i64, after: Option<&str>, limit: i64| -> Vec<String> {
        c.prepare(statements::RECORDED_CANDIDATES)
            .unwrap()
            .query_map(params![since, after, limit], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(page(0, None, 10), ["a", "b", "c"]);
    assert_eq!(page(16, None, 10), ["a", "b"], "b keeps its later time");
    assert_eq!(page(0, Some("a"), 1), ["b"]);
    c.execute(statements::FORGET_ENTITIES, params![20]).unwrap();
    assert_eq!(page(0, None, 10), ["a", "b"]);
}

#[test]
fn tallies_add_up_per_minute_and_outcome_and_minutes_before_the_hour_are_forgotten() {
    let c = feed();
    for (minute, outcome, by) in [
        (10, "applied", 2),
        (10, "applied", 3),
        (10, "stale", 1),
        (11, "applied", 1),
        (70, "rejected", 4),
    ] {
        c.execute(statements::ADD_TALLY, params![minute, outcome, by])
            .unwrap();
    }
    let tallies = |c: &Connection, from: i64| -> Vec<(i64, String, i64)> {
        c.prepare(statements::TALLIES)
            .unwrap()
            .query_map(params![from], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(
        tallies(&c, 11),
        [(11, "applied".into(), 1), (70, "rejected".into(), 4)]
    );
    c.execute(statements::FORGET_MINUTES, params![11]).unwrap();
    assert_eq!(tallies(&c, i64::MIN).len(), 2);
    assert_eq!(tallies(&c, 0)[0], (11, "applied".into(), 1));
}

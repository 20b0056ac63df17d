//! `hookonce stats` reads `GET /metrics` and shows, for the source, what it was sent:
//! deliveries by the outcome each send reported, the deliveries refused for their signature,
//! forward attempts by what the origin answered, the row still pending and no dead letter;
//! `--watch` shows the table again and again.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::{hookonce, send_fixture, show, Running};
use hookonce_e2e::events::ADMIN_TOKEN;
use hookonce_e2e::origin::{Origin, Reply};
use hookonce_e2e::{wrangler_sources, Worker};

/// `hookonce stats` of `w`'s cockpit source, then `extra`.
fn stats<'a>(w: &'a Worker, extra: &[&'a str]) -> Vec<&'a str> {
    let args = [
        "stats",
        &w.base,
        "--source",
        "cockpit",
        "--token",
        ADMIN_TOKEN,
    ];
    [&args[..], extra].concat()
}

/// The stdout lines of `hookonce stats`, each with its runs of spaces made one.
fn table(w: &Worker) -> (Vec<String>, String) {
    let out = hookonce(&stats(w, &[]), b"");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    (lines, text)
}

#[test]
fn stats_shows_the_deliveries_rejections_attempts_and_rows_the_worker_saw() {
    let o = Origin::start();
    // The application fails one event (its retry is due long after the test) and takes the rest.
    o.set_policy(|key, _| match key {
        Some("evt_stats_failing") => Reply::Status(500),
        _ => Reply::OK,
    });
    let mut sources = wrangler_sources();
    sources["cockpit"]["forward"] = serde_json::json!({
        "url": o.url("/hooks"), "schedule_secs": [600], "timeout_secs": 5,
    });
    let w = Worker::builder().var("HOOKONCE_SOURCES", sources).start();

    let mut outcomes: BTreeMap<String, u64> = BTreeMap::new();
    let mut count = |report: serde_json::Value| {
        for d in report["deliveries"].as_array().unwrap() {
            *outcomes
                .entry(d["outcome"].as_str().unwrap().into())
                .or_default() += 1;
        }
    };
    count(send_fixture(
        &w,
        "cardholder.updated",
        "ch_stats_1",
        &["--repeat", "3", "--older"],
    ));
    count(send_fixture(
        &w,
        "payment.captured",
        "acct_stats",
        &["--repeat", "2"],
    ));
    count(send_fixture(
        &w,
        "cardholder.created",
        "ch_stats_2",
        &["--id", "evt_stats_failing"],
    ));
    // The newer snapshot and its older version sent 3 times each, one payment twice, one event.
    assert_eq!(
        outcomes,
        BTreeMap::from([
            ("applied".into(), 3),
            ("duplicate".into(), 5),
            ("stale".into(), 1)
        ])
    );
    let forged = "whsec_CVHbIk2dr2WGJQt+GtI9aPv40fJj6c7VgJDfaj3hJc4=";
    for _ in 0..2 {
        let args = ["send", &w.base, "--source", "cockpit", "--secret", forged];
        let out = hookonce(
            &[&args[..], &["--fixture", "cardholder.created"]].concat(),
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    }
    let answered = |status: u16| {
        o.requests()
            .iter()
            .filter(|r| r.reply == Reply::Status(status))
            .count()
    };
    o.wait_requests(3, Duration::from_secs(20));
    assert_eq!((answered(200), answered(500)), (2, 1));

    let mut want: Vec<String> = outcomes
        .iter()
        .map(|(outcome, n)| format!("deliveries {outcome} {n} best-effort"))
        .collect();
    want.extend(
        [
            "rejected deliveries signature 2 best-effort",
            "forward attempts 2xx 2 best-effort",
            "forward attempts 5xx 1 best-effort",
            "outbox pending rows 1 exact",
            "dead letters 0 exact",
        ]
        .map(str::to_owned),
    );
    // The feed adds notes up as they reach it, and the entities report their rows after
    // each alarm pass: wait until the table shows them all.
    let deadline = Instant::now() + Duration::from_secs(30);
    let (lines, text) = loop {
        let (lines, text) = table(&w);
        if want.iter().all(|l| lines.contains(l)) || Instant::now() > deadline {
            break (lines, text);
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    for line in &want {
        assert!(lines.contains(line), "no {line:?} in:\n{text}");
    }
    assert!(
        lines[0].starts_with("hookonce stats: source cockpit at "),
        "{text}"
    );
    assert!(
        lines.contains(&"FIGURE BY VALUE COUNTED".to_owned()),
        "{text}"
    );
    let age = lines
        .iter()
        .find(|l| l.starts_with("outbox oldest pending age "))
        .unwrap_or_else(|| panic!("no pending age in:\n{text}"));
    assert!(age.ends_with("s exact"), "{age}");

    let watch = Running::start(&stats(&w, &["--watch", "1"]));
    let mut titles = 0;
    let began = Instant::now();
    watch.wait_stdout(Duration::from_secs(20), |line| {
        titles += usize::from(line.starts_with("\x1b[2J\x1b[Hhookonce stats: source cockpit"));
        (titles == 2).then_some(())
    });
    assert!(
        began.elapsed() >= Duration::from_millis(900),
        "the second table came after the --watch interval"
    );
}

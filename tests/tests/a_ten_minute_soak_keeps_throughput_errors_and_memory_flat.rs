//! `make soak`: ten minutes of mixed load on workerd run directly (state on disk): new
//! snapshots, stale and duplicate deliveries, ledger entries, reads, and publishes, with
//! every applied event forwarded to a local origin. Per minute: throughput and errors;
//! workerd's RSS at the start and the end. Throughput stays flat, errors stay at 0, memory
//! stays flat. Ignored in `make test` (it takes ten minutes); `HOOKONCE_SOAK_SECS` sets it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hookonce_e2e::origin::{self, Origin, Reply};
use hookonce_e2e::storm::Rng;
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{dev_var, publish, standard_webhooks_headers, unix_now};
use serde_json::json;

const ENTITIES: u64 = 1_000;
const CLIENTS: usize = 16;

/// One request of the mix; `Ok` when it got the answer it should.
fn one(rng: &mut Rng, agent: &ureq::Agent, base: &str, seq: u64, dest: &str) -> Result<(), String> {
    let secret = dev_var(origin::SECRET_BINDING);
    let entity = format!("ent_{}", rng.below(ENTITIES));
    let roll = rng.below(100);
    let (path, headers, body, want) = if roll < 85 {
        // 55% new snapshots, 10% stale ones (created long ago), 10% duplicates, 10% ledger.
        let (id, kind, created) = match roll {
            0..=54 => (
                format!("evt_{seq}"),
                "item.snapshot",
                1_790_000_000 + seq as i64,
            ),
            55..=64 => (format!("evt_stale_{seq}"), "item.snapshot", 1_000_000_000),
            65..=74 => (
                format!("evt_dup_{}", seq % 64),
                "item.noticed",
                1_790_000_000,
            ),
            _ => (format!("evt_led_{seq}"), "payment.captured", 1_790_000_000),
        };
        let body = origin::event_body(&id, kind, &entity, created);
        let h = standard_webhooks_headers(&secret, &id, unix_now(), &body);
        (format!("/webhooks/{}", origin::SOURCE), h, Some(body), 200)
    } else if roll < 95 {
        let auth = vec![(
            "authorization".into(),
            format!("Bearer {}", dev_var("HOOKONCE_ADMIN_TOKEN")),
        )];
        (
            format!("/entities/{}/{entity}", origin::SOURCE),
            auth,
            None,
            0,
        )
    } else {
        let body = publish::body(dest, "soak.tick", json!({ "seq": seq }));
        let h = vec![
            (
                "authorization".to_string(),
                format!("Bearer {}", publish::token()),
            ),
            (
                "idempotency-key".to_string(),
                publish::sf_string(&format!("soak-{seq}")),
            ),
            ("content-type".to_string(), "application/json".to_string()),
        ];
        ("/v1/messages".to_string(), h, Some(body), 202)
    };
    let method = if body.is_some() { "POST" } else { "GET" };
    let mut req = ureq::http::Request::builder()
        .method(method)
        .uri(format!("{base}{path}"));
    for (k, v) in &headers {
        req = req.header(k, v);
    }
    let resp = match body {
        Some(b) => agent.run(req.body(b).map_err(|e| e.to_string())?),
        None => agent.run(req.body(()).map_err(|e| e.to_string())?),
    }
    .map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    // A read of an entity not written yet is a 404; anything else must be as wanted.
    let ok = if want == 0 {
        status == 200 || status == 404
    } else {
        status == want
    };
    ok.then_some(()).ok_or(format!("{method} {path}: {status}"))
}

#[test]
#[ignore = "ten minutes: run with `make soak`"]
fn a_ten_minute_soak_keeps_throughput_errors_and_memory_flat() {
    let secs: u64 = std::env::var("HOOKONCE_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    let minutes = secs.div_ceil(60) as usize;
    let o = Origin::start();
    o.set_default(Reply::OK);
    let state = tempfile::Builder::new()
        .prefix("hookonce-soak-")
        .tempdir()
        .unwrap();
    let w = Workerd::builder()
        .sources(origin::sources(
            json!({ "url": o.url("/hooks"), "mode": "async",
            "schedule_secs": [1], "window_secs": 3600, "timeout_secs": 5 }),
        ))
        .start_in(state.path());
    let rss_start = w.rss_kib().unwrap_or(0);
    let ok: Vec<AtomicU64> = (0..minutes).map(|_| AtomicU64::new(0)).collect();
    let errors: Vec<AtomicU64> = (0..minutes).map(|_| AtomicU64::new(0)).collect();
    let first_error = std::sync::Mutex::new(None::<String>);
    let seq = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let mut rss = Vec::new();
    std::thread::scope(|s| {
        for c in 0..CLIENTS {
            let (ok, errors, seq, stop, first_error, base) =
                (&ok, &errors, &seq, &stop, &first_error, &w.base);
            let dest = o.url("/published");
            s.spawn(move || {
                let mut rng = Rng::new(c as u64 + 1);
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(Duration::from_secs(30)))
                    .build()
                    .into();
                while !stop.load(Ordering::Relaxed) {
                    let n = seq.fetch_add(1, Ordering::Relaxed);
                    let r = one(&mut rng, &agent, base, n, &dest);
                    let minute = ((start.elapsed().as_secs() / 60) as usize).min(minutes - 1);
                    match r {
                        Ok(()) => ok[minute].fetch_add(1, Ordering::Relaxed),
                        Err(e) => {
                            first_error.lock().unwrap().get_or_insert(e);
                            errors[minute].fetch_add(1, Ordering::Relaxed)
                        }
                    };
                }
            });
        }
        // The sampler: RSS once a minute; stop at the end.
        for m in 0..minutes {
            let end = start + Duration::from_secs(((m as u64 + 1) * 60).min(secs));
            std::thread::sleep(end.saturating_duration_since(Instant::now()));
            rss.push(w.rss_kib().unwrap_or(0));
        }
        stop.store(true, Ordering::Relaxed);
    });
    let per_minute: Vec<u64> = ok.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    let errs: Vec<u64> = errors.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    println!(
        "soak: {secs} s, {CLIENTS} clients, {ENTITIES} entities, workerd direct, state on disk"
    );
    println!("| minute | requests ok | req/s | errors | workerd RSS MiB |\n| ---: | ---: | ---: | ---: | ---: |");
    for m in 0..minutes {
        let span = (secs - 60 * m as u64).min(60) as f64;
        println!(
            "| {} | {} | {:.0} | {} | {} |",
            m + 1,
            per_minute[m],
            per_minute[m] as f64 / span,
            errs[m],
            rss[m] / 1024
        );
    }
    println!(
        "RSS: {} MiB at the start, {} MiB at the end",
        rss_start / 1024,
        rss[minutes - 1] / 1024
    );
    println!(
        "origin: {} requests forwarded or published",
        o.requests().len()
    );
    let total_errors: u64 = errs.iter().sum();
    assert_eq!(
        total_errors,
        0,
        "errors per minute {errs:?}; first: {:?}",
        first_error.lock().unwrap()
    );
    // Flat: every full minute after the first within 30% of the best one, and memory after
    // the warm-up minute growing by at most half.
    let full: Vec<u64> = per_minute[..(secs / 60) as usize].to_vec();
    if full.len() >= 3 {
        let best = *full[1..].iter().max().unwrap() as f64;
        for (m, &n) in full.iter().enumerate().skip(1) {
            assert!(
                n as f64 >= 0.7 * best,
                "minute {} served {n}, the best {best}: {full:?}",
                m + 1
            );
        }
        let warm = rss[0].max(1) as f64;
        assert!(
            (rss[minutes - 1] as f64) <= 1.5 * warm,
            "RSS grew from {} to {} KiB: {rss:?}",
            rss[0],
            rss[minutes - 1]
        );
    }
}

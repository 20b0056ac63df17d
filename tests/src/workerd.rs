//! The built worker on **workerd directly**, without `wrangler dev`: for load (the
//! wrangler proxy caps at ~350 req/s), for SIGKILL (wrangler would restart its child or
//! hide the kill), and for looking at the on-disk state.
//!
//! ```no_run
//! use hookonce_e2e::workerd::Workerd;
//!
//! let mut w = Workerd::builder().start(); // fresh state dir, free port
//! let r = w.get("/");
//! assert_eq!(r.status, 200);
//! w.kill9(); // SIGKILL: no shutdown, no flush
//! w.start_again(); // same port, same state
//! println!("rss {:?} KiB", w.rss_kib());
//! ```
//!
//! Outbound fetches may reach loopback only (`network.allow = ["local"]`): whatever a test
//! publishes or forwards never leaves the machine. workerd is started with
//! `PR_SET_PDEATHSIG = SIGKILL`, so it dies with the thread that started it, even if the
//! test process is killed: start and restart a `Workerd` from one thread.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{dev_vars, repo_root, wrangler_sources, Resp};

/// What a [`Workerd`] is configured with; start with [`Workerd::builder`].
#[derive(Debug, Clone)]
pub struct Builder {
    /// `HOOKONCE_SOURCES` (a JSON binding).
    sources: serde_json::Value,
    /// Text bindings: secrets and plain vars.
    texts: BTreeMap<String, String>,
    /// The static files bound as `ASSETS` (default: `edge/assets/`, as `wrangler.toml`).
    assets: Option<PathBuf>,
    /// Whether a second socket serves [`Workerd::hand_off`].
    handoff: bool,
}

impl Builder {
    /// Replace `HOOKONCE_SOURCES` (default: wrangler.toml's).
    pub fn sources(mut self, sources: serde_json::Value) -> Self {
        self.sources = sources;
        self
    }

    /// Set a text binding (default: every `.dev.vars.example` value).
    pub fn text(mut self, name: &str, value: &str) -> Self {
        self.texts.insert(name.into(), value.into());
        self
    }

    /// Leave out the `ASSETS` binding, as a deployment without `edge/assets/` would.
    pub fn without_assets(mut self) -> Self {
        self.assets = None;
        self
    }

    /// Serve [`Workerd::hand_off`] on a second port: a test worker, bound to the same
    /// entity namespace, that hands an encoded event to any object by name, as the Worker
    /// does to the object it chooses.
    pub fn with_handoff(mut self) -> Self {
        self.handoff = true;
        self
    }

    /// Start with fresh state in a temp dir (removed on drop).
    pub fn start(self) -> Workerd {
        let dir = tempfile::Builder::new()
            .prefix("hookonce-workerd-")
            .tempdir()
            .expect("temp state dir");
        let path = dir.path().to_path_buf();
        self.start_at(path, Some(dir))
    }

    /// Start with state kept in `dir` (created if missing, kept after drop).
    pub fn start_in(self, dir: &Path) -> Workerd {
        self.start_at(dir.to_path_buf(), None)
    }

    fn start_at(self, dir: PathBuf, temp: Option<tempfile::TempDir>) -> Workerd {
        fs::create_dir_all(dir.join("do")).expect("create do/");
        let port = crate::free_port();
        let handoff = self.handoff.then(crate::free_port);
        fs::write(dir.join("config.capnp"), self.config(port, handoff, &dir))
            .expect("write config");
        if handoff.is_some() {
            fs::write(dir.join("handoff.js"), HANDOFF_JS).expect("write handoff.js");
        }
        let mut w = Workerd {
            base: format!("http://127.0.0.1:{port}"),
            handoff: handoff.map(|p| format!("http://127.0.0.1:{p}")),
            dir,
            child: None,
            _temp: temp,
            agent: crate::agent(Duration::from_secs(30)),
            starts: 0,
        };
        w.start_again();
        w
    }

    fn config(&self, port: u16, handoff: Option<u16>, dir: &Path) -> String {
        // HOOKONCE_BUILD_DIR: another build of the worker (absolute), to measure it with
        // the same harness (`make outage` on two builds).
        let build = std::env::var_os("HOOKONCE_BUILD_DIR")
            .map_or_else(|| repo_root().join("build"), PathBuf::from);
        for f in ["index.js", "index_bg.wasm"] {
            assert!(
                build.join(f).exists(),
                "{} missing: run `make build`",
                build.join(f).display()
            );
        }
        let mut bindings = vec![format!(
            "(name = \"HOOKONCE_SOURCES\", json = {})",
            capnp_str(&self.sources.to_string())
        )];
        let mut services = String::new();
        if let Some(assets) = &self.assets {
            services = format!(
                "\n    (name = \"assets\", disk = (path = {})),",
                capnp_str(&assets.display().to_string())
            );
            bindings.push("(name = \"ASSETS\", service = \"assets\")".into());
        }
        for (k, v) in &self.texts {
            bindings.push(format!(
                "(name = {}, text = {})",
                capnp_str(k),
                capnp_str(v)
            ));
        }
        let compat = capnp_str(&compatibility_date());
        let mut sockets = format!(
            "(name = \"http\", address = \"127.0.0.1:{port}\", http = (), service = \"main\")"
        );
        let mut extra = String::new();
        if let Some(hport) = handoff {
            services.push_str("\n    (name = \"handoff\", worker = .handoff),");
            sockets.push_str(&format!(
                ",\n    (name = \"handoff\", address = \"127.0.0.1:{hport}\", http = (), service = \"handoff\")"
            ));
            extra = format!(
                r#"const handoff :Workerd.Worker = (
  modules = [(name = "handoff.js", esModule = embed "handoff.js")],
  compatibilityDate = {compat},
  bindings = [
    (name = "ENTITY", durableObjectNamespace = (className = "EntityObject", serviceName = "main")),
  ],
);
"#
            );
        }
        format!(
            r#"using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "do-disk", disk = (path = {disk}, writable = true)),
    (name = "internet", network = (allow = ["local"])),{services}
  ],
  sockets = [{sockets}],
);
{extra}
const worker :Workerd.Worker = (
  modules = [
    (name = "index.js", esModule = embed {js}),
    (name = "index_bg.wasm", wasm = embed {wasm}),
  ],
  compatibilityDate = {compat},
  bindings = [
    {bindings},
    (name = "ENTITY", durableObjectNamespace = "EntityObject"),
    (name = "KEYS", durableObjectNamespace = "KeyObject"),
    (name = "FEED", durableObjectNamespace = "FeedObject"),
    (name = "GATE", durableObjectNamespace = "GateObject"),
  ],
  durableObjectNamespaces = [
    (className = "EntityObject", uniqueKey = "hookonce-e2e-entity", enableSql = true),
    (className = "KeyObject", uniqueKey = "hookonce-e2e-keys", enableSql = true),
    (className = "FeedObject", uniqueKey = "hookonce-e2e-feed", enableSql = true),
    (className = "GateObject", uniqueKey = "hookonce-e2e-gate", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "do-disk"),
  globalOutbound = "internet",
);
"#,
            disk = capnp_str(&dir.join("do").display().to_string()),
            js = capnp_str(&relative(dir, &build.join("index.js"))),
            wasm = capnp_str(&relative(dir, &build.join("index_bg.wasm"))),
            bindings = bindings.join(",\n    "),
        )
    }
}

/// Makes `cmd`'s process die (SIGKILL) when the thread that spawns it ends, even if the
/// test process is killed.
pub(crate) fn dies_with_this_thread(cmd: &mut Command) {
    // SAFETY: prctl and getppid are async-signal-safe; nothing else runs here.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() == 1 {
                libc::_exit(1); // the parent is gone already
            }
            Ok(())
        });
    }
}

/// The test worker behind [`Workerd::hand_off`]: the request's body, as it is, to the
/// named entity object's internal ingest operation.
const HANDOFF_JS: &str = r#"export default {
  async fetch(request, env) {
    const object = new URL(request.url).searchParams.get("object");
    const stub = env.ENTITY.get(env.ENTITY.idFromName(object));
    return stub.fetch("https://entity.hookonce/ingest", {
      method: "POST",
      body: await request.arrayBuffer(),
    });
  },
};
"#;

/// `to` relative to the directory `from` (both absolute): `embed` paths are read relative
/// to the config file.
fn relative(from: &Path, to: &Path) -> String {
    let up = "../".repeat(from.components().count() - 1);
    format!("{up}{}", to.display().to_string().trim_start_matches('/'))
}

/// A Cap'n Proto text literal.
fn capnp_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// wrangler.toml's `compatibility_date`, so workerd runs the deployed semantics.
pub(crate) fn compatibility_date() -> String {
    let text = fs::read_to_string(repo_root().join("wrangler.toml")).expect("read wrangler.toml");
    let table: toml::Table = text.parse().expect("wrangler.toml parses");
    table["compatibility_date"]
        .as_str()
        .expect("compatibility_date")
        .to_owned()
}

/// The workerd binary itself (not the npm launcher script), so its pid is the runtime's.
pub fn binary() -> PathBuf {
    let p = repo_root().join("node_modules/@cloudflare/workerd-linux-64/bin/workerd");
    assert!(p.exists(), "{} missing: run `make setup`", p.display());
    p
}

/// A workerd process serving the built worker, with Durable Object state in `dir/do`.
pub struct Workerd {
    /// `http://127.0.0.1:PORT`, no trailing slash; the same across restarts.
    pub base: String,
    /// Where [`Workerd::hand_off`] is served, if it is ([`Builder::with_handoff`]).
    handoff: Option<String>,
    dir: PathBuf,
    child: Option<Child>,
    _temp: Option<tempfile::TempDir>,
    agent: ureq::Agent,
    starts: u32,
}

impl Workerd {
    /// The e2e configuration: wrangler.toml's sources, `.dev.vars.example`'s secrets.
    pub fn builder() -> Builder {
        Builder {
            sources: wrangler_sources(),
            texts: dev_vars(),
            assets: Some(repo_root().join("edge/assets")),
            handoff: false,
        }
    }

    /// Where the Durable Objects' SQLite files are.
    pub fn storage_dir(&self) -> PathBuf {
        self.dir.join("do")
    }

    /// workerd's log (stdout and stderr of every start).
    pub fn logs(&self) -> String {
        fs::read_to_string(self.dir.join("workerd.log")).unwrap_or_default()
    }

    /// How many times this runtime was started.
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// The running process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Resident memory of the workerd process, from `/proc`.
    pub fn rss_kib(&self) -> Option<u64> {
        let status = fs::read_to_string(format!("/proc/{}/status", self.pid()?)).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// SIGKILL: no graceful shutdown. Idempotent.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Start (again) on the same port and state; waits until it answers `GET /`.
    pub fn start_again(&mut self) {
        self.kill9();
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("workerd.log"))
            .expect("open workerd.log");
        let deadline = Instant::now() + Duration::from_secs(60);
        let probe = crate::agent(Duration::from_secs(2));
        // The port was just released by the killed process; a new bind can briefly fail.
        'spawn: loop {
            let logged = self.logs().len();
            let mut cmd = Command::new(binary());
            cmd.arg("serve")
                .arg(self.dir.join("config.capnp"))
                .current_dir(&self.dir)
                .stdin(Stdio::null())
                .stdout(log.try_clone().expect("dup log"))
                .stderr(log.try_clone().expect("dup log"));
            dies_with_this_thread(&mut cmd);
            let mut child = cmd.spawn().expect("spawn workerd");
            loop {
                if let Ok(Some(status)) = child.try_wait() {
                    let logs = self.logs();
                    let port_busy = logs[logged..].contains("Address already in use");
                    assert!(
                        port_busy && Instant::now() < deadline,
                        "workerd exited ({status}) before serving {}:\n{}",
                        self.base,
                        &logs[logged..]
                    );
                    std::thread::sleep(Duration::from_millis(100));
                    continue 'spawn;
                }
                let ok = crate::http(&probe, "GET", &self.url("/"), &[] as &[(&str, &str)], None)
                    .is_ok();
                if ok {
                    self.child = Some(child);
                    self.starts += 1;
                    return;
                }
                if Instant::now() > deadline {
                    let _ = child.kill();
                    panic!("workerd did not answer on {}:\n{}", self.base, self.logs());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// `127.0.0.1:PORT`, for raw TCP.
    pub fn addr(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Any request; `Err` when no HTTP response arrives (the runtime is down, or was killed).
    pub fn try_request<K: AsRef<str>, V: AsRef<str>>(
        &self,
        method: &str,
        path: &str,
        headers: &[(K, V)],
        body: Option<&[u8]>,
    ) -> Result<Resp, String> {
        crate::http(&self.agent, method, &self.url(path), headers, body).map_err(|e| e.to_string())
    }

    /// Any request; panics with workerd's log if no response arrives.
    pub fn request<K: AsRef<str>, V: AsRef<str>>(
        &self,
        method: &str,
        path: &str,
        headers: &[(K, V)],
        body: Option<&[u8]>,
    ) -> Resp {
        self.try_request(method, path, headers, body)
            .unwrap_or_else(|e| panic!("{method} {path}: no response: {e}\n{}", self.logs()))
    }

    /// GET `path`.
    pub fn get(&self, path: &str) -> Resp {
        self.request("GET", path, &[] as &[(&str, &str)], None)
    }

    /// POST `body` to `path`.
    pub fn post<K: AsRef<str>, V: AsRef<str>>(
        &self,
        path: &str,
        headers: &[(K, V)],
        body: impl AsRef<[u8]>,
    ) -> Resp {
        self.request("POST", path, headers, Some(body.as_ref()))
    }

    /// GET `path` with the admin token.
    pub fn admin_get(&self, path: &str) -> Resp {
        let auth = format!("Bearer {}", crate::events::ADMIN_TOKEN);
        self.request("GET", path, &[("authorization", auth.as_str())], None)
    }

    /// Delivers `event` to the `cockpit` source, signed now as its provider would.
    pub fn deliver_cockpit(&self, event: &serde_json::Value) -> Resp {
        let body = event.to_string();
        let id = event["id"].as_str().expect("an event has an id");
        let secret = crate::events::cockpit_secret();
        let headers =
            crate::standard_webhooks_headers(&secret, id, crate::unix_now(), body.as_bytes());
        self.post("/webhooks/cockpit", &headers, body)
    }

    /// Hands `handoff` (core's `handoff::encode`) to the entity object named `object`,
    /// past the Worker: what an earlier version of the Worker, which chose other objects,
    /// would have sent it. Needs [`Builder::with_handoff`].
    pub fn hand_off(&self, object: &str, handoff: &[u8]) -> Resp {
        let base = self.handoff.as_deref().expect("started with_handoff()");
        let url = format!(
            "{base}/?object={}",
            hookonce_core::route::encode_component(object)
        );
        crate::http(
            &self.agent,
            "POST",
            &url,
            &[] as &[(&str, &str)],
            Some(handoff),
        )
        .expect("the hand-off worker answers")
    }

    /// The entity objects' SQLite files (not the namespace's `metadata.sqlite`).
    pub fn entity_files(&self) -> Vec<PathBuf> {
        let dir = self.storage_dir().join("hookonce-e2e-entity");
        fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "sqlite"))
            .filter(|p| !p.ends_with("metadata.sqlite"))
            .collect()
    }
}

impl Drop for Workerd {
    fn drop(&mut self) {
        self.kill9();
    }
}

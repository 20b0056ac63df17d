//! Debian's `prometheus` (and `promtool`), scraping a worker: for the `/metrics` test.
//!
//! ```no_run
//! use hookonce_e2e::prometheus::Prometheus;
//!
//! let p = Prometheus::start("127.0.0.1:8787", "dev-admin-token");
//! let applied = p.query(r#"hookonce_deliveries_total{outcome="applied"}"#);
//! ```

use std::fs;
use std::io::Write as _;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hookonce_core::route::encode_component;

/// A Prometheus server on 127.0.0.1 with its storage in a temp dir, scraping one target's
/// `/metrics` every second with the admin token as bearer credentials; killed on drop.
pub struct Prometheus {
    base: String,
    child: Child,
    dir: tempfile::TempDir,
    agent: ureq::Agent,
}

impl Prometheus {
    /// Starts scraping `target` (`host:port`) with `token`; returns once it is ready.
    pub fn start(target: &str, token: &str) -> Prometheus {
        let dir = tempfile::Builder::new()
            .prefix("hookonce-prometheus-")
            .tempdir()
            .expect("temp dir");
        let config = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: hookonce\n    metrics_path: /metrics\n\
             \x20   authorization:\n      type: Bearer\n      credentials: {token}\n\
             \x20   static_configs:\n      - targets: [\"{target}\"]\n"
        );
        fs::write(dir.path().join("prometheus.yml"), config).expect("write prometheus.yml");
        let port = crate::free_port();
        let log = fs::File::create(dir.path().join("prometheus.log")).expect("log file");
        let mut cmd = Command::new(binary("prometheus"));
        cmd.arg(format!(
            "--config.file={}",
            dir.path().join("prometheus.yml").display()
        ))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.path().join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("dup log"))
        .stderr(log);
        crate::workerd::dies_with_this_thread(&mut cmd);
        let child = cmd
            .spawn()
            .expect("spawn prometheus (scripts/bootstrap.sh installs it)");
        let p = Prometheus {
            base: format!("http://127.0.0.1:{port}"),
            child,
            dir,
            agent: crate::agent(Duration::from_secs(5)),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while p.get("/-/ready").is_none_or(|r| r.status != 200) {
            assert!(
                Instant::now() < deadline,
                "prometheus not ready: {}",
                p.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        p
    }

    fn get(&self, path: &str) -> Option<crate::Resp> {
        let url = format!("{}{path}", self.base);
        crate::http(&self.agent, "GET", &url, &[] as &[(&str, &str)], None).ok()
    }

    /// Its log, for a failure message.
    pub fn logs(&self) -> String {
        fs::read_to_string(self.dir.path().join("prometheus.log")).unwrap_or_default()
    }

    /// The sum of an instant query's samples through `/api/v1/query`; `None` when it has
    /// no sample (nothing scraped yet).
    pub fn query(&self, expr: &str) -> Option<f64> {
        let path = format!("/api/v1/query?query={}", encode_component(expr));
        let r = self.get(&path)?;
        assert_eq!(r.status, 200, "query {expr}: {r}");
        let v = r.json();
        assert_eq!(v["status"], "success", "query {expr}: {v}");
        let samples = v["data"]["result"].as_array()?;
        if samples.is_empty() {
            return None;
        }
        Some(
            samples
                .iter()
                .map(|s| s["value"][1].as_str().unwrap().parse::<f64>().unwrap())
                .sum(),
        )
    }

    /// Polls `expr` until it is `want` or `timeout` passes; returns what it last was.
    pub fn wait_for(&self, expr: &str, want: f64, timeout: Duration) -> Option<f64> {
        let deadline = Instant::now() + timeout;
        loop {
            let got = self.query(expr);
            if got == Some(want) || Instant::now() > deadline {
                return got;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `/usr/bin/{name}`, where Debian's package puts it.
fn binary(name: &str) -> String {
    format!("/usr/bin/{name}")
}

/// What `promtool check metrics` says of `text`: `Ok` with its output when it passes.
pub fn promtool_check_metrics(text: &str) -> Result<String, String> {
    let mut child = Command::new(binary("promtool"))
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn promtool (scripts/bootstrap.sh installs it)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write to promtool");
    let out = child.wait_with_output().expect("promtool runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    match out.status.success() {
        true => Ok(said),
        false => Err(said),
    }
}

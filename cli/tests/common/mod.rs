//! Running the built `hookonce` binary from the tests.

#![allow(dead_code)] // each test file uses its own part of this

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// The binary cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_hookonce");

/// `hookonce args…` with `stdin` as standard input; HOOKONCE_* from the test's own
/// environment are removed so that only the arguments count.
pub fn hookonce(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args, Stdio::piped());
    // A command that never reads its input may exit first: a broken pipe is no failure.
    let _ = std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin);
    child.wait_with_output().unwrap()
}

fn spawn(args: &[&str], stdin: Stdio) -> Child {
    Command::new(BIN)
        .args(args)
        .env_remove("HOOKONCE_URL")
        .env_remove("HOOKONCE_ADMIN_TOKEN")
        .env_remove("HOOKONCE_FORWARD_SECRET")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hookonce")
}

/// `hookonce send --json` of `fixture` about `entity` to the cockpit source of `w`, plus
/// `extra` arguments; its JSON report, after checking it exited 0.
pub fn send_fixture(
    w: &hookonce_e2e::Worker,
    fixture: &str,
    entity: &str,
    extra: &[&str],
) -> serde_json::Value {
    let secret = hookonce_e2e::events::cockpit_secret();
    let args = [
        "send",
        "--json",
        &w.base,
        "--source",
        "cockpit",
        "--secret",
        &secret,
        "--fixture",
        fixture,
        "--entity",
        entity,
    ];
    json_of(&hookonce(&[&args[..], extra].concat(), b""), 0)
}

/// Asserts the exit code and that `stream` (`out.stdout` or `out.stderr`) holds `needle`.
pub fn assert_output(out: &Output, code: i32, stream: &[u8], needle: &str) {
    assert_eq!(out.status.code(), Some(code), "{}", show(out));
    assert!(
        String::from_utf8_lossy(stream).contains(needle),
        "no {needle:?} in:\n{}",
        show(out)
    );
}

/// Standard output as JSON, after checking the exit code; panics with both streams.
pub fn json_of(out: &Output, code: i32) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(code), "{}", show(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", show(out)))
}

/// Both streams and the status, for failure messages.
pub fn show(out: &Output) -> String {
    format!(
        "{}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A long-running `hookonce` (listen, tail): its lines as they come; killed when dropped.
pub struct Running {
    child: Child,
    pub stdout: Receiver<String>,
    pub stderr: Receiver<String>,
}

impl Running {
    pub fn start(args: &[&str]) -> Running {
        let mut child = spawn(args, Stdio::null());
        let stdout = lines(child.stdout.take().unwrap());
        let stderr = lines(child.stderr.take().unwrap());
        Running {
            child,
            stdout,
            stderr,
        }
    }

    /// The first stdout line for which `pick` returns something, within `timeout`.
    pub fn wait_stdout<T>(&self, timeout: Duration, pick: impl FnMut(&str) -> Option<T>) -> T {
        wait_line(&self.stdout, timeout, pick).unwrap_or_else(|seen| {
            panic!("no such line on stdout within {timeout:?}; saw:\n{seen}")
        })
    }

    /// The next stdout line that is JSON, within `timeout`.
    pub fn next_json(&self, timeout: Duration) -> serde_json::Value {
        self.wait_stdout(timeout, |l| serde_json::from_str(l).ok())
    }

    /// The first stderr line for which `pick` returns something, within `timeout`.
    pub fn wait_stderr<T>(&self, timeout: Duration, pick: impl FnMut(&str) -> Option<T>) -> T {
        wait_line(&self.stderr, timeout, pick).unwrap_or_else(|seen| {
            panic!("no such line on stderr within {timeout:?}; saw:\n{seen}")
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lines(r: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn wait_line<T>(
    rx: &Receiver<String>,
    timeout: Duration,
    mut pick: impl FnMut(&str) -> Option<T>,
) -> Result<T, String> {
    let deadline = Instant::now() + timeout;
    let mut seen = String::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                if let Some(t) = pick(&line) {
                    return Ok(t);
                }
                seen.push_str(&line);
                seen.push('\n');
            }
            Err(_) => return Err(seen),
        }
    }
}

/// The address `hookonce listen --port 0` printed, e.g. `http://127.0.0.1:40123/`.
pub fn listen_address(l: &Running) -> String {
    l.wait_stderr(Duration::from_secs(10), |line| {
        line.strip_prefix("hookonce listen: ")
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_owned)
    })
}

//! The README's quick start, done as a newcomer does it: `make dev` prints a signed `curl`
//! (`scripts/sample-delivery.sh`); they paste it, paste it again, then read the entity
//! with the README's own `curl`. Each answer must be the one the README shows (the entity's
//! abridged: every member it shows, with its value). The expected texts are read from
//! README.md, so the page and the worker cannot drift apart.

use std::fs;
use std::process::Command;

use hookonce_e2e::readme::{fenced, section};
use hookonce_e2e::{raw, readme, repo_root, Resp, Worker};
use serde_json::Value;

/// Runs `command` with bash, as a reader does; what it printed.
fn run(command: &str) -> String {
    let out = Command::new("bash")
        .args(["-c", command])
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "the command failed ({}): {command}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// An HTTP answer as `curl -i` prints it, or as the README writes one (lines ending in LF).
fn parse_http(text: &str) -> Resp {
    let crlf = text.replace("\r\n", "\n").trim_end().replace('\n', "\r\n");
    let crlf = if crlf.contains("\r\n\r\n") {
        crlf
    } else {
        crlf + "\r\n\r\n"
    };
    raw::parse_response(crlf.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

/// Pastes `command` into a shell and parses what `curl -i` printed.
fn paste(command: &str) -> Resp {
    parse_http(&run(command))
}

/// Each header the README shows is in the answer, with the README's value.
fn assert_headers(shown: &Resp, got: &Resp) {
    for (name, value) in &shown.headers {
        assert_eq!(
            got.header(name),
            Some(value.as_str()),
            "the README shows `{name}: {value}`; the worker answered {got}"
        );
    }
}

/// Every member `shown` has is in `got` with the same value; an array shows every element.
fn assert_shown(shown: &Value, got: &Value, at: &str) {
    match (shown, got) {
        (Value::Object(shown), Value::Object(got)) => {
            for (key, value) in shown {
                let at = format!("{at}.{key}");
                let got = got
                    .get(key)
                    .unwrap_or_else(|| panic!("the README shows {at}; the worker has none"));
                assert_shown(value, got, &at);
            }
        }
        (Value::Array(shown), Value::Array(got)) => {
            assert_eq!(
                shown.len(),
                got.len(),
                "{at}: the README shows {shown:?}, got {got:?}"
            );
            for (i, (shown, got)) in shown.iter().zip(got).enumerate() {
                assert_shown(shown, got, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(shown, got, "{at}"),
    }
}

#[test]
fn a_newcomer_who_follows_the_quick_start_sees_what_the_readme_shows() {
    let root = repo_root();
    let readme = readme::text();
    let quick = section(&readme, "Quick start");
    let makefile = fs::read_to_string(root.join("Makefile")).expect("Makefile");
    let port = makefile
        .lines()
        .find_map(|l| l.strip_prefix("DEV_PORT ?= "))
        .expect("the Makefile sets DEV_PORT")
        .trim();
    let dev_base = format!("http://127.0.0.1:{port}");
    assert!(
        quick.contains(&format!("<{dev_base}>")),
        "the README says where `make dev` serves, and it is {dev_base}"
    );

    // The committed script and secrets, as on a fresh clone (no .dev.vars of a developer's).
    let clone = tempfile::tempdir().unwrap();
    fs::create_dir(clone.path().join("scripts")).unwrap();
    for file in ["scripts/sample-delivery.sh", ".dev.vars.example"] {
        fs::copy(root.join(file), clone.path().join(file)).unwrap();
    }
    let w = Worker::start();
    let script = clone.path().join("scripts/sample-delivery.sh");
    let curl = run(&format!("bash '{}' '{}' cockpit", script.display(), w.base));
    let event_id = curl
        .lines()
        .find_map(|l| l.trim().strip_prefix("-H 'webhook-id: "))
        .and_then(|l| l.strip_suffix("' \\"))
        .unwrap_or_else(|| panic!("the printed curl has a webhook-id:\n{curl}"))
        .to_owned();

    // "Paste the printed curl …, and you get:"
    let shown = fenced(quick, "http");
    assert_eq!(shown.len(), 1, "one answer shown in the quick start");
    let shown = parse_http(&shown[0].replace("evt_…", &event_id));
    let first = paste(&curl);
    assert_eq!(first.status, shown.status, "{first}");
    assert_headers(&shown, &first);
    assert_eq!(
        first.json(),
        shown.json(),
        "the README's body, with the event id"
    );

    // "Send the same curl again: `200`, `hookonce-outcome: duplicate`, `"rows_written":0`."
    let again =
        "Send the same curl again: `200`, `hookonce-outcome: duplicate`, `\"rows_written\":0`";
    assert!(quick.contains(again), "the README still says: {again}");
    let second = paste(&curl);
    assert_eq!(second.status, 200, "{second}");
    assert_eq!(
        second.header("hookonce-outcome"),
        Some("duplicate"),
        "{second}"
    );
    let mut duplicate = shown.json();
    duplicate["outcome"] = "duplicate".into();
    duplicate["rows_written"] = 0.into();
    assert_eq!(second.json(), duplicate);

    // "Then look at the entity:" with the README's own command, on this worker's port.
    let look = fenced(quick, "sh")
        .into_iter()
        .find(|b| b.contains("/entities/"))
        .expect("the quick start shows how to read the entity");
    assert!(look.contains(&dev_base), "{look}");
    let entity = paste(
        &look
            .replace(&dev_base, &w.base)
            .replace("curl ", "curl -i "),
    );
    assert_eq!(entity.status, 200, "{entity}");
    let entity: Value = entity.json();
    // "It answers the entity's current state, the version it came from, and its events".
    let shown = fenced(quick, "json");
    assert_eq!(shown.len(), 1, "one entity shown in the quick start");
    let shown: Value = serde_json::from_str(&shown[0].replace("evt_…", &event_id))
        .unwrap_or_else(|e| panic!("the README's entity is JSON: {e}"));
    assert_eq!(shown["version"]["event_id"], event_id.as_str());
    assert_shown(&shown, &entity, "entity");
}

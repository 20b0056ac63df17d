//! Every command's `--help` ends with an example of it.

mod common;

use common::{hookonce, show};

#[test]
fn each_command_has_an_example_in_its_help() {
    for cmd in [
        "sign",
        "verify",
        "send",
        "replay",
        "check",
        "tail",
        "stats",
        "destination",
        "listen",
        "requeue",
        "redeliver",
        "backfill",
    ] {
        let out = hookonce(&[cmd, "--help"], b"");
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        let example = text
            .split_once("Example")
            .unwrap_or_else(|| panic!("{cmd} --help has no example:\n{text}"))
            .1;
        assert!(
            example.contains(&format!("hookonce {cmd} ")),
            "{cmd}'s example does not run {cmd}:\n{text}"
        );
    }
}

//! `hookonce`: sign, verify, send, replay, check, tail, stats, destination, listen, requeue,
//! redeliver and backfill from a terminal.
//!
//! Exit codes: 0 success; 1 a negative answer (an invalid signature, a delivery that
//! failed, a replay that changed something); 2 an error (bad input, an unreachable URL,
//! a 401), always with a message on stderr.

#![forbid(unsafe_code)]

mod admin;
mod args;
mod destination;
mod exposition;
mod fixtures;
mod http;
mod input;
mod listen;
mod resend;
mod send;
mod signing;
mod stats;
mod sweep;

use std::process::ExitCode;

use clap::Parser as _;

use args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    let result = match cli.command {
        Command::Sign(a) => signing::sign(a, json),
        Command::Verify(a) => signing::verify(a, json),
        Command::Send(a) => send::run(a, json),
        Command::Replay(a) => admin::replay(a, json),
        Command::Check(a) => admin::check(a, json),
        Command::Tail(a) => admin::tail(a, json),
        Command::Stats(a) => stats::run(a, json),
        Command::Destination(a) => destination::run(a, json),
        Command::Listen(a) => listen::run(a, json),
        Command::Requeue(a) => resend::requeue(a, json),
        Command::Redeliver(a) => resend::redeliver(a, json),
        Command::Backfill(a) => resend::backfill(a, json),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hookonce: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

//! `listen`: a local `forward.url`. Verifies each forwarded event as the application
//! should, shows its Idempotency-Key, flags a key seen before (hookonce sends a key again
//! only when a delivery is retried), and can pass the event on to the application.

use std::collections::HashMap;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context as _, Result};
use hookonce_core::idempotency::IdempotencyKey;
use hookonce_core::verify::{Scheme, Verifier, VerifyError};
use serde_json::{json, Value};

use crate::args::ListenArgs;
use crate::http;
use crate::input;

/// Headers that describe one hop, not the event; never passed on.
const HOP_BY_HOP: &[&str] = &[
    "host",
    "content-length",
    "connection",
    "transfer-encoding",
    "keep-alive",
];

enum Signature {
    Verified,
    Invalid(VerifyError),
    Unchecked,
}

pub fn run(a: ListenArgs, json: bool) -> Result<ExitCode> {
    let scheme = Scheme::StandardWebhooks;
    let verifier = match a.secret.as_deref().filter(|s| !s.is_empty()) {
        Some(s) => Some(Verifier::new(
            scheme.clone(),
            vec![input::secret(&scheme, s)?],
            scheme.default_tolerance(),
        )?),
        None => None,
    };
    if let Some(url) = &a.forward_to {
        input::base_url(url).context("--forward-to")?;
    }
    let server = tiny_http::Server::http((a.host.as_str(), a.port))
        .map_err(|e| anyhow!("cannot listen on {}:{}: {e}", a.host, a.port))?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| anyhow!("the listener has no IP address"))?;
    eprintln!(
        "hookonce listen: http://{addr}/ ({}; {}); Ctrl-C stops",
        if verifier.is_some() {
            "verifying Standard Webhooks signatures"
        } else {
            "NOT verifying: pass --secret or set HOOKONCE_FORWARD_SECRET"
        },
        a.forward_to.as_deref().map_or_else(
            || "answering 200".to_owned(),
            |u| format!("passing events on to {u}")
        )
    );

    let agent = http::agent();
    let mut seen: HashMap<String, u32> = HashMap::new();
    for mut req in server.incoming_requests() {
        let mut body = Vec::new();
        if let Err(e) = req.as_reader().read_to_end(&mut body) {
            eprintln!("hookonce listen: a request body could not be read: {e}");
            continue;
        }
        let headers: Vec<(String, String)> = req
            .headers()
            .iter()
            .map(|h| {
                (
                    h.field.as_str().as_str().to_ascii_lowercase(),
                    h.value.as_str().to_owned(),
                )
            })
            .collect();
        let get = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let signature = match &verifier {
            Some(v) => match v.verify(&headers, &body, input::now()) {
                Ok(_) => Signature::Verified,
                Err(e) => Signature::Invalid(e),
            },
            None => Signature::Unchecked,
        };
        let key = match get("idempotency-key") {
            None => Err("none".to_owned()),
            Some(wire) => IdempotencyKey::parse(Some(wire))
                .map(|k| k.as_str().to_owned())
                .map_err(|e| format!("malformed {wire:?}: {e}")),
        };
        // A forged request must not make a real one look like a repeat.
        let times = match (
            &signature,
            key.as_ref().ok().map(String::as_str).or(get("webhook-id")),
        ) {
            (Signature::Invalid(_), _) | (_, None) => 0,
            (_, Some(k)) => {
                let n = seen.entry(k.to_owned()).or_insert(0);
                *n += 1;
                *n
            }
        };
        let forwarded = match (&signature, &a.forward_to) {
            (Signature::Invalid(_), _) | (_, None) => None,
            (_, Some(url)) => {
                let pass: Vec<&(String, String)> = headers
                    .iter()
                    .filter(|(k, _)| !HOP_BY_HOP.contains(&k.as_str()))
                    .collect();
                let pass: Vec<(&str, &str)> =
                    pass.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                Some(http::request(&agent, "POST", url, &pass, Some(&body)))
            }
        };
        let event: Value = serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
        let kind = event["type"].as_str().unwrap_or("-").to_owned();
        let forwarded_status = match &forwarded {
            Some(Ok(r)) => Some(Ok(r.status)),
            Some(Err(e)) => Some(Err(format!("{e:#}"))),
            None => None,
        };

        if json {
            let (sig, reason) = match &signature {
                Signature::Verified => ("verified", None),
                Signature::Invalid(e) => ("invalid", Some(e.to_string())),
                Signature::Unchecked => ("unchecked", None),
            };
            println!(
                "{}",
                json!({
                    "received_at": input::rfc3339(input::now()),
                    "method": req.method().as_str(),
                    "path": req.url(),
                    "idempotency_key": key.as_ref().ok(),
                    "idempotency_key_problem": key.as_ref().err(),
                    "webhook_id": get("webhook-id"),
                    "source": get("hookonce-source"),
                    "attempt": get("hookonce-attempt"),
                    "type": kind,
                    "signature": sig,
                    "reason": reason,
                    "seen_before": times > 1,
                    "times_seen": times,
                    "forwarded_status": forwarded_status.as_ref().and_then(|r| r.as_ref().ok()),
                    "forward_error": forwarded_status.as_ref().and_then(|r| r.as_ref().err()),
                    "event": event,
                })
            );
        } else {
            let now = input::rfc3339(input::now());
            let mut line = format!(
                "{}  key {}  {kind}  attempt {}  signature {}",
                &now[11..19],
                match &key {
                    Ok(k) => k.clone(),
                    Err(e) => format!("({e})"),
                },
                get("hookonce-attempt").unwrap_or("-"),
                match &signature {
                    Signature::Verified => "verified".to_owned(),
                    Signature::Invalid(e) => format!("INVALID ({e})"),
                    Signature::Unchecked => "unchecked".to_owned(),
                }
            );
            if times > 1 {
                line.push_str(&format!("  SEEN BEFORE (delivery {times} of this key)"));
            }
            match &forwarded_status {
                Some(Ok(s)) => line.push_str(&format!("  -> app {s}")),
                Some(Err(e)) => line.push_str(&format!("  -> app unreachable: {e}")),
                None => {}
            }
            println!("{line}");
            println!("          {}", body_preview(&event));
        }

        let (status, text): (u16, Vec<u8>) = match (&signature, forwarded) {
            (Signature::Invalid(e), _) => (401, format!("invalid signature: {e}\n").into_bytes()),
            (_, Some(Ok(r))) => (r.status, r.body),
            (_, Some(Err(e))) => (
                502,
                format!("the application is unreachable: {e:#}\n").into_bytes(),
            ),
            (_, None) => (200, b"ok\n".to_vec()),
        };
        let resp = tiny_http::Response::from_data(text).with_status_code(status);
        if let Err(e) = req.respond(resp) {
            eprintln!("hookonce listen: could not answer: {e}");
        }
    }
    bail!("the listener stopped")
}

/// The event on one line, cut short if long.
fn body_preview(event: &Value) -> String {
    const MAX: usize = 400;
    let s = match event {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

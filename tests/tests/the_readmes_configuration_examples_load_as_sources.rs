//! Every ```` ```toml ```` block in the README is configuration a reader copies into
//! `wrangler.toml`, so each must load as the Worker loads it: `HOOKONCE_SOURCES` through core's
//! `Sources::from_json` and the outbound guard, `HOOKONCE_OPS`, `HOOKONCE_FEED`, `HOOKONCE_LOG` and `HOOKONCE_KEY_TTL_SECS` through
//! their parsers, and each destination binding a source names declared in the same file. A
//! block whose first line is `# append to wrangler.toml` is checked appended to this
//! repository's `wrangler.toml`, as the reader is told to; any other block stands alone. A
//! complete `wrangler.toml` (one with `main`) must bind and migrate the Durable Objects as this
//! repository's does, or a deploy from it would lose them, and keep Workers Logs as it does.
//! Native: no worker is started.

use std::fs;

use hookonce_core::config::{SourceConfig, Sources};
use hookonce_core::feed::FeedConfig;
use hookonce_core::idempotency::KeyPolicy;
use hookonce_core::log::LogLevel;
use hookonce_core::ops::OpsConfig;
use hookonce_core::outbound::{Policy, ALLOW_PRIVATE_VAR};
use hookonce_core::time::Seconds;
use hookonce_e2e::{dev_vars, readme, repo_root};
use serde_json::Value;

const APPEND: &str = "# append to wrangler.toml\n";

/// What `text` configures, as wrangler hands it to the Worker (TOML tables become objects).
fn as_json(text: &str) -> Result<Value, String> {
    let table: toml::Table = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    serde_json::to_value(table).map_err(|e| e.to_string())
}

/// The `binding` names of the `[[key]]` (or `[[a.b]]`) array of tables in `config`.
fn bindings(config: &Value, pointer: &str) -> Vec<String> {
    config
        .pointer(pointer)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b["binding"].as_str().map(str::to_owned))
        .collect()
}

/// Loads `config` as the Worker does at its first request, its destinations through the
/// outbound guard with `policy`; the first refusal.
fn load(config: &Value, wrangler: &Value, policy: Policy) -> Result<(), String> {
    let vars = &config["vars"];
    let sources = &vars["HOOKONCE_SOURCES"];
    Sources::from_json(sources)
        .and_then(|s| s.check_outbound(policy))
        .map_err(|e| e.to_string())?;
    let names = sources.as_object().into_iter().flatten();
    for (name, source) in names {
        let forward = &source["forward"];
        for (field, pointer, declared) in [
            ("service", "/services", "[[services]]"),
            ("queue", "/queues/producers", "[[queues.producers]]"),
        ] {
            if let Some(binding) = forward[field].as_str() {
                if !bindings(config, pointer).iter().any(|b| b == binding) {
                    return Err(format!(
                        "{name}.forward.{field}: no {declared} binding named {binding}"
                    ));
                }
            }
        }
    }
    if let Some(ops) = vars.get("HOOKONCE_OPS") {
        let (_, source) = OpsConfig::from_json(ops)?;
        SourceConfig::from_json(hookonce_core::ops::SOURCE, &source)
            .map_err(|e| e.to_string())
            .and_then(|s| Sources::check_one(&s, policy).map_err(|e| e.to_string()))
            .map_err(|e| OpsConfig::field_of(&e))?;
    }
    if let Some(feed) = vars.get("HOOKONCE_FEED") {
        FeedConfig::from_json(feed).map_err(|e| format!("HOOKONCE_FEED: {e}"))?;
    }
    if let Some(level) = vars.get("HOOKONCE_LOG") {
        level
            .as_str()
            .and_then(LogLevel::parse)
            .ok_or_else(|| format!("HOOKONCE_LOG: {level} is not error, warn, info or debug"))?;
    }
    if let Some(ttl) = vars.get("HOOKONCE_KEY_TTL_SECS") {
        let ttl = ttl
            .as_str()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| format!("HOOKONCE_KEY_TTL_SECS: {ttl} is not a string of seconds"))?;
        KeyPolicy { ttl: Seconds(ttl) }
            .validate()
            .map_err(|e| format!("HOOKONCE_KEY_TTL_SECS: {e}"))?;
    }
    if config.get("main").is_some() {
        for key in [
            "main",
            "compatibility_date",
            "assets",
            "durable_objects",
            "migrations",
            "observability",
        ] {
            if config.get(key) != wrangler.get(key) {
                return Err(format!(
                    "{key} differs from this repository's wrangler.toml"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn the_readmes_configuration_examples_load_as_sources() {
    let page = readme::text();
    let repo_toml = fs::read_to_string(repo_root().join("wrangler.toml")).expect("wrangler.toml");
    let wrangler = as_json(&repo_toml).expect("this repository's wrangler.toml");
    let blocks = readme::fenced(&page, "toml");
    assert!(
        blocks.iter().any(|b| b.contains("\nmain = ")),
        "the README shows a complete wrangler.toml"
    );
    let mut broken = Vec::new();
    // An appended block runs under `make dev`, with `.dev.vars`; a standalone one is
    // deployed, where no private destination is allowed.
    let dev = dev_vars();
    let dev = Policy::from_var(dev.get(ALLOW_PRIVATE_VAR).map(String::as_str)).unwrap();
    for (i, block) in blocks.iter().enumerate() {
        let (text, policy) = if block.starts_with(APPEND) {
            (format!("{repo_toml}\n{block}"), dev)
        } else {
            ((*block).to_owned(), Policy::default())
        };
        let checked = as_json(&text).and_then(|config| {
            if config["vars"]["HOOKONCE_SOURCES"].is_null() {
                return Err("configures no source".to_owned());
            }
            load(&config, &wrangler, policy)
        });
        if let Err(e) = checked {
            let first = block.lines().find(|l| !l.starts_with('#')).unwrap_or("");
            broken.push(format!("block {} (`{first}`): {e}", i + 1));
        }
    }
    assert!(
        broken.is_empty(),
        "README.md's ```toml examples that hookonce would refuse:\n{}",
        broken.join("\n")
    );
}

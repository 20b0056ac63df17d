//! Loads the sources from `HOOKONCE_SOURCES` and their secrets, each destination's signing
//! secrets among them, once per isolate.
//!
//! A configuration error is kept and answered on every request (500): hookonce never falls
//! back to accepting unsigned input. The error names fields and bindings, so it is logged
//! once per isolate (`configuration_invalid`) and only the admin's answers carry it;
//! everyone else is told that the deployment is misconfigured. A source's secret binding
//! that is unset while another of its bindings is set is logged once per isolate too, as
//! a warning naming the source and the binding (`secret_binding_missing`).

use std::cell::RefCell;
use std::rc::Rc;

use hookonce_core::config::{ConfigError, Destination, DestinationConfig, SourceConfig, Sources};
use hookonce_core::feed::FeedConfig;
use hookonce_core::idempotency::KeyPolicy;
use hookonce_core::log::{self, LogLevel, LogRecord};
use hookonce_core::ops::OpsConfig;
use hookonce_core::outbound::{self, Policy};
use hookonce_core::outbox::SigningKey;
use hookonce_core::publish::{self, Token};
use hookonce_core::small_map::SmallMap;
use hookonce_core::time::Seconds;
use hookonce_core::verify::{Scheme, Secret, Verifier};
use worker::{js_sys, wasm_bindgen::JsValue, Env, Request, Response};

use crate::{http, logs, problem};

/// A source, ready to verify.
pub struct Source {
    pub config: SourceConfig,
    pub verifier: Verifier,
    /// The newest secret, for re-signing a stored event on replay.
    pub signer: Secret,
    /// Each destination's signing secrets, newest first, by destination name.
    pub destination_secrets: SmallMap<String, Vec<Secret>>,
}

/// Everything the adapter needs from its configuration.
pub struct Loaded {
    pub sources: SmallMap<String, Source>,
    /// The publish API's Standard Webhooks secret, for signing published messages.
    pub publish_secret: Option<Secret>,
    /// What the outbound guard allows (`HOOKONCE_ALLOW_PRIVATE_DESTINATIONS`).
    pub outbound: Policy,
    /// Bearer token for the read and admin APIs.
    pub admin_token: Option<String>,
    /// Bearer tokens for the publish API (scopes of Idempotency-Key), each with the hosts
    /// its messages may go to, if it names any.
    pub publish_tokens: Vec<Token>,
    /// How long publish Idempotency-Keys are kept (`HOOKONCE_KEY_TTL_SECS`, default 24 h).
    pub key_policy: KeyPolicy,
    /// How each source's feed is bounded (`HOOKONCE_FEED`).
    pub feed: FeedConfig,
    /// What is logged (`HOOKONCE_LOG`: error, info or debug; default info).
    pub log: LogLevel,
    /// The operational webhooks' settings (`HOOKONCE_OPS`), when they are on; their source
    /// is then among `sources`, as `ops::SOURCE`.
    pub ops: Option<OpsConfig>,
}

impl Loaded {
    pub fn source(&self, name: &str) -> Option<&Source> {
        self.sources.get(name)
    }

    /// The secrets that sign `source`'s rows of `key`, newest first.
    pub fn signers(&self, source: &str, key: SigningKey) -> Option<&[Secret]> {
        match key {
            SigningKey::Destination(name) => self
                .source(source)?
                .destination_secrets
                .get(name)
                .map(Vec::as_slice),
            SigningKey::Publish => self.publish_secret.as_ref().map(std::slice::from_ref),
        }
    }
}

/// What a caller other than the admin is told when the configuration is broken.
const MISCONFIGURED: &str =
    "this deployment is misconfigured; its logs say what to fix (configuration_invalid)";

/// The 500 `configuration` problem for a caller other than the admin: no field or binding.
pub fn misconfigured() -> worker::Result<Response> {
    problem::CONFIG.respond(MISCONFIGURED)
}

/// The 500 `configuration` problem for `req`: with `error`, which names the field, if it
/// carries the admin token (read from its binding, as the configuration is not usable);
/// else [`misconfigured`].
pub fn misconfigured_for(req: &Request, env: &Env, error: &str) -> worker::Result<Response> {
    match carries_admin_token(req, env) {
        true => problem::CONFIG.respond(error),
        false => misconfigured(),
    }
}

/// Whether `req` carries the admin token, read from its binding: for answers given while
/// the configuration is not usable.
pub fn carries_admin_token(req: &Request, env: &Env) -> bool {
    text(env, ADMIN_TOKEN).is_some_and(|token| http::bearer(req, [token.as_str()]).is_some())
}

/// The binding of the read and admin APIs' bearer token.
const ADMIN_TOKEN: &str = "HOOKONCE_ADMIN_TOKEN";

/// The configuration and the named source, or the problem response that says why there is
/// none (500 for a bad configuration, 404 for an unknown source).
pub fn lookup<'a>(
    loaded: &'a Result<Loaded, String>,
    name: &str,
) -> Result<(&'a Loaded, &'a Source), worker::Result<Response>> {
    let loaded = loaded.as_ref().map_err(|_| misconfigured())?;
    let source = loaded
        .source(name)
        .ok_or_else(|| problem::UNKNOWN_SOURCE.respond(format!("no source named {name}")))?;
    Ok((loaded, source))
}

thread_local! {
    static CACHE: RefCell<Option<Rc<Result<Loaded, String>>>> = const { RefCell::new(None) };
}

/// The configuration, parsed on first use in this isolate.
pub fn load(env: &Env) -> Rc<Result<Loaded, String>> {
    if let Some(hit) = CACHE.with(|c| c.borrow().clone()) {
        return hit;
    }
    let mut warnings = Vec::new();
    let parsed = parse(env, &mut warnings);
    let threshold = match &parsed {
        Ok(l) => l.log,
        Err(e) => {
            logs::emit(LogLevel::Error, log::configuration(e));
            LogLevel::Error
        }
    };
    for warning in warnings {
        logs::emit(threshold, warning);
    }
    let loaded = Rc::new(parsed);
    CACHE.with(|c| *c.borrow_mut() = Some(loaded.clone()));
    loaded
}

/// A JSON variable (`[vars]` table), read as its JSON text: serde_json parses it, where
/// workers-rs's `object_var` would bring serde-wasm-bindgen's own `Value` deserializer
/// into the wasm for these two reads. `None` if it is unset or not JSON.
fn object_var(env: &Env, name: &str) -> Option<serde_json::Value> {
    let raw = js_sys::Reflect::get(env, &JsValue::from_str(name)).ok()?;
    // `JSON.stringify(undefined)` is `undefined`, not a string: an unset variable is `None`.
    let text = js_sys::JSON::stringify(&raw).ok()?.as_string()?;
    serde_json::from_str(&text).ok()
}

/// A text binding: a secret in production, a plain var from `.dev.vars` locally.
pub fn text(env: &Env, name: &str) -> Option<String> {
    env.secret(name)
        .map(|s| s.to_string())
        .or_else(|_| env.var(name).map(|v| v.to_string()))
        .ok()
        .filter(|s| !s.is_empty())
}

/// Parses the configuration; `warnings` gets what to log about one that works.
fn parse(env: &Env, warnings: &mut Vec<LogRecord>) -> Result<Loaded, String> {
    let raw = object_var(env, "HOOKONCE_SOURCES")
        .ok_or_else(|| "HOOKONCE_SOURCES: missing or not an object of sources".to_string())?;
    let sources = Sources::from_json(&raw).map_err(|e: ConfigError| e.to_string())?;
    let outbound = Policy::from_var(text(env, outbound::ALLOW_PRIVATE_VAR).as_deref())?;
    sources
        .check_outbound(outbound)
        .map_err(|e| e.to_string())?;
    let mut out = SmallMap::new();
    for config in sources.iter() {
        out.insert(config.name.clone(), source(env, config, warnings)?);
    }
    let ops = match object_var(env, "HOOKONCE_OPS") {
        None if text(env, "HOOKONCE_OPS").is_some() => {
            return Err("HOOKONCE_OPS: expected an object".to_owned())
        }
        None => None,
        Some(v) => {
            let (ops, json) = OpsConfig::from_json(&v)?;
            if text(env, &ops.secret).is_none() {
                return Err(format!(
                    "HOOKONCE_OPS.secret: binding {} must be set to sign alerts",
                    ops.secret
                ));
            }
            let checked = SourceConfig::from_json(hookonce_core::ops::SOURCE, &json)
                .map_err(|e| e.to_string())
                .and_then(|config| {
                    Sources::check_one(&config, outbound).map_err(|e| e.to_string())?;
                    source(env, &config, warnings)
                });
            let loaded = checked.map_err(|e| OpsConfig::field_of(&e))?;
            out.insert(hookonce_core::ops::SOURCE.to_owned(), loaded);
            Some(ops)
        }
    };
    let publish_tokens = match text(env, "HOOKONCE_PUBLISH_TOKENS") {
        Some(t) => publish::tokens(&t).map_err(|e| e.to_string())?,
        None => Vec::new(),
    };
    let publish_secret = match text(env, "HOOKONCE_PUBLISH_SECRET") {
        Some(s) => {
            if text(env, "HOOKONCE_FORWARD_SECRET").is_some_and(|f| f.trim() == s.trim()) {
                return Err(
                    "HOOKONCE_PUBLISH_SECRET: must differ from HOOKONCE_FORWARD_SECRET, \
                            so a published message never verifies as a forwarded event"
                        .to_owned(),
                );
            }
            Some(
                Scheme::StandardWebhooks
                    .parse_secret(s.trim())
                    .map_err(|e| format!("HOOKONCE_PUBLISH_SECRET: {e}"))?,
            )
        }
        None if publish_tokens.is_empty() => None,
        None => {
            return Err(
                "HOOKONCE_PUBLISH_SECRET: must be set to sign published messages \
                        when HOOKONCE_PUBLISH_TOKENS is"
                    .to_owned(),
            )
        }
    };
    let mut key_policy = KeyPolicy::default();
    if let Some(ttl) = text(env, "HOOKONCE_KEY_TTL_SECS") {
        key_policy.ttl =
            ttl.trim().parse().map(Seconds).map_err(|_| {
                "HOOKONCE_KEY_TTL_SECS: expected a whole number of seconds".to_string()
            })?;
        key_policy
            .validate()
            .map_err(|e| format!("HOOKONCE_KEY_TTL_SECS: {e}"))?;
    }
    let feed = match object_var(env, "HOOKONCE_FEED") {
        Some(v) => FeedConfig::from_json(&v).map_err(|e| e.to_string())?,
        None if text(env, "HOOKONCE_FEED").is_none() => FeedConfig::default(),
        None => return Err("HOOKONCE_FEED: expected an object".to_owned()),
    };
    let log = match text(env, "HOOKONCE_LOG") {
        None => LogLevel::default(),
        Some(l) => LogLevel::parse(&l)
            .ok_or_else(|| format!("HOOKONCE_LOG: {l:?} is not one of error, warn, info, debug"))?,
    };
    Ok(Loaded {
        feed,
        log,
        key_policy,
        sources: out,
        publish_secret,
        outbound,
        admin_token: text(env, ADMIN_TOKEN),
        ops,
        publish_tokens,
    })
}

/// One source, ready to verify: its secrets read, each destination's binding found and
/// signing secrets read; `warnings` gets its unset secret bindings while another is set.
fn source(
    env: &Env,
    config: &SourceConfig,
    warnings: &mut Vec<LogRecord>,
) -> Result<Source, String> {
    let mut secrets = Vec::new();
    let mut unset = Vec::new();
    for binding in &config.secrets {
        let Some(value) = text(env, binding) else {
            unset.push(log::secret_missing(&config.name, binding));
            continue;
        };
        let secret = config
            .scheme
            .parse_secret(value.trim())
            .map_err(|e| format!("{}.secrets: binding {binding}: {e}", config.name))?;
        secrets.push(secret);
    }
    // With none set, the source is a configuration error below, which says so.
    if !secrets.is_empty() {
        warnings.append(&mut unset);
    }
    let Some(signer) = secrets.first().cloned() else {
        return Err(format!(
            "{}.secrets: none of the bindings {:?} is set",
            config.name, config.secrets
        ));
    };
    let verifier =
        Verifier::new(config.scheme.clone(), secrets, config.tolerance).map_err(|_| {
            format!(
                "{}.secrets: none of the bindings {:?} is set",
                config.name, config.secrets
            )
        })?;
    let mut destination_secrets = SmallMap::new();
    for d in &config.destinations {
        binding_exists(env, d.forward.destination.as_deref())
            .map_err(|e| format!("{}.{e}", d.path))?;
        destination_secrets.insert(d.name.clone(), signing_secrets(env, d)?);
    }
    Ok(Source {
        config: config.clone(),
        verifier,
        signer,
        destination_secrets,
    })
}

/// A destination's signing secrets, newest first: every binding it lists must hold a
/// Standard Webhooks secret, or the configuration names the field.
fn signing_secrets(env: &Env, d: &DestinationConfig) -> Result<Vec<Secret>, String> {
    d.secrets
        .iter()
        .map(|binding| {
            let value = text(env, binding).ok_or_else(|| match d.path.ends_with(".forward") {
                true => format!("{}: {binding} must be set to sign forwarded events", d.path),
                false => format!("{}.secrets: binding {binding} is not set", d.path),
            })?;
            Scheme::StandardWebhooks
                .parse_secret(value.trim())
                .map_err(|e| {
                    format!(
                        "{}.secrets: binding {binding}: {e} (expected whsec_ and base64)",
                        d.path
                    )
                })
        })
        .collect()
}

/// Whether the binding a destination names is in the environment, as the kind it must be:
/// only the runtime knows, so a missing one fails the configuration here, at load.
fn binding_exists(env: &Env, destination: Destination<&str>) -> Result<(), String> {
    let (found, name, kind, table) = match destination {
        Destination::Url(_) => return Ok(()),
        Destination::Service(name) => (
            env.service(name).is_ok(),
            name,
            "service binding",
            "[[services]]",
        ),
        Destination::Queue(name) => (
            env.queue(name).is_ok(),
            name,
            "queue producer binding",
            "[[queues.producers]]",
        ),
    };
    if found {
        return Ok(());
    }
    Err(format!(
        "{}: this Worker has no {kind} named {name} ({table} in wrangler.toml)",
        destination.field()
    ))
}

//! A source's named destinations (`destinations.<name>`): each is a [`Forward`] with the
//! event types it takes and the secrets that sign what it is sent. A source's single
//! `forward` table is the destination [`DEFAULT_DESTINATION`], taking every type, signed
//! with [`DEFAULT_SIGNING_SECRET`].

use serde_json::Value;

use super::forward::{forward_fields, is_binding_name, parse_forward};
use super::{ConfigError, FieldError, Forward, ForwardMode, Reader};
use crate::filter::Filter;

/// The name of the destination a source's `forward` table configures, and of outbox rows
/// that name none (written before sources had several).
pub const DEFAULT_DESTINATION: &str = "default";

/// The binding of the secret that signs a destination's events unless it lists its own.
pub const DEFAULT_SIGNING_SECRET: &str = "HOOKONCE_FORWARD_SECRET";

/// Every event type: a destination's `types` unless it lists its own.
pub const ALL_TYPES: &str = "*";

/// One named destination of a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DestinationConfig {
    /// Its name: 1 to 32 of `[a-z0-9_-]`.
    pub name: String,
    /// The configuration path it was read from, for errors that name its fields:
    /// `<source>.destinations.<name>`, or `<source>.forward`.
    pub path: String,
    /// Where, how, and on what schedule its events go.
    pub forward: Forward,
    /// The event-type patterns it takes, as configured (`types`; default `["*"]`).
    pub types: Vec<String>,
    /// Those patterns, parsed: whether it takes an event of a type.
    pub filter: Filter,
    /// The bindings of the Standard Webhooks secrets that sign what it is sent, newest
    /// first (`secrets`): while two are listed, each message carries both signatures.
    pub secrets: Vec<String>,
}

/// Whether `name` may name a destination: it is stored with each outbox row.
fn is_destination_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// Reads a source's `forward` or `destinations` (not both), in name order; at most one
/// of them is synchronous.
pub(super) fn parse_destinations(r: &mut Reader) -> Result<Vec<DestinationConfig>, ConfigError> {
    let (forward, table) = (r.get("forward"), r.get("destinations"));
    let table = match (forward, table) {
        (None, None) => return Ok(Vec::new()),
        (Some(_), Some(_)) => {
            return Err(r.invalid(
                "forward",
                "not together with destinations: move forward into destinations.default",
            ))
        }
        (Some(v), None) => {
            let path = r.path("forward");
            return Ok(vec![DestinationConfig {
                name: DEFAULT_DESTINATION.to_owned(),
                forward: parse_forward(&path, v)?,
                path,
                types: vec![ALL_TYPES.to_owned()],
                filter: Filter::all(),
                secrets: vec![DEFAULT_SIGNING_SECRET.to_owned()],
            }]);
        }
        (None, Some(table)) => table,
    };
    let at = r.path("destinations");
    let map = table
        .as_object()
        .ok_or_else(|| ConfigError::NotAnObject(at.clone()))?;
    let mut out: Vec<DestinationConfig> = Vec::with_capacity(map.len());
    for (name, value) in map {
        let path = format!("{at}.{name}");
        if !is_destination_name(name) {
            return Err(ConfigError::Invalid(
                path,
                FieldError::Value("destination names are 1-32 of [a-z0-9_-]"),
            ));
        }
        let destination = parse_destination(name, path, value)?;
        let sync = |d: &DestinationConfig| d.forward.mode == ForwardMode::Sync;
        if sync(&destination) && out.iter().any(sync) {
            return Err(ConfigError::Invalid(
                format!("{}.mode", destination.path),
                FieldError::Value("at most one destination of a source may be sync"),
            ));
        }
        out.push(destination);
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn parse_destination(
    name: &str,
    path: String,
    value: &Value,
) -> Result<DestinationConfig, ConfigError> {
    let mut r = Reader::new(path.clone(), value)?;
    let forward = forward_fields(&path, &mut r)?;
    let types = names(&mut r, "types", |_| true)?.unwrap_or_else(|| vec![ALL_TYPES.to_owned()]);
    let filter = Filter::parse(types.iter().map(String::as_str))
        .map_err(|e| r.refused("types", FieldError::Pattern(e)))?;
    let secrets = names(&mut r, "secrets", is_binding_name)?
        .unwrap_or_else(|| vec![DEFAULT_SIGNING_SECRET.to_owned()]);
    r.finish()?;
    Ok(DestinationConfig {
        name: name.to_owned(),
        path,
        forward,
        types,
        filter,
        secrets,
    })
}

/// A non-empty list of strings that each pass `valid`, if the field is there.
fn names(
    r: &mut Reader,
    key: &'static str,
    valid: fn(&str) -> bool,
) -> Result<Option<Vec<String>>, ConfigError> {
    let why = match key {
        "types" => "expected a non-empty list of event-type patterns",
        _ => "expected a non-empty list of secret binding names",
    };
    match r.get(key) {
        None => Ok(None),
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|v| v.as_str().filter(|s| valid(s)).map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(Some)
            .ok_or_else(|| r.invalid(key, why)),
        Some(_) => Err(r.invalid(key, why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Destination, SourceConfig};
    use serde_json::json;

    fn source(extra: Value) -> Result<SourceConfig, ConfigError> {
        let mut v = json!({"scheme": "stripe", "secrets": ["STRIPE_SECRET"]});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        SourceConfig::from_json("stripe", &v)
    }

    fn error(extra: Value) -> String {
        source(extra).expect_err("refused").to_string()
    }

    #[test]
    fn named_destinations_parse_in_name_order_with_their_types_and_secrets() {
        let s = source(json!({"destinations": {
            "billing": {"url": "https://billing.example/hooks", "types": ["invoice.*"],
                        "secrets": ["BILLING_SECRET", "BILLING_SECRET_OLD"], "timeout_secs": 5},
            "analytics": {"queue": "ANALYTICS"},
        }}))
        .unwrap();
        let names: Vec<&str> = s.destinations.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["analytics", "billing"]);
        let analytics = s.destination("analytics").unwrap();
        assert_eq!(
            analytics.forward.destination,
            Destination::Queue("ANALYTICS".into())
        );
        assert_eq!(analytics.types, ["*"]);
        assert_eq!(analytics.secrets, ["HOOKONCE_FORWARD_SECRET"]);
        assert_eq!(analytics.path, "stripe.destinations.analytics");
        let billing = s.destination("billing").unwrap();
        assert_eq!(billing.types, ["invoice.*"]);
        assert!(
            billing.filter.admits("invoice.paid") && !billing.filter.admits("customer.created")
        );
        assert!(analytics.filter.admits("customer.created"));
        assert_eq!(billing.secrets, ["BILLING_SECRET", "BILLING_SECRET_OLD"]);
        assert_eq!(billing.forward.timeout.0, 5);
        assert_eq!(s.sync_destination(), None);
    }

    #[test]
    fn a_single_forward_is_the_default_destination_of_every_type_and_the_old_secret() {
        let s = source(json!({"forward": {"service": "APP", "mode": "sync"}})).unwrap();
        let d = s.destination(DEFAULT_DESTINATION).unwrap();
        assert_eq!(
            (d.types.as_slice(), d.secrets.as_slice(), d.path.as_str()),
            (
                &["*".to_owned()][..],
                &["HOOKONCE_FORWARD_SECRET".to_owned()][..],
                "stripe.forward"
            )
        );
        assert_eq!(s.sync_destination(), Some(d));
        assert!(source(json!({})).unwrap().destinations.is_empty());
    }

    #[test]
    fn forward_together_with_destinations_says_to_move_it() {
        let e = error(json!({"forward": {"queue": "Q"}, "destinations": {"a": {"queue": "Q"}}}));
        assert_eq!(
            e,
            "stripe.forward: not together with destinations: move forward into destinations.default"
        );
    }

    #[test]
    fn each_bad_destination_names_its_field() {
        let d = |v: Value| error(json!({ "destinations": v }));
        assert_eq!(
            d(json!({"billing": {"url": "https://b.example/", "typo": 1}})),
            "stripe.destinations.billing.typo: unknown field"
        );
        assert_eq!(
            d(json!({"billing": {"types": ["*"]}})),
            "stripe.destinations.billing: expected one of url, service or queue"
        );
        assert_eq!(
            d(
                json!({"a": {"service": "A", "mode": "sync"}, "b": {"url": "https://b.example/", "mode": "sync"}})
            ),
            "stripe.destinations.b.mode: at most one destination of a source may be sync"
        );
        for bad in [json!([]), json!("invoice.*"), json!([7])] {
            assert_eq!(
                d(json!({"billing": {"queue": "Q", "types": bad}})),
                "stripe.destinations.billing.types: expected a non-empty list of event-type patterns"
            );
        }
        for bad in ["inv*", "", "a..b", "!*"] {
            let e = d(json!({"billing": {"queue": "Q", "types": ["invoice.paid", bad]}}));
            assert!(
                e.starts_with("stripe.destinations.billing.types: "),
                "{bad:?}: {e}"
            );
        }
        for bad in [json!([]), json!(["not-a-binding"]), json!("S")] {
            assert_eq!(
                d(json!({"billing": {"queue": "Q", "secrets": bad}})),
                "stripe.destinations.billing.secrets: expected a non-empty list of secret binding names"
            );
        }
        for bad in ["", "Billing", "a.b", &"x".repeat(33)] {
            assert_eq!(
                d(json!({ bad: {"queue": "Q"} })),
                format!("stripe.destinations.{bad}: destination names are 1-32 of [a-z0-9_-]")
            );
        }
        assert!(d(json!({"billing": {"url": "ftp://x"}}))
            .starts_with("stripe.destinations.billing.url:"));
        assert_eq!(d(json!([])), "stripe.destinations: expected an object");
    }
}

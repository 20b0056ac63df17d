//! How a source's feed is bounded: the `HOOKONCE_FEED` variable, with its defaults and
//! per-source overrides.

use serde_json::Value;

use crate::config::{ConfigError, FieldError};
use crate::small_map::SmallMap;
use crate::time::Seconds;

/// Rows a source's feed keeps by default.
pub const DEFAULT_KEEP: u32 = 1_000;
/// How long a feed row is kept by default (7 days).
pub const DEFAULT_MAX_AGE: Seconds = Seconds(7 * 86_400);
/// Rejected requests recorded per source and minute by default; the rest are counted.
pub const DEFAULT_REJECTED_PER_MINUTE: u32 = 10;
/// The most rows a feed may be configured to keep.
pub const MAX_KEEP: u32 = 100_000;
/// The feed prunes once every this many rows, so a row costs one insert, not a delete too.
pub const PRUNE_EVERY: i64 = 32;
/// A rejected row's reason is cut to this many bytes.
pub const MAX_REASON: usize = 200;

/// How a source's feed is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeedPolicy {
    /// At most this many rows (plus up to [`PRUNE_EVERY`] between prunes).
    pub keep: u32,
    /// Rows older than this are pruned; `None`: only `keep` bounds the feed.
    pub max_age: Option<Seconds>,
    /// Rejected requests recorded per minute; more are counted, not stored.
    pub rejected_per_minute: u32,
}

impl Default for FeedPolicy {
    fn default() -> Self {
        FeedPolicy {
            keep: DEFAULT_KEEP,
            max_age: Some(DEFAULT_MAX_AGE),
            rejected_per_minute: DEFAULT_REJECTED_PER_MINUTE,
        }
    }
}

/// The `HOOKONCE_FEED` variable: a default policy and per-source overrides.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeedConfig {
    default: FeedPolicy,
    by_source: SmallMap<String, FeedPolicy>,
}

const VAR: &str = "HOOKONCE_FEED";

fn policy_from(at: &str, v: &Value, base: FeedPolicy) -> Result<FeedPolicy, ConfigError> {
    let obj = v.as_object().ok_or_else(|| {
        ConfigError::Invalid(at.to_owned(), FieldError::Value("expected an object"))
    })?;
    let mut p = base;
    for (k, v) in obj {
        let path = format!("{at}.{k}");
        let n = || {
            v.as_u64().ok_or_else(|| {
                ConfigError::Invalid(path.clone(), FieldError::Value("expected a whole number"))
            })
        };
        match k.as_str() {
            "keep" => {
                p.keep = u32::try_from(n()?)
                    .ok()
                    .filter(|k| (1..=MAX_KEEP).contains(k))
                    .ok_or_else(|| {
                        ConfigError::Invalid(
                            path.clone(),
                            FieldError::Value("expected 1 to 100000"),
                        )
                    })?;
            }
            // 0: no age limit, only `keep`.
            "max_age_secs" => p.max_age = Some(Seconds(n()?)).filter(|s| s.0 > 0),
            "rejected_per_minute" => {
                p.rejected_per_minute = u32::try_from(n()?)
                    .ok()
                    .filter(|r| *r <= 1_000)
                    .ok_or_else(|| {
                        ConfigError::Invalid(path.clone(), FieldError::Value("expected 0 to 1000"))
                    })?;
            }
            "sources" if at == VAR => {}
            _ => return Err(ConfigError::Unknown(path)),
        }
    }
    Ok(p)
}

impl FeedConfig {
    /// Reads `{"keep": N, "max_age_secs": T, "rejected_per_minute": R, "sources": {name: {…}}}`;
    /// every field is optional.
    pub fn from_json(v: &Value) -> Result<FeedConfig, ConfigError> {
        let default = policy_from(VAR, v, FeedPolicy::default())?;
        let mut by_source = SmallMap::new();
        if let Some(sources) = v.get("sources") {
            let at = format!("{VAR}.sources");
            let sources = sources.as_object().ok_or_else(|| {
                ConfigError::Invalid(at.clone(), FieldError::Value("expected an object"))
            })?;
            for (name, p) in sources {
                by_source.insert(
                    name.clone(),
                    policy_from(&format!("{at}.{name}"), p, default)?,
                );
            }
        }
        Ok(FeedConfig { default, by_source })
    }

    /// The policy for `source`.
    pub fn for_source(&self, source: &str) -> FeedPolicy {
        self.by_source.get(source).copied().unwrap_or(self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_config_has_defaults_per_source_overrides_and_named_errors() {
        let c = FeedConfig::from_json(&json!({
            "keep": 500, "sources": { "cockpit": { "max_age_secs": 0, "rejected_per_minute": 2 } }
        }))
        .unwrap();
        assert_eq!(c.for_source("other").keep, 500);
        let p = c.for_source("cockpit");
        assert_eq!((p.keep, p.max_age, p.rejected_per_minute), (500, None, 2));
        assert_eq!(
            FeedConfig::from_json(&json!({})).unwrap(),
            FeedConfig::default()
        );
        assert_eq!(
            FeedConfig::from_json(&json!({ "keep": 0 })),
            Err(ConfigError::Invalid(
                "HOOKONCE_FEED.keep".into(),
                FieldError::Value("expected 1 to 100000")
            ))
        );
        assert_eq!(
            FeedConfig::from_json(&json!({ "sources": { "a": { "kep": 1 } } })),
            Err(ConfigError::Unknown("HOOKONCE_FEED.sources.a.kep".into()))
        );
    }
}

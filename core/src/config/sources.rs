//! All sources by name, as `HOOKONCE_SOURCES` configures them.

use serde_json::Value;

use crate::outbound::{self, Policy};
use crate::small_map::SmallMap;

use super::{ConfigError, Destination, FieldError, SourceConfig};

/// The name reserved for the operational webhooks' own source (`ops::SOURCE`).
pub const OPS_SOURCE: &str = "hookonce-ops";

/// All sources by name.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Sources(SmallMap<String, SourceConfig>);

impl Sources {
    /// Parses `{ "<name>": { …source… }, … }`.
    pub fn from_json(value: &Value) -> Result<Sources, ConfigError> {
        let map = value
            .as_object()
            .ok_or_else(|| ConfigError::NotAnObject("sources".into()))?;
        let mut out = SmallMap::new();
        for (name, source) in map {
            let valid_name = !name.is_empty()
                && name.len() <= 64
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !valid_name {
                return Err(ConfigError::Invalid(
                    name.clone(),
                    FieldError::Value("source names are 1-64 of [A-Za-z0-9_-]"),
                ));
            }
            if name == OPS_SOURCE {
                return Err(ConfigError::Invalid(
                    name.clone(),
                    FieldError::Value("reserved for operational webhooks (HOOKONCE_OPS)"),
                ));
            }
            out.insert(name.clone(), SourceConfig::from_json(name, source)?);
        }
        Ok(Sources(out))
    }

    /// The source called `name`.
    pub fn get(&self, name: &str) -> Option<&SourceConfig> {
        self.0.get(name)
    }

    /// Every source, by name.
    pub fn iter(&self) -> impl Iterator<Item = &SourceConfig> {
        self.0.values()
    }

    /// Every configured URL destination through the outbound guard: the first one it
    /// refuses, with its field.
    pub fn check_outbound(&self, policy: Policy) -> Result<(), ConfigError> {
        self.iter().try_for_each(|s| Sources::check_one(s, policy))
    }

    /// One source's URL destinations through the outbound guard, as [`Sources::check_outbound`].
    pub fn check_one(source: &SourceConfig, policy: Policy) -> Result<(), ConfigError> {
        for d in &source.destinations {
            if let Destination::Url(url) = &d.forward.destination {
                outbound::check(url, policy, None)
                    .map_err(|r| ConfigError::Destination(format!("{}.url", d.path), r))?;
            }
        }
        Ok(())
    }
}

//! Reads one JSON object of the configuration: each field by name, with its path for
//! errors, and every key it was not asked for refused as a typo.

use serde_json::{Map, Value};

use crate::time::Seconds;

use super::{ConfigError, FieldError};

/// Reads fields of one JSON object, remembering the path for errors and which keys were used.
pub(super) struct Reader<'a> {
    at: String,
    map: &'a Map<String, Value>,
    used: Vec<&'static str>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(at: String, value: &'a Value) -> Result<Self, ConfigError> {
        let map = value
            .as_object()
            .ok_or_else(|| ConfigError::NotAnObject(at.clone()))?;
        Ok(Reader {
            at,
            map,
            used: Vec::new(),
        })
    }

    pub(super) fn path(&self, key: &str) -> String {
        format!("{}.{key}", self.at)
    }

    pub(super) fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.used.push(key);
        self.map.get(key).filter(|v| !v.is_null())
    }

    pub(super) fn invalid(&self, key: &str, why: &'static str) -> ConfigError {
        self.refused(key, FieldError::Value(why))
    }

    pub(super) fn refused(&self, key: &str, why: FieldError) -> ConfigError {
        ConfigError::Invalid(self.path(key), why)
    }

    pub(super) fn string(&mut self, key: &'static str) -> Result<Option<&'a str>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.invalid(key, "expected a string")),
        }
    }

    pub(super) fn seconds(&mut self, key: &'static str) -> Result<Option<Seconds>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .map(|n| Some(Seconds(n)))
                .ok_or_else(|| self.invalid(key, "expected a whole number of seconds")),
        }
    }

    /// Refuses keys that no `get` asked for: a typo must not silently become a default.
    pub(super) fn finish(self) -> Result<(), ConfigError> {
        match self.map.keys().find(|k| !self.used.contains(&k.as_str())) {
            Some(k) => Err(ConfigError::Unknown(self.path(k))),
            None => Ok(()),
        }
    }
}

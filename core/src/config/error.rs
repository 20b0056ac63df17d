//! What a configuration error says: the field, and why ([`FieldError`]).

use std::fmt;

use crate::custom::SpecError;
use crate::filter::PatternError;
use crate::outbound::Refusal;
use crate::protect::SettingsError;
use crate::retention::{RetentionError, MIN_RETENTION};
use crate::retry::ScheduleError;

/// A configuration problem, naming the field as `source.path`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// The whole value is not a JSON object of sources.
    NotAnObject(String),
    /// A required field is absent.
    Missing(String),
    /// A field is present but wrong: its path, and why.
    Invalid(String, FieldError),
    /// A field hookonce does not know (likely a typo).
    Unknown(String),
    /// A destination the outbound guard refuses.
    Destination(String, Refusal),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NotAnObject(at) => write!(f, "{at}: expected an object"),
            ConfigError::Missing(at) => write!(f, "{at}: missing"),
            ConfigError::Invalid(at, why) => write!(f, "{at}: {why}"),
            ConfigError::Unknown(at) => write!(f, "{at}: unknown field"),
            ConfigError::Destination(at, refusal) => write!(f, "{at}: {refusal}"),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Invalid(_, why) => why.cause(),
            ConfigError::Destination(_, refusal) => Some(refusal),
            _ => None,
        }
    }
}

/// Why a field's value is refused: in words, or the typed error of the part that refused it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldError {
    /// The value is not one the field takes; the text says what it takes.
    Value(&'static str),
    /// A retention period the retention rules refuse.
    Retention(RetentionError),
    /// A retry schedule or window the schedule refuses.
    Schedule(ScheduleError),
    /// An HMAC description (its template, its header names) the spec refuses.
    Spec(SpecError),
    /// A destination's `types` the filter refuses.
    Pattern(PatternError),
    /// A destination's breaker or cap setting out of range.
    Protect(SettingsError),
}

impl FieldError {
    fn cause(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FieldError::Value(_) => None,
            FieldError::Retention(e) => Some(e),
            FieldError::Schedule(e) => Some(e),
            FieldError::Spec(e) => Some(e),
            FieldError::Pattern(e) => Some(e),
            FieldError::Protect(e) => Some(e),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldError::Value(why) => f.write_str(why),
            FieldError::Retention(RetentionError::TooShort(_)) => {
                write!(f, "must be at least {} (24 h)", MIN_RETENTION.0)
            }
            FieldError::Schedule(ScheduleError::ZeroWindow | ScheduleError::WindowTooLong) => {
                f.write_str("expected 1 s to 30 days")
            }
            FieldError::Schedule(e) => write!(
                f,
                "expected positive, non-decreasing delays within the window ({e})"
            ),
            FieldError::Spec(e) => e.fmt(f),
            FieldError::Pattern(e) => e.fmt(f),
            // The path already names the field (as configured, which may differ from
            // protect's own name for it): say only what it must be.
            FieldError::Protect(e) => {
                let message = e.to_string();
                f.write_str(
                    message
                        .strip_prefix(e.field())
                        .unwrap_or(&message)
                        .trim_start(),
                )
            }
        }
    }
}

/// A source's `buckets` is not the count its events about no entity are recorded under:
/// another count would send a recorded id to another bucket, which would apply it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketsChanged {
    /// The source.
    pub source: String,
    /// Its configured `buckets`.
    pub configured: u32,
    /// The count its buckets recorded; the one to set back.
    pub recorded: u32,
}

impl fmt::Display for BucketsChanged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let BucketsChanged {
            source,
            configured,
            recorded,
        } = self;
        write!(
            f,
            "{source}.buckets is {configured}, but its events about no entity are recorded in \
             {recorded} buckets: another count would send a recorded id to another bucket and \
             apply it again; set buckets back to {recorded}"
        )
    }
}

impl std::error::Error for BucketsChanged {}

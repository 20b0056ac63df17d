//! Why a webhook or a secret is refused ([`VerifyError`]).

use std::fmt;

/// Why a webhook or a secret was refused. Never carries a secret or an expected signature.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyError {
    /// A required header is absent (its lowercase name).
    MissingHeader(String),
    /// A header is present but unparseable (its lowercase name).
    MalformedHeader(String),
    /// The signed timestamp is further in the past than the tolerance.
    TimestampTooOld,
    /// The signed timestamp is further in the future than the tolerance.
    TimestampInFuture,
    /// No presented signature matches any secret (or none was in a supported version).
    NoSignatureMatches,
    /// A secret is empty or not in the scheme's format.
    MalformedSecret,
    /// A verifier was built without any secret.
    NoSecrets,
}

impl VerifyError {
    /// A stable `snake_case` label for metrics and logs (no header name).
    pub fn reason(&self) -> &'static str {
        match self {
            VerifyError::MissingHeader(_) => "missing_header",
            VerifyError::MalformedHeader(_) => "malformed_header",
            VerifyError::TimestampTooOld => "timestamp_too_old",
            VerifyError::TimestampInFuture => "timestamp_in_future",
            VerifyError::NoSignatureMatches => "no_signature_matches",
            VerifyError::MalformedSecret => "malformed_secret",
            VerifyError::NoSecrets => "no_secrets",
        }
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::MissingHeader(h) => write!(f, "missing header {h}"),
            VerifyError::MalformedHeader(h) => write!(f, "malformed header {h}"),
            VerifyError::TimestampTooOld => {
                f.write_str("timestamp outside the tolerance (too old)")
            }
            VerifyError::TimestampInFuture => {
                f.write_str("timestamp outside the tolerance (in the future)")
            }
            VerifyError::NoSignatureMatches => f.write_str("no signature matches"),
            VerifyError::MalformedSecret => f.write_str("malformed secret"),
            VerifyError::NoSecrets => f.write_str("no secrets configured"),
        }
    }
}

impl std::error::Error for VerifyError {}

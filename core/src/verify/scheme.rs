//! How each provider signs ([`Scheme`]): the headers it reads and signs, its secrets'
//! format, its replay window.

use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::b64::SECRET as SECRET_BASE64;
use crate::custom::HmacSpec;
use crate::time::Seconds;

use super::error::VerifyError;

pub(super) const WEBHOOK_ID: &str = "webhook-id";
pub(super) const WEBHOOK_TIMESTAMP: &str = "webhook-timestamp";
pub(super) const WEBHOOK_SIGNATURE: &str = "webhook-signature";
pub(super) const STRIPE_SIGNATURE: &str = "stripe-signature";
pub(super) const GITHUB_SIGNATURE: &str = "x-hub-signature-256";

/// Prefix Standard Webhooks puts in front of a base64 secret.
const WHSEC_PREFIX: &str = "whsec_";

/// How a provider signs its webhooks.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Scheme {
    /// Standard Webhooks v1 (standardwebhooks.com): `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    #[serde(rename = "standard-webhooks")]
    StandardWebhooks,
    /// Stripe: `Stripe-Signature: t=…,v1=…`.
    #[serde(rename = "stripe")]
    Stripe,
    /// GitHub: `X-Hub-Signature-256: sha256=…`, no timestamp.
    #[serde(rename = "github")]
    GitHub,
    /// Shopify: the preset [`HmacSpec::shopify`].
    #[serde(rename = "shopify")]
    Shopify,
    /// Slack: the preset [`HmacSpec::slack`].
    #[serde(rename = "slack")]
    Slack,
    /// Any other HMAC-SHA256 provider, described by its source's configuration.
    #[serde(skip)]
    Hmac(Box<HmacSpec>),
}

fn shopify() -> &'static HmacSpec {
    static SPEC: OnceLock<HmacSpec> = OnceLock::new();
    SPEC.get_or_init(HmacSpec::shopify)
}

fn slack() -> &'static HmacSpec {
    static SPEC: OnceLock<HmacSpec> = OnceLock::new();
    SPEC.get_or_init(HmacSpec::slack)
}

impl Scheme {
    /// The HMAC description of a generic scheme or a preset; `None` for the native ones.
    pub fn spec(&self) -> Option<&HmacSpec> {
        match self {
            Scheme::Shopify => Some(shopify()),
            Scheme::Slack => Some(slack()),
            Scheme::Hmac(spec) => Some(spec),
            Scheme::StandardWebhooks | Scheme::Stripe | Scheme::GitHub => None,
        }
    }

    /// The headers this scheme's verification reads, so an adapter can copy just these.
    pub fn headers(&self) -> Vec<&str> {
        match self {
            Scheme::StandardWebhooks => vec![WEBHOOK_ID, WEBHOOK_TIMESTAMP, WEBHOOK_SIGNATURE],
            Scheme::Stripe => vec![STRIPE_SIGNATURE],
            Scheme::GitHub => vec![GITHUB_SIGNATURE],
            Scheme::Shopify | Scheme::Slack | Scheme::Hmac(_) => {
                self.spec().map(HmacSpec::headers).unwrap_or_default()
            }
        }
    }

    /// The request headers whose values the signature covers, besides the body (which
    /// every scheme signs). A field read from any other header is unsigned: whoever holds
    /// one signed body can send it again with another value there.
    pub fn signed_headers(&self) -> Vec<&str> {
        match self {
            Scheme::StandardWebhooks => vec![WEBHOOK_ID, WEBHOOK_TIMESTAMP],
            Scheme::Stripe | Scheme::GitHub => Vec::new(),
            Scheme::Shopify | Scheme::Slack | Scheme::Hmac(_) => self
                .spec()
                .map(HmacSpec::signed_headers)
                .unwrap_or_default(),
        }
    }

    /// Parses a secret as this scheme's provider displays it.
    ///
    /// - Standard Webhooks: optional `whsec_` prefix, then standard base64 of the key, padded
    ///   or not.
    /// - Every other scheme: the string's UTF-8 bytes *are* the key (Stripe's `whsec_`
    ///   included).
    pub fn parse_secret(&self, s: &str) -> Result<Secret, VerifyError> {
        let key = match self {
            Scheme::StandardWebhooks => {
                let b64 = s.strip_prefix(WHSEC_PREFIX).unwrap_or(s);
                SECRET_BASE64
                    .decode(b64)
                    .ok_or(VerifyError::MalformedSecret)?
            }
            _ => s.as_bytes().to_vec(),
        };
        // An empty HMAC key is a key anyone can sign with.
        if key.is_empty() {
            return Err(VerifyError::MalformedSecret);
        }
        Ok(Secret(key))
    }

    /// The replay window the provider's own libraries use: 5 minutes wherever a timestamp
    /// is signed (Standard Webhooks, Stripe, Slack); zero where none is (GitHub, Shopify).
    pub fn default_tolerance(&self) -> Seconds {
        match self {
            Scheme::StandardWebhooks | Scheme::Stripe => Seconds(300),
            Scheme::GitHub => Seconds(0),
            _ => match self.spec().and_then(|s| s.timestamp_header.as_ref()) {
                Some(_) => Seconds(300),
                None => Seconds(0),
            },
        }
    }

    /// The name in configuration (`scheme = "…"`).
    pub fn name(&self) -> &'static str {
        match self {
            Scheme::StandardWebhooks => "standard-webhooks",
            Scheme::Stripe => "stripe",
            Scheme::GitHub => "github",
            Scheme::Shopify => "shopify",
            Scheme::Slack => "slack",
            Scheme::Hmac(_) => "hmac",
        }
    }
}

/// An HMAC-SHA256 key (RFC 2104 §3). Never printed: `Debug` shows `Secret(<redacted>)`.
///
/// Deliberately not `PartialEq`: comparing keys is never needed and would not be constant-time.
#[derive(Clone)]
pub struct Secret(pub(super) Vec<u8>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

//! The publish API's own rules: what a message is, where its key lives, what its id is,
//! and what is stored and sent when it is accepted. Request idempotency itself is
//! [`crate::idempotency`]; this module only uses it.

use std::fmt;

use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::idempotency::{Fingerprint, IdempotencyKey, KeyPolicy, KeyState, StoredResponse};
use crate::outbound::{self, HostList, Policy, Refusal};
use crate::time::UnixSeconds;

/// Largest publish body.
pub const MAX_BODY: usize = 1 << 20;
/// The publish route, part of every request's fingerprint.
pub const PATH: &str = "/v1/messages";
/// The `source` column of a published message's outbox row.
pub const SOURCE: &str = "publish";

/// What a publish request says.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Message {
    /// Where to deliver it (http or https).
    pub destination: String,
    /// Its type, 1 to 255 characters.
    pub event_type: String,
    /// Anything JSON; delivered as the envelope's `data`.
    pub payload: Value,
}

/// Why a publish body was refused (400).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PublishError {
    /// Not a JSON object with the three fields; the text says what serde saw.
    NotAMessage(String),
    /// `destination` is not one hookonce may send to.
    Destination(Refusal),
    /// `event_type` is empty or too long.
    EventType,
}

impl fmt::Display for PublishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PublishError::NotAMessage(e) => write!(
                f,
                "the body must be a JSON object with destination, event_type and payload: {e}"
            ),
            PublishError::Destination(r) => write!(f, "destination: {r}"),
            PublishError::EventType => f.write_str("event_type: expected 1 to 255 characters"),
        }
    }
}

impl std::error::Error for PublishError {}

impl Message {
    /// Parses and validates a publish body.
    pub fn parse(body: &[u8]) -> Result<Message, PublishError> {
        let m: Message =
            serde_json::from_slice(body).map_err(|e| PublishError::NotAMessage(e.to_string()))?;
        outbound::check(
            &m.destination,
            Policy {
                allow_private: true,
            },
            None,
        )
        .map_err(PublishError::Destination)?;
        if m.event_type.is_empty() || m.event_type.len() > 255 {
            return Err(PublishError::EventType);
        }
        Ok(m)
    }

    /// Whether the outbound guard lets this message's destination through, for a token
    /// with the list of hosts `allowed` (if it has one).
    pub fn admit(&self, policy: Policy, allowed: Option<&HostList>) -> Result<(), PublishError> {
        outbound::check(&self.destination, policy, allowed).map_err(PublishError::Destination)
    }
}

/// A publish token, and the hosts its messages may go to when it names any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The bearer token.
    pub token: String,
    /// Only these hosts, when set.
    pub hosts: Option<HostList>,
}

/// Why `HOOKONCE_PUBLISH_TOKENS` is refused. It never quotes a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokensError {
    /// The entry's position, from 1.
    pub entry: usize,
}

impl fmt::Display for TokensError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "HOOKONCE_PUBLISH_TOKENS: entry {}: after the token, expected host names or \
             *.domain patterns separated by spaces",
            self.entry
        )
    }
}

impl std::error::Error for TokensError {}

/// Parses `HOOKONCE_PUBLISH_TOKENS`: comma-separated entries, each a token, optionally
/// followed by the hosts its messages may go to, separated by spaces
/// (`tok_a hooks.example.com *.app.example, tok_b`). A bearer token holds no space or
/// comma (RFC 6750's `b64token`), so neither can be mistaken for part of one.
pub fn tokens(text: &str) -> Result<Vec<Token>, TokensError> {
    let mut out = Vec::new();
    for (i, entry) in text.split(',').enumerate() {
        let mut words = entry.split_whitespace();
        let Some(token) = words.next() else {
            continue;
        };
        let hosts: Vec<&str> = words.collect();
        let hosts = match hosts.is_empty() {
            true => None,
            false => Some(HostList::new(hosts).ok_or(TokensError { entry: i + 1 })?),
        };
        out.push(Token {
            token: token.to_owned(),
            hosts,
        });
    }
    Ok(out)
}

/// What accepting a message stores: the key's state (with the receipt to replay), and the
/// message to deliver.
#[derive(Clone, Debug, PartialEq)]
pub struct Accepted {
    /// The message id, also its `webhook-id` and forwarded `Idempotency-Key`.
    pub message_id: String,
    /// The key's completed state; its response is the receipt.
    pub key: KeyState,
    /// What is delivered: a Standard Webhooks payload (`type`, `timestamp`, `data`).
    pub envelope: Vec<u8>,
}

/// Accepts `message`, first sent under `key` (scope `scope`) at `now`.
#[must_use]
pub fn accept(
    message: &Message,
    key: &IdempotencyKey,
    scope: &str,
    fingerprint: Fingerprint,
    now: UnixSeconds,
    accepted_at_ms: i64,
    policy: &KeyPolicy,
) -> Accepted {
    let id = message_id(scope, accepted_at_ms);
    let receipt = json!({
        "message_id": id,
        "idempotency_key": key.as_str(),
        "status": "accepted",
        "accepted_at": now.0,
        "event_type": message.event_type,
        "destination": message.destination,
    });
    let response = StoredResponse {
        status: 202,
        content_type: "application/json".into(),
        body: receipt.to_string().into_bytes(),
    };
    let envelope = json!({
        "type": message.event_type,
        "timestamp": now.0,
        "data": message.payload,
    });
    Accepted {
        message_id: id,
        key: policy.completed(fingerprint, response, now),
        envelope: envelope.to_string().into_bytes(),
    }
}

/// The name of the store that holds `key` for `token`: keys are scoped to the API token
/// (draft §2.2 leaves scope to the resource), and the token itself never appears in it.
pub fn scope(token: &str, key: &IdempotencyKey) -> String {
    let digest = Sha256::digest(token.as_bytes());
    format!("{}/{}", crate::hex::encode(&digest[..16]), key.as_str())
}

/// A message id for a publish accepted under `scope` at `accepted_at_ms`: unique per
/// acceptance, so a key reused after it expired never yields an id a receiver has seen.
pub fn message_id(scope: &str, accepted_at_ms: i64) -> String {
    let mut h = Sha256::new();
    h.update(scope.as_bytes());
    h.update(accepted_at_ms.to_be_bytes());
    format!("msg_{}", &crate::hex::encode(&h.finalize())[..26])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idempotency::IdempotencyKey;

    #[test]
    fn tokens_carry_their_hosts_and_a_bad_host_names_the_entry_not_the_token() {
        let t = tokens(" tok_a hooks.example.com *.app.example , tok_b,, ").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].token, "tok_a");
        assert_eq!(
            t[0].hosts,
            HostList::new(["hooks.example.com", "*.app.example"])
        );
        assert_eq!((t[1].token.as_str(), &t[1].hosts), ("tok_b", &None));
        let e = tokens("ok, secret-token https://x/").unwrap_err();
        assert_eq!(e, TokensError { entry: 2 });
        assert!(!e.to_string().contains("secret-token"));
    }

    #[test]
    fn a_message_is_admitted_only_where_the_guard_and_the_token_allow() {
        let m = Message::parse(
            br#"{"destination":"https://hooks.example.com/in","event_type":"t","payload":{}}"#,
        )
        .unwrap();
        let strict = Policy::default();
        assert_eq!(m.admit(strict, None), Ok(()));
        let other = HostList::new(["other.example"]).unwrap();
        assert!(matches!(
            m.admit(strict, Some(&other)),
            Err(PublishError::Destination(Refusal::NotAllowed))
        ));
        let local = Message::parse(
            br#"{"destination":"http://127.0.0.1:9/","event_type":"t","payload":{}}"#,
        )
        .unwrap();
        let e = local.admit(strict, None).unwrap_err();
        assert!(e.to_string().contains("rule https-only"), "{e}");
    }

    #[test]
    fn a_key_hookonce_sends_parses_back_to_the_same_key() {
        for value in ["evt_01M480J2CTN4T8D9E8D2TBN1KC", "a\"b\\c", " x "] {
            let key = IdempotencyKey::from_value(value).unwrap();
            let sent = key.to_header();
            assert_eq!(IdempotencyKey::parse(Some(&sent)).unwrap().as_str(), value);
        }
        assert_eq!(
            IdempotencyKey::from_value("evt_1").unwrap().to_header(),
            "\"evt_1\""
        );
        assert!(IdempotencyKey::from_value("évt").is_err());
        assert!(IdempotencyKey::from_value("").is_err());
    }

    #[test]
    fn the_same_key_under_two_tokens_lives_in_two_places() {
        let key = IdempotencyKey::parse(Some("\"k-1\"")).unwrap();
        assert_ne!(scope("token-a", &key), scope("token-b", &key));
        assert!(!scope("token-a", &key).contains("token-a"));
        assert!(scope("token-a", &key).ends_with("/k-1"));
    }

    #[test]
    fn a_key_accepted_again_after_expiry_gets_a_new_message_id() {
        let key = IdempotencyKey::parse(Some("\"k-1\"")).unwrap();
        let s = scope("t", &key);
        assert_ne!(message_id(&s, 1_000), message_id(&s, 86_401_000));
        assert_eq!(message_id(&s, 1_000), message_id(&s, 1_000));
    }
}

//! The publish API's own rules: what a message is, where its key lives, what its id is,
//! and what is stored and sent when it is accepted. Request idempotency itself is
//! [`crate::idempotency`]; this module only uses it.

use std::fmt;

use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::idempotency::{
    Fingerprint, IdempotencyKey, KeyDecision, KeyPolicy, KeyState, StoredResponse,
};
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

/// A publish request as its key's object sees it.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The request's key.
    pub key: &'a IdempotencyKey,
    /// The key's scope ([`scope`]), which also seeds the message id.
    pub scope: &'a str,
    /// The raw body, fingerprinted.
    pub body: &'a [u8],
    /// The body, parsed.
    pub message: &'a Message,
}

/// A row the key's object writes, one statement each, all of a request's in one
/// transaction: no window in which a key is "in progress".
#[derive(Clone, Debug, PartialEq)]
pub enum KeyWrite {
    /// Store the key's completed state, over an expired one if there was one.
    Key {
        /// The key, as sent.
        key: String,
        /// Its completed state, with the receipt to replay.
        state: KeyState,
    },
    /// Record the accepted message.
    Message {
        /// Its id.
        message_id: String,
        /// Its type.
        event_type: String,
        /// Where it goes.
        destination: String,
        /// When it was accepted.
        accepted_at: UnixSeconds,
    },
    /// Keep the envelope to deliver (packed as any kept body is).
    Body {
        /// The message id it is kept under.
        message_id: String,
        /// The Standard Webhooks payload.
        envelope: Vec<u8>,
        /// When it was kept.
        at: UnixSeconds,
    },
    /// Enqueue the message's delivery, due at once, sending the body just kept.
    Enqueue {
        /// The message id.
        message_id: String,
        /// Where it goes.
        destination: String,
        /// When it was enqueued.
        at: UnixSeconds,
    },
    /// Forget the key's expired state; the message's delivery record stays.
    Forget,
}

/// What the key's object answers a publish request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyAnswer<'a> {
    /// Accepted now: the receipt (202), once the writes are made; delivery is due at once.
    Accepted(StoredResponse),
    /// A retry of the accepted request: its receipt again, byte for byte.
    Replay(&'a StoredResponse),
    /// The key was first used with another body: 422.
    Mismatch,
}

/// What one publish request comes to in its key's object: the rows to write and the
/// answer to give once they are written.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyStep<'a> {
    /// The rows, in order; none for a replay or a mismatch.
    pub writes: Vec<KeyWrite>,
    /// The answer.
    pub answer: KeyAnswer<'a>,
}

/// The key object's whole decision for `request`, given the key's stored state, at `now`
/// (`accepted_at_ms` seeds a new message's id).
#[must_use]
pub fn handle<'a>(
    stored: Option<&'a KeyState>,
    request: Request<'_>,
    now: UnixSeconds,
    accepted_at_ms: i64,
    policy: &KeyPolicy,
) -> KeyStep<'a> {
    let fingerprint = Fingerprint::of("POST", PATH, request.body);
    let answer = match crate::idempotency::decide(stored, &fingerprint, now) {
        KeyDecision::Proceed => None,
        KeyDecision::Replay(resp) => Some(KeyAnswer::Replay(resp)),
        KeyDecision::Mismatch => Some(KeyAnswer::Mismatch),
    };
    if let Some(answer) = answer {
        return KeyStep {
            writes: Vec::new(),
            answer,
        };
    }
    let Request {
        key,
        scope,
        message,
        ..
    } = request;
    let accepted = accept(
        message,
        key,
        scope,
        fingerprint,
        now,
        accepted_at_ms,
        policy,
    );
    let receipt = accepted.key.response.clone();
    let id = accepted.message_id;
    KeyStep {
        writes: vec![
            KeyWrite::Key {
                key: key.as_str().to_owned(),
                state: accepted.key,
            },
            KeyWrite::Message {
                message_id: id.clone(),
                event_type: message.event_type.clone(),
                destination: message.destination.clone(),
                accepted_at: now,
            },
            KeyWrite::Body {
                message_id: id.clone(),
                envelope: accepted.envelope,
                at: now,
            },
            KeyWrite::Enqueue {
                message_id: id,
                destination: message.destination.clone(),
                at: now,
            },
        ],
        answer: KeyAnswer::Accepted(receipt),
    }
}

/// What the key's alarm does about its stored state: forget it once it expired, or look
/// again when it will have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// Write [`KeyWrite::Forget`].
    Forget,
    /// Set the alarm for then.
    At(UnixSeconds),
}

/// [`Expiry`] for the key's `stored` state at `now`; `None` when there is none.
#[must_use]
pub fn expiry(stored: Option<&KeyState>, now: UnixSeconds) -> Option<Expiry> {
    let state = stored?;
    Some(match state.prune_due(now) {
        true => Expiry::Forget,
        false => Expiry::At(state.prune_at()),
    })
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

    fn request_for<'a>(key: &'a IdempotencyKey, body: &'a [u8], m: &'a Message) -> Request<'a> {
        Request {
            key,
            scope: "s/k-1",
            body,
            message: m,
        }
    }

    #[test]
    fn a_first_request_writes_its_key_message_body_and_outbox_row_and_answers_its_receipt() {
        let key = IdempotencyKey::parse(Some("\"k-1\"")).unwrap();
        let body = br#"{"destination":"https://h.example/in","event_type":"t","payload":{"a":1}}"#;
        let m = Message::parse(body).unwrap();
        let now = UnixSeconds(1_000);
        let step = handle(
            None,
            request_for(&key, body, &m),
            now,
            7,
            &KeyPolicy::default(),
        );
        let KeyAnswer::Accepted(receipt) = &step.answer else {
            panic!("a first request is accepted: {:?}", step.answer);
        };
        assert_eq!(receipt.status, 202);
        let id = message_id("s/k-1", 7);
        match step.writes.as_slice() {
            [KeyWrite::Key { key: k, state }, KeyWrite::Message {
                message_id,
                destination,
                ..
            }, KeyWrite::Body {
                message_id: body_id,
                envelope,
                ..
            }, KeyWrite::Enqueue {
                message_id: queued, ..
            }] => {
                assert_eq!(k, "k-1");
                assert_eq!(&state.response, receipt);
                assert_eq!(state.expires_at, now.plus(crate::time::Seconds::DAY));
                assert_eq!((message_id, body_id, queued), (&id, &id, &id));
                assert_eq!(destination, "https://h.example/in");
                let envelope: Value = serde_json::from_slice(envelope).unwrap();
                assert_eq!(envelope["data"], json!({"a": 1}));
            }
            other => panic!("key, message, body, outbox row in that order: {other:?}"),
        }
    }

    #[test]
    fn a_retry_replays_the_receipt_and_another_body_under_the_key_is_a_mismatch_both_writing_nothing(
    ) {
        let key = IdempotencyKey::parse(Some("k-1")).unwrap();
        let body = br#"{"destination":"https://h.example/in","event_type":"t","payload":1}"#;
        let other = br#"{"destination":"https://h.example/in","event_type":"t","payload":2}"#;
        let (m, m2) = (
            Message::parse(body).unwrap(),
            Message::parse(other).unwrap(),
        );
        let now = UnixSeconds(1_000);
        let policy = KeyPolicy::default();
        let first = handle(None, request_for(&key, body, &m), now, 1, &policy);
        let KeyWrite::Key { state, .. } = &first.writes[0] else {
            panic!("the key first");
        };
        let later = UnixSeconds(2_000);
        let retry = handle(Some(state), request_for(&key, body, &m), later, 2, &policy);
        assert_eq!(retry.answer, KeyAnswer::Replay(&state.response));
        assert!(retry.writes.is_empty());
        let clash = handle(
            Some(state),
            request_for(&key, other, &m2),
            later,
            2,
            &policy,
        );
        assert_eq!(clash.answer, KeyAnswer::Mismatch);
        assert!(clash.writes.is_empty());
        // Once the key expired, the same key is a new request with a new message id.
        let expired = state.expires_at;
        let again = handle(
            Some(state),
            request_for(&key, other, &m2),
            expired,
            3,
            &policy,
        );
        assert!(matches!(again.answer, KeyAnswer::Accepted(_)));
        assert_eq!(again.writes.len(), 4);
    }

    #[test]
    fn an_expired_key_is_forgotten_and_a_live_one_is_looked_at_again_when_it_expires() {
        let key = IdempotencyKey::parse(Some("k")).unwrap();
        let body = br#"{"destination":"https://h.example/in","event_type":"t","payload":1}"#;
        let m = Message::parse(body).unwrap();
        let step = handle(
            None,
            request_for(&key, body, &m),
            UnixSeconds(0),
            1,
            &KeyPolicy::default(),
        );
        let KeyWrite::Key { state, .. } = &step.writes[0] else {
            panic!("the key first");
        };
        assert_eq!(expiry(None, UnixSeconds(0)), None);
        let before = UnixSeconds(state.expires_at.0 - 1);
        assert_eq!(
            expiry(Some(state), before),
            Some(Expiry::At(state.expires_at))
        );
        assert_eq!(expiry(Some(state), state.expires_at), Some(Expiry::Forget));
    }
}

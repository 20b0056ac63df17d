//! The Worker's hand-off of a verified, parsed delivery to the entity's Durable Object.
//!
//! The Worker verifies and parses every delivery (steps 2 and 3) before it wakes an
//! object. It then sends the object the [`Event`] it parsed, the headers the source reads
//! and the raw body, in these bytes, so the object neither verifies nor parses again.
//! That is safe because an object's `fetch` is reachable only through its namespace
//! binding, from this Worker's own code: no request from outside can present a hand-off.
//!
//! Layout: `HO1`, the metadata's length as 4 little-endian bytes, the metadata as JSON,
//! a snapshot's state (its length is in the metadata), then the body as it arrived.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::event::{CreatedAt, Effect, EntityKey, Event, EventId, EventType};

const MAGIC: &[u8; 3] = b"HO1";

/// A delivery as the entity's object receives it from the Worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handoff<'b> {
    /// The source's name.
    pub source: String,
    /// The event the Worker parsed from the verified body.
    pub event: Event,
    /// The request headers the source reads (its signature and field headers).
    pub headers: Vec<(String, String)>,
    /// The verified raw body.
    pub body: &'b [u8],
}

/// Bytes that are not a hand-off this version of hookonce wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandoffError {
    /// Too short, or not starting with the marker.
    Framing,
    /// The metadata does not describe a valid event.
    Metadata,
}

impl fmt::Display for HandoffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HandoffError::Framing => "not a hand-off from the Worker",
            HandoffError::Metadata => "the hand-off's event is invalid",
        })
    }
}

impl std::error::Error for HandoffError {}

#[derive(Serialize, Deserialize)]
enum EffectMeta {
    /// The state in the metadata, JSON-escaped: what hand-offs before `snapshot_after`
    /// carried, still read during a deploy.
    #[serde(rename = "snapshot")]
    Snapshot(String),
    /// The state's length: its bytes follow the metadata, unescaped.
    #[serde(rename = "snapshot_after")]
    SnapshotAfter(usize),
    #[serde(rename = "ledger")]
    Ledger(i64),
    #[serde(rename = "notify")]
    Notify,
}

#[derive(Serialize, Deserialize)]
struct Meta {
    source: String,
    id: String,
    kind: String,
    created_at: Option<(i64, u32)>,
    entity: Option<String>,
    effect: EffectMeta,
    headers: Vec<(String, String)>,
}

/// The bytes that hand `event` of `source`, read with `headers` from `body`, to its
/// object.
#[must_use]
pub fn encode<K: AsRef<str>, V: AsRef<str>>(
    source: &str,
    event: &Event,
    headers: &[(K, V)],
    body: &[u8],
) -> Vec<u8> {
    let meta = Meta {
        source: source.to_owned(),
        id: event.id().as_str().to_owned(),
        kind: event.kind().as_str().to_owned(),
        created_at: event.created_at().map(|c| (c.secs(), c.nanos())),
        entity: event.entity().map(|e| e.as_str().to_owned()),
        effect: match event.effect() {
            Effect::Snapshot { state } => EffectMeta::SnapshotAfter(state.len()),
            Effect::Ledger { amount } => EffectMeta::Ledger(*amount),
            Effect::Notify => EffectMeta::Notify,
        },
        headers: headers
            .iter()
            .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
            .collect(),
    };
    // A struct of strings and integers always serialises.
    let json = serde_json::to_vec(&meta).unwrap_or_default();
    let state = match event.effect() {
        Effect::Snapshot { state } => state.as_bytes(),
        _ => &[],
    };
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + json.len() + state.len() + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&u32::try_from(json.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&json);
    // A snapshot's state is most of a large body: copied, never escaped.
    out.extend_from_slice(state);
    out.extend_from_slice(body);
    out
}

/// Reads back what [`encode`] wrote; the body is borrowed from `bytes`.
pub fn decode(bytes: &[u8]) -> Result<Handoff<'_>, HandoffError> {
    let rest = bytes.strip_prefix(MAGIC).ok_or(HandoffError::Framing)?;
    let (len, rest) = rest.split_first_chunk::<4>().ok_or(HandoffError::Framing)?;
    let len = usize::try_from(u32::from_le_bytes(*len)).map_err(|_| HandoffError::Framing)?;
    if rest.len() < len {
        return Err(HandoffError::Framing);
    }
    let (json, mut body) = rest.split_at(len);
    let meta: Meta = serde_json::from_slice(json).map_err(|_| HandoffError::Metadata)?;
    let created_at = match meta.created_at {
        None => None,
        Some((secs, nanos)) => {
            Some(CreatedAt::from_parts(secs, nanos).ok_or(HandoffError::Metadata)?)
        }
    };
    let entity = match meta.entity {
        None => None,
        Some(e) => Some(EntityKey::new(e).ok_or(HandoffError::Metadata)?),
    };
    let event = Event::from_parts(
        EventId::new(meta.id).ok_or(HandoffError::Metadata)?,
        EventType::new(meta.kind).ok_or(HandoffError::Metadata)?,
        created_at,
        entity,
        match meta.effect {
            EffectMeta::Snapshot(state) => Effect::Snapshot { state },
            EffectMeta::SnapshotAfter(len) => {
                if body.len() < len {
                    return Err(HandoffError::Framing);
                }
                let (state, rest) = body.split_at(len);
                body = rest;
                let state = std::str::from_utf8(state).map_err(|_| HandoffError::Metadata)?;
                Effect::Snapshot {
                    state: state.to_owned(),
                }
            }
            EffectMeta::Ledger(amount) => Effect::Ledger { amount },
            EffectMeta::Notify => Effect::Notify,
        },
    );
    Ok(Handoff {
        source: meta.source,
        event,
        headers: meta.headers,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SourceConfig;
    use crate::sign;
    use crate::time::UnixSeconds;
    use crate::verify::Verifier;

    fn parsed(body: &[u8], effects: serde_json::Value) -> (Event, Vec<(String, String)>) {
        let source = SourceConfig::from_json(
            "cockpit",
            &serde_json::json!({
                "scheme": "standard-webhooks",
                "secrets": ["S"],
                "effects": effects,
            }),
        )
        .unwrap();
        let secret = source
            .scheme
            .parse_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
            .unwrap();
        let now = UnixSeconds(1_791_270_400);
        let headers: Vec<(String, String)> =
            sign::headers(&source.scheme, &secret, "msg_1", now, body)
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect();
        let verifier =
            Verifier::new(source.scheme.clone(), vec![secret], source.tolerance).unwrap();
        let verified = verifier.verify(&headers, body, now).unwrap();
        (
            Event::parse(&verified, &headers, &source.shape).unwrap(),
            headers,
        )
    }

    #[test]
    fn the_object_reads_back_the_event_headers_and_body_the_worker_parsed() {
        let cases: [(&[u8], serde_json::Value); 3] = [
            (
                br#"{"id":"evt_1","type":"t","created_at":"2026-10-06T07:06:30.25Z","data":{"object":{"id":"ch_\u00e9","s":"\"q\""}}}"#,
                serde_json::json!({ "t": "snapshot" }),
            ),
            (
                br#"{"id":"evt_2","type":"p","data":{"object":{"id":"ch_1","amount":-1250}}}"#,
                serde_json::json!({ "p": { "ledger": "/data/object/amount" } }),
            ),
            (br#"{"id":"evt_3","type":"n"}"#, serde_json::json!({ "*": "notify" })),
        ];
        for (body, effects) in cases {
            let (event, headers) = parsed(body, effects);
            let bytes = encode("cockpit", &event, &headers, body);
            let back = decode(&bytes).unwrap();
            assert_eq!(back.source, "cockpit");
            assert_eq!(back.event, event);
            assert_eq!(back.headers, headers);
            assert_eq!(back.body, body);
        }
    }

    #[test]
    fn a_hand_off_from_a_worker_before_snapshot_after_still_reads_during_a_deploy() {
        let meta = br#"{"source":"cockpit","id":"evt_1","kind":"t","created_at":[1,0],"entity":"ch_1","effect":{"snapshot":"{\"id\":\"ch_1\"}"},"headers":[]}"#;
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&(meta.len() as u32).to_le_bytes());
        bytes.extend_from_slice(meta);
        bytes.extend_from_slice(b"BODY");
        let back = decode(&bytes).unwrap();
        assert_eq!(
            back.event.effect(),
            &Effect::Snapshot {
                state: r#"{"id":"ch_1"}"#.into()
            }
        );
        assert_eq!(back.body, b"BODY");
    }

    #[test]
    fn a_state_longer_than_what_follows_is_refused() {
        let body = br#"{"id":"evt_1","type":"t","created_at":1,"data":{"object":{"id":"ch_1"}}}"#;
        let (event, headers) = parsed(body, serde_json::json!({ "t": "snapshot" }));
        let good = encode("cockpit", &event, &headers, b"");
        // What follows the metadata is the state alone; cut it short.
        assert_eq!(
            decode(&good[..good.len() - 1]).unwrap_err(),
            HandoffError::Framing
        );
    }

    #[test]
    fn bytes_the_worker_did_not_write_are_refused() {
        let (event, headers) = parsed(
            br#"{"id":"evt_3","type":"n"}"#,
            serde_json::json!({ "*": "notify" }),
        );
        let good = encode("cockpit", &event, &headers, b"{}");
        assert_eq!(decode(b"").unwrap_err(), HandoffError::Framing);
        assert_eq!(decode(b"{\"id\":1}").unwrap_err(), HandoffError::Framing);
        assert_eq!(decode(&good[..6]).unwrap_err(), HandoffError::Framing);
        let mut long = good.clone();
        long[3..7].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(&long).unwrap_err(), HandoffError::Framing);
        let mut bad = good.clone();
        let at = bad.windows(5).position(|w| w == b"evt_3").unwrap();
        bad[at..at + 5].copy_from_slice(b"\"\"\"\"\"");
        assert_eq!(decode(&bad).unwrap_err(), HandoffError::Metadata);
    }
}

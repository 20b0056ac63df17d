//! What a forwarded event carries, whatever its destination: the headers of the signed
//! request (a URL and a service binding get the same request), and the message a queue
//! gets, which carries those same headers and the body.

use crate::b64::STANDARD as BASE64;
use serde_json::{json, Map, Value};

use crate::idempotency::IdempotencyKey;
use crate::retry::AttemptResult;
use crate::sign;
use crate::time::UnixSeconds;
use crate::verify::Secret;

/// The largest message Cloudflare Queues accepts, in bytes.
pub const MAX_QUEUE_MESSAGE: usize = 128_000;

/// The URL a service-binding request is made to. The binding alone routes it, so the host
/// is a placeholder (`.internal` is reserved for private use and never resolves).
pub const SERVICE_URL: &str = "https://hookonce.internal/";

/// One forwarded event, as it goes out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outgoing<'a> {
    /// The source it came from.
    pub source: &'a str,
    /// Its id: the `Idempotency-Key` and the `webhook-id`.
    pub event_id: &'a str,
    /// The attempt's number, 1 for the first.
    pub attempt: u32,
    /// The stored body, byte for byte as the provider sent it.
    pub body: &'a [u8],
}

/// The headers an event is forwarded with: a JSON content type, the event id as
/// `Idempotency-Key`, `hookonce-source`, `hookonce-attempt`, and the Standard Webhooks
/// headers (the event id as `webhook-id`), whatever scheme the source uses. Names are
/// lower-case.
///
/// `secrets` are the destination's, one or more, newest first: `webhook-signature` carries
/// a signature with each, in that order, so during a rotation a receiver holding either
/// the old or the new secret verifies.
#[must_use]
pub fn headers<'a>(
    secrets: &[Secret],
    out: &Outgoing<'a>,
    now: UnixSeconds,
) -> Vec<(&'a str, String)> {
    let mut headers = vec![
        ("content-type", "application/json".to_owned()),
        ("idempotency-key", forwarded_key(out.event_id)),
    ];
    headers.extend(sign::standard_webhooks_headers(
        secrets,
        out.event_id,
        now,
        out.body,
    ));
    headers.push(("hookonce-source", out.source.to_owned()));
    headers.push(("hookonce-attempt", out.attempt.to_string()));
    headers
}

/// Why an event cannot go to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum QueueMessageError {
    /// The message would be this many bytes, over [`MAX_QUEUE_MESSAGE`].
    TooLarge(usize),
}

impl From<QueueMessageError> for AttemptResult {
    fn from(e: QueueMessageError) -> Self {
        match e {
            QueueMessageError::TooLarge(bytes) => AttemptResult::TooLarge { bytes },
        }
    }
}

/// The message a queue gets for one attempt, as JSON text: `event_id`, `source`,
/// `attempt`, `headers` (an object of [`headers`], so a consumer verifies
/// `webhook-signature` over the body as an HTTP receiver would) and the body, as `body`
/// (text; webhook bodies are JSON, so UTF-8) or, for a body that is not UTF-8, as
/// `body_base64` instead.
pub fn queue_message(
    headers: &[(&str, String)],
    out: &Outgoing<'_>,
) -> Result<String, QueueMessageError> {
    let headers: Map<String, Value> = headers
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Value::String(v.clone())))
        .collect();
    let mut message = json!({
        "event_id": out.event_id,
        "source": out.source,
        "attempt": out.attempt,
        "headers": headers,
    });
    match std::str::from_utf8(out.body) {
        Ok(text) => message["body"] = json!(text),
        Err(_) => message["body_base64"] = json!(BASE64.encode(out.body)),
    }
    let text = message.to_string();
    if text.len() > MAX_QUEUE_MESSAGE {
        return Err(QueueMessageError::TooLarge(text.len()));
    }
    Ok(text)
}

/// The `Idempotency-Key` hookonce forwards an event with: the event id as the draft's
/// sf-string (`"evt_…"`), so a receiver that parses it strictly reads back exactly the id.
/// An id no sf-string can carry (non-ASCII) is sent as it is; `webhook-id` always carries
/// it verbatim.
#[must_use]
pub fn forwarded_key(event_id: &str) -> String {
    IdempotencyKey::from_value(event_id).map_or_else(|_| event_id.to_owned(), |k| k.to_header())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Seconds;
    use crate::verify::{Scheme, Verifier};

    const SECRET: &str = "whsec_CVHbIk2dr2WGJQt+GtI9aPv40fJj6c7VgJDfaj3hJc4=";
    const NOW: UnixSeconds = UnixSeconds(1_791_270_400);

    fn out(body: &[u8]) -> Outgoing<'_> {
        Outgoing {
            source: "cockpit",
            event_id: "evt_1",
            attempt: 2,
            body,
        }
    }

    fn secret() -> Secret {
        Scheme::StandardWebhooks.parse_secret(SECRET).unwrap()
    }

    #[test]
    fn the_headers_carry_the_key_a_verifiable_signature_the_source_and_the_attempt() {
        let body = br#"{"id":"evt_1"}"#;
        let h = headers(&[secret()], &out(body), NOW);
        let get = |name: &str| h.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str());
        assert_eq!(get("idempotency-key"), Some("\"evt_1\""));
        assert_eq!(get("webhook-id"), Some("evt_1"));
        assert_eq!(get("hookonce-source"), Some("cockpit"));
        assert_eq!(get("hookonce-attempt"), Some("2"));
        assert_eq!(get("content-type"), Some("application/json"));
        let owned: Vec<(String, String)> = h
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        let v = Verifier::new(Scheme::StandardWebhooks, vec![secret()], Seconds(300)).unwrap();
        assert!(v.verify(&owned, body, NOW).is_ok());
        assert!(v.verify(&owned, b"{}", NOW).is_err());
    }

    #[test]
    fn two_secrets_sign_in_one_header_newest_first_and_either_verifies_alone() {
        let body = br#"{"id":"evt_1"}"#;
        let new = Scheme::StandardWebhooks
            .parse_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
            .unwrap();
        let h = headers(&[new.clone(), secret()], &out(body), NOW);
        let signature = &h.iter().find(|(k, _)| *k == "webhook-signature").unwrap().1;
        let each = |s: &Secret| sign::standard_webhooks(s, "evt_1", NOW, body);
        assert_eq!(*signature, format!("{} {}", each(&new), each(&secret())));
        let owned: Vec<(String, String)> = h
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        for alone in [new, secret()] {
            let v = Verifier::new(Scheme::StandardWebhooks, vec![alone], Seconds(300)).unwrap();
            assert!(v.verify(&owned, body, NOW).is_ok());
        }
    }

    #[test]
    fn a_queue_message_carries_the_id_the_headers_and_the_body_as_text() {
        let body = "{\"id\":\"evt_1\",\"note\":\"caf\u{e9} \\\"q\\\"\"}".as_bytes();
        let h = headers(&[secret()], &out(body), NOW);
        let m: Value = serde_json::from_str(&queue_message(&h, &out(body)).unwrap()).unwrap();
        assert_eq!(m["event_id"], "evt_1");
        assert_eq!(m["source"], "cockpit");
        assert_eq!(m["attempt"], 2);
        assert_eq!(m["headers"]["idempotency-key"], "\"evt_1\"");
        assert_eq!(m["headers"].as_object().unwrap().len(), h.len());
        assert_eq!(
            m["body"].as_str().unwrap().as_bytes(),
            body,
            "byte for byte"
        );
        assert!(m.get("body_base64").is_none());
    }

    #[test]
    fn a_body_that_is_not_utf8_goes_as_base64() {
        let body = [0xff, 0x00, 0x7b];
        let m: Value = serde_json::from_str(&queue_message(&[], &out(&body)).unwrap()).unwrap();
        assert_eq!(m["body_base64"], "/wB7");
        assert!(m.get("body").is_none());
    }

    #[test]
    fn a_message_over_the_queue_limit_is_refused_with_its_size() {
        let fits = vec![b'a'; MAX_QUEUE_MESSAGE - 200];
        assert!(queue_message(&[], &out(&fits)).is_ok());
        let big = vec![b'a'; MAX_QUEUE_MESSAGE];
        match queue_message(&[], &out(&big)) {
            Err(QueueMessageError::TooLarge(n)) => assert!(n > MAX_QUEUE_MESSAGE),
            other => panic!("expected too large, got {other:?}"),
        }
    }

    #[test]
    fn the_forwarded_key_is_the_quoted_event_id() {
        assert_eq!(forwarded_key("evt_1"), "\"evt_1\"");
        assert_eq!(forwarded_key("a\"b"), "\"a\\\"b\"");
        assert_eq!(forwarded_key("évt"), "évt");
    }
}

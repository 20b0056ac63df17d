//! RFC 9457 problem details: every error hookonce answers is `application/problem+json`,
//! with a stable `type` per kind of problem and a `detail` that names what was wrong.

use hookonce_core::body::TooLarge;
use serde_json::{json, Value};
use worker::{Headers, Response, Result};

/// One kind of problem: its HTTP status, its slug (the end of the `type` URI) and title.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    pub status: u16,
    pub slug: &'static str,
    pub title: &'static str,
}

macro_rules! kinds {
    ($($name:ident = ($status:expr, $slug:expr, $title:expr);)*) => {
        $(pub const $name: Kind = Kind { status: $status, slug: $slug, title: $title };)*
    };
}

kinds! {
    NOT_FOUND = (404, "not-found", "No such resource");
    UNKNOWN_SOURCE = (404, "unknown-source", "Unknown webhook source");
    UNKNOWN_DESTINATION = (404, "unknown-destination", "Unknown destination");
    METHOD_NOT_ALLOWED = (405, "method-not-allowed", "Method not allowed");
    TOO_LARGE = (TooLarge::STATUS, "body-too-large", "Request body too large");
    BAD_SIGNATURE = (401, "invalid-signature", "Signature verification failed");
    UNAUTHORIZED = (401, "unauthorized", "Missing or wrong bearer token");
    BAD_EVENT = (400, "invalid-event", "The event cannot be read");
    BAD_REQUEST = (400, "bad-request", "Bad request");
    DESTINATION_REFUSED = (400, "destination-refused", "The outbound guard refuses this destination");
    KEY_MISSING = (400, "idempotency-key-missing", "Idempotency-Key is required");
    KEY_MALFORMED = (400, "idempotency-key-malformed", "Idempotency-Key is malformed");
    KEY_MISMATCH = (422, "idempotency-key-reused", "Idempotency-Key was used for a different request");
    IN_FLIGHT = (409, "in-flight", "Another copy of this event is being processed");
    NOT_SENDABLE = (409, "not-sendable", "The event cannot be sent to this destination");
    BAD_GATEWAY = (502, "destination-failed", "The destination did not accept the event");
    NOT_DURABLE = (503, "not-durable", "The Durable Object failed; nothing was written; retry");
    CONFIG = (500, "configuration", "hookonce is misconfigured");
    INTERNAL = (500, "internal", "Internal error");
}

/// The base of every problem `type`; documented per slug in the README.
pub const TYPE_BASE: &str = "https://hookonce.dev/problems/";

impl Kind {
    /// The problem document, with `extra` members merged in.
    pub fn body(self, detail: &str, extra: Value) -> Value {
        let mut doc = json!({
            "type": format!("{TYPE_BASE}{}", self.slug),
            "title": self.title,
            "status": self.status,
            "detail": detail,
        });
        if let (Some(doc), Value::Object(extra)) = (doc.as_object_mut(), extra) {
            doc.extend(extra);
        }
        doc
    }

    /// The response for this problem.
    pub fn respond(self, detail: impl std::fmt::Display) -> Result<Response> {
        self.respond_with(&detail.to_string(), Value::Null)
    }

    /// The response, with extension members (RFC 9457 §3.2).
    pub fn respond_with(self, detail: &str, extra: Value) -> Result<Response> {
        json_response(
            self.status,
            &self.body(detail, extra),
            "application/problem+json",
        )
    }
}

/// A JSON response with the given status and content type.
pub fn json_response(status: u16, body: &Value, content_type: &str) -> Result<Response> {
    bytes_response(status, body.to_string().into_bytes(), content_type)
}

/// A response of `body`, already serialised, with the given status and content type.
pub fn bytes_response(status: u16, body: Vec<u8>, content_type: &str) -> Result<Response> {
    let headers = Headers::new();
    headers.set("content-type", content_type)?;
    Ok(Response::from_bytes(body)?
        .with_status(status)
        .with_headers(headers))
}

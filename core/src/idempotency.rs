//! Request idempotency for the publish API, after
//! [draft-ietf-httpapi-idempotency-key-header] (-07).
//!
//! A client sends `Idempotency-Key: "<key>"`. The adapter keeps one [`KeyState`] per
//! (token, key) in a Durable Object, which serialises requests for that key, and for each
//! request:
//!
//! 1. [`IdempotencyKey::parse`] the header; a [`KeyError`] is answered with 400.
//! 2. Compute the request's [`Fingerprint`] and call [`decide`] with what the object holds.
//! 3. Carry out the [`KeyDecision`] with one `match`:
//!    - `Proceed`: accept the request and store [`KeyPolicy::completed`] **in the same
//!      transaction** as the request's own effect;
//!    - `Replay`: send the stored response byte for byte;
//!    - `Mismatch` (422): send a problem document.
//!
//! There is no "in progress" state: the publish API's whole effect (the message and its
//! outbox row) is one synchronous transaction with the key, so a concurrent copy waits at
//! the object's input gate and then sees the completed key. The draft's 409 for a request
//! still being processed therefore never arises.
//!
//! The draft's error examples use RFC 9457 `application/problem+json` documents with a
//! `type` that points at the server's published idempotency documentation; there are no
//! registered problem types, so the adapter picks the URIs.
//!
//! Expiry policy (the draft asks servers to publish it): see [`KeyPolicy`].
//!
//! [draft-ietf-httpapi-idempotency-key-header]: https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/

use std::fmt;

use sha2::{Digest, Sha256};

use crate::time::{Seconds, UnixSeconds};

/// Longest key accepted, in characters (after unescaping). A stated limit, common among
/// implementers (Stripe, Method, ...); it bounds the Durable Object name.
pub const MAX_KEY_LEN: usize = 255;

/// An `Idempotency-Key` value: an RFC 8941 sf-string (§3.3.3), 1 to [`MAX_KEY_LEN`]
/// printable ASCII characters, stored unescaped.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

/// Why an `Idempotency-Key` header was refused. Both are answered with 400.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// The request carried no `Idempotency-Key` header.
    Missing,
    /// The header is not a single valid sf-string or bare key within our limits.
    Malformed(Malformation),
}

/// What is wrong with a malformed `Idempotency-Key`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Malformation {
    /// Nothing between the quotes, or no characters at all.
    Empty,
    /// Longer than [`MAX_KEY_LEN`] characters.
    TooLong,
    /// A character outside printable ASCII.
    NotPrintable,
    /// A quoted key without its closing quote.
    UnclosedQuote,
    /// A backslash followed by anything but `"` or `\\`.
    BadEscape,
    /// Something follows the closing quote.
    TrailingCharacters,
    /// A quote inside a bare key.
    StrayQuote,
    /// A space inside a bare key.
    SpaceOutsideQuotes,
}

impl std::error::Error for Malformation {}

impl fmt::Display for Malformation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Malformation::Empty => "empty",
            Malformation::TooLong => "longer than 255 characters",
            Malformation::NotPrintable => "not printable ASCII",
            Malformation::UnclosedQuote => "missing closing quote",
            Malformation::BadEscape => "invalid escape",
            Malformation::TrailingCharacters => "unexpected characters after the string",
            Malformation::StrayQuote => "a stray quote",
            Malformation::SpaceOutsideQuotes => "a space outside quotes",
        })
    }
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Missing => f.write_str("Idempotency-Key is missing"),
            KeyError::Malformed(why) => write!(f, "Idempotency-Key is malformed: {why}"),
        }
    }
}

impl std::error::Error for KeyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KeyError::Missing => None,
            KeyError::Malformed(why) => Some(why),
        }
    }
}

impl IdempotencyKey {
    /// Parses the `Idempotency-Key` field value, in either of the forms clients send:
    ///
    /// - **quoted**, an RFC 8941 sf-string as the draft writes it (`"8e03978e-..."`), read
    ///   per §4.2 (leading and trailing SP are discarded; nothing may follow the item) and
    ///   §4.2.5 (only `\"` and `\\` escapes; only 0x20-0x7E);
    /// - **bare**, as Stripe's SDKs, the common idempotency middlewares and most HTTP tools
    ///   send it (`8e03978e-...`): visible ASCII (0x21-0x7E) with no quote.
    ///
    /// `abc` and `"abc"` are the same key. Refused: an empty key, one over [`MAX_KEY_LEN`]
    /// characters, control or non-ASCII characters, and unbalanced or stray quotes.
    /// RFC 8941 parameters (`"k";a=1`) are refused rather than ignored, since the draft
    /// defines none; so is a repeated header, which arrives joined as `"a", "b"`.
    pub fn parse(header: Option<&str>) -> Result<IdempotencyKey, KeyError> {
        let raw = header.ok_or(KeyError::Missing)?;
        let input = raw.trim_matches(' ');
        let key = if input.starts_with('"') {
            quoted(input)?
        } else {
            bare(input)?
        };
        if key.is_empty() {
            return Err(KeyError::Malformed(Malformation::Empty));
        }
        // Every char is ASCII here, so bytes are characters.
        if key.len() > MAX_KEY_LEN {
            return Err(KeyError::Malformed(Malformation::TooLong));
        }
        Ok(IdempotencyKey(key))
    }

    /// A key from a value hookonce chose itself (an event or message id); `Malformed`
    /// if an sf-string cannot carry it (empty, over 255 characters, not printable ASCII).
    pub fn from_value(value: &str) -> Result<IdempotencyKey, KeyError> {
        if value.is_empty() {
            return Err(KeyError::Malformed(Malformation::Empty));
        }
        if value.len() > MAX_KEY_LEN {
            return Err(KeyError::Malformed(Malformation::TooLong));
        }
        if !value.bytes().all(|b| (b' '..=b'~').contains(&b)) {
            return Err(KeyError::Malformed(Malformation::NotPrintable));
        }
        Ok(IdempotencyKey(value.to_owned()))
    }

    /// The field value to send: the key serialised as an sf-string (RFC 8941 §4.1.6),
    /// which [`IdempotencyKey::parse`] reads back to the same key.
    #[must_use]
    pub fn to_header(&self) -> String {
        let mut out = String::with_capacity(self.0.len() + 2);
        out.push('"');
        for c in self.0.chars() {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
        out
    }

    /// The key, unescaped.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An sf-string (RFC 8941 §4.2.5), opening quote included, and nothing after it.
fn quoted(input: &str) -> Result<String, KeyError> {
    let mut chars = input.chars().skip(1);
    let mut key = String::new();
    loop {
        match chars.next() {
            None => return Err(KeyError::Malformed(Malformation::UnclosedQuote)),
            Some('\\') => match chars.next() {
                Some(c @ ('"' | '\\')) => key.push(c),
                _ => return Err(KeyError::Malformed(Malformation::BadEscape)),
            },
            Some('"') => break,
            Some(c) if (' '..='~').contains(&c) => key.push(c),
            Some(_) => return Err(KeyError::Malformed(Malformation::NotPrintable)),
        }
    }
    if chars.next().is_some() {
        return Err(KeyError::Malformed(Malformation::TrailingCharacters));
    }
    Ok(key)
}

/// A bare key: visible ASCII, no spaces, no quotes.
fn bare(input: &str) -> Result<String, KeyError> {
    for c in input.chars() {
        match c {
            '"' => return Err(KeyError::Malformed(Malformation::StrayQuote)),
            ' ' => return Err(KeyError::Malformed(Malformation::SpaceOutsideQuotes)),
            '!'..='~' => {}
            _ => return Err(KeyError::Malformed(Malformation::NotPrintable)),
        }
    }
    Ok(input.to_owned())
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a request is, for telling a retry from a reuse of its key (draft §2.4,
/// "checksum of the entire request payload"): SHA-256 (FIPS 180-4) over the method, the
/// path and the SHA-256 of the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

/// Why a stored fingerprint could not be read back.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FingerprintError {
    /// Not exactly 64 characters.
    Length,
    /// A character other than `0-9`, `a-f`, `A-F`.
    NotHex,
}

impl fmt::Display for FingerprintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FingerprintError::Length => "fingerprint is not 64 hex digits",
            FingerprintError::NotHex => "fingerprint has a non-hex digit",
        })
    }
}

impl std::error::Error for FingerprintError {}

/// Versioned domain tag, so a future change of framing can never compare equal.
const FINGERPRINT_TAG: &[u8] = b"hookonce/idempotency/fingerprint/v1\0";

impl Fingerprint {
    /// Fingerprints a request. `path` is whatever identifies the target to the caller
    /// (include the query if it matters). The method is compared as sent: methods are
    /// case-sensitive (RFC 9110 §9.1).
    ///
    /// Method and path are length-prefixed (u64, big-endian) so that no two different
    /// (method, path) pairs frame to the same bytes; the body hash is fixed-size and last.
    #[must_use]
    pub fn of(method: &str, path: &str, body: &[u8]) -> Fingerprint {
        let mut h = Sha256::new();
        h.update(FINGERPRINT_TAG);
        for part in [method.as_bytes(), path.as_bytes()] {
            h.update((part.len() as u64).to_be_bytes());
            h.update(part);
        }
        h.update(Sha256::digest(body));
        Fingerprint(h.finalize().into())
    }

    /// Lowercase hex, 64 characters, for storage.
    #[must_use]
    pub fn to_hex(&self) -> String {
        self.to_string()
    }

    /// Reads back [`Fingerprint::to_hex`] (either case).
    pub fn from_hex(hex: &str) -> Result<Fingerprint, FingerprintError> {
        if hex.len() != 64 {
            return Err(FingerprintError::Length);
        }
        let mut out = [0u8; 32];
        if !crate::hex::decode_into(hex, &mut out) {
            return Err(FingerprintError::NotHex);
        }
        Ok(Fingerprint(out))
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::hex::encode(&self.0))
    }
}

/// The first response to a key, replayed byte for byte to its retries (draft §2.6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type` of `body`.
    pub content_type: String,
    /// The body exactly as first sent.
    pub body: Vec<u8>,
}

/// What the store holds for one (token, key): the first request's response, replayed
/// until `expires_at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyState {
    /// Fingerprint of the request that completed.
    pub fingerprint: Fingerprint,
    /// What it answered.
    pub response: StoredResponse,
    /// The key is forgotten from this instant on.
    pub expires_at: UnixSeconds,
}

impl KeyState {
    /// When this state stops mattering to [`decide`]: a good time for the Durable Object's
    /// alarm.
    #[must_use]
    pub fn prune_at(&self) -> UnixSeconds {
        self.expires_at
    }

    /// Whether the store may delete this state: [`decide`] would already ignore it.
    #[must_use]
    pub fn prune_due(&self, now: UnixSeconds) -> bool {
        self.prune_at() <= now
    }
}

/// How long keys live, published per the draft §2.3: a completed key is replayed for
/// `ttl` (24 hours by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyPolicy {
    /// How long a completed response is replayed.
    pub ttl: Seconds,
}

impl Default for KeyPolicy {
    fn default() -> Self {
        KeyPolicy { ttl: Seconds::DAY }
    }
}

/// Why a [`KeyPolicy`] was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyPolicyError {
    /// `ttl` is under [`KeyPolicy::MIN_TTL`]: shorter than a client's retries can span.
    TtlTooShort,
    /// `ttl` is over [`KeyPolicy::MAX_TTL`]: most likely a unit mistake.
    TtlTooLong,
}

impl fmt::Display for KeyPolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyPolicyError::TtlTooShort => "idempotency ttl is under 1 hour",
            KeyPolicyError::TtlTooLong => "idempotency ttl is over 30 days",
        })
    }
}

impl std::error::Error for KeyPolicyError {}

impl KeyPolicy {
    /// Shortest accepted `ttl`: clients back off over minutes to hours, and a key that
    /// expires mid-retry silently turns a retry into a second request.
    pub const MIN_TTL: Seconds = Seconds::HOUR;
    /// Longest accepted `ttl`; every key costs storage for this long.
    pub const MAX_TTL: Seconds = Seconds(30 * 86_400);

    /// Checks the bounds documented on [`KeyPolicyError`].
    pub fn validate(&self) -> Result<(), KeyPolicyError> {
        if self.ttl < Self::MIN_TTL {
            return Err(KeyPolicyError::TtlTooShort);
        }
        if self.ttl > Self::MAX_TTL {
            return Err(KeyPolicyError::TtlTooLong);
        }
        Ok(())
    }

    /// The state to store for a request accepted at `now`.
    #[must_use]
    pub fn completed(
        &self,
        fingerprint: Fingerprint,
        response: StoredResponse,
        now: UnixSeconds,
    ) -> KeyState {
        KeyState {
            fingerprint,
            response,
            expires_at: now.plus(self.ttl),
        }
    }
}

/// What to do with a request that carries a valid key.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum KeyDecision<'a> {
    /// First request for the key (or the previous one expired): accept it.
    Proceed,
    /// A retry of a completed request: answer with this, byte for byte.
    Replay(&'a StoredResponse),
    /// The key was used for a different request: 422.
    Mismatch,
}

/// Decides what to do with a request whose key maps to `stored`, at `now`.
pub fn decide<'a>(
    stored: Option<&'a KeyState>,
    fingerprint: &Fingerprint,
    now: UnixSeconds,
) -> KeyDecision<'a> {
    match stored {
        None => KeyDecision::Proceed,
        Some(state) if state.prune_due(now) => KeyDecision::Proceed,
        Some(state) if &state.fingerprint == fingerprint => KeyDecision::Replay(&state.response),
        Some(_) => KeyDecision::Mismatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(v: &str) -> Result<IdempotencyKey, KeyError> {
        IdempotencyKey::parse(Some(v))
    }

    fn malformed(v: &str) -> bool {
        matches!(parse(v), Err(KeyError::Malformed(_)))
    }

    fn response(body: &[u8]) -> StoredResponse {
        StoredResponse {
            status: 201,
            content_type: "application/json".into(),
            body: body.to_vec(),
        }
    }

    const T0: UnixSeconds = UnixSeconds(1_700_000_000);

    // --- parsing ---

    #[test]
    fn a_quoted_uuid_is_a_key() {
        let key = parse(r#""8e03978e-40d5-43e8-bc93-6894a57f9324""#).unwrap();
        assert_eq!(key.as_str(), "8e03978e-40d5-43e8-bc93-6894a57f9324");
    }

    #[test]
    fn escaped_quote_and_backslash_are_unescaped() {
        assert_eq!(parse(r#""a\"b\\c""#).unwrap().as_str(), r#"a"b\c"#);
    }

    #[test]
    fn spaces_inside_the_quotes_are_kept() {
        assert_eq!(parse(r#""a b ""#).unwrap().as_str(), "a b ");
    }

    #[test]
    fn surrounding_spaces_are_discarded() {
        assert_eq!(parse(r#"  "k"  "#).unwrap().as_str(), "k");
    }

    #[test]
    fn an_absent_header_is_missing_not_malformed() {
        assert_eq!(IdempotencyKey::parse(None), Err(KeyError::Missing));
    }

    #[test]
    fn any_other_escape_is_malformed() {
        assert!(malformed(r#""a\nb""#));
        assert!(malformed(r#""a\'b""#));
        assert!(malformed(r#""a\"#));
    }

    #[test]
    fn a_bare_key_as_clients_send_it_is_the_same_key_as_its_quoted_form() {
        // The glossary's own example, as Stripe's SDKs and most HTTP tools send it.
        let uuid = "5f1c2c9a-6f3e-4c1d-9b0a-2b7e1f8c4d11";
        assert_eq!(parse(uuid).unwrap().as_str(), uuid);
        assert_eq!(parse(uuid), parse(&format!("\"{uuid}\"")));
        assert_eq!(parse(" abc ").unwrap().as_str(), "abc");
        assert_eq!(parse("a\\b{}").unwrap().as_str(), "a\\b{}");
    }

    #[test]
    fn a_bare_key_with_a_space_a_quote_or_a_control_is_malformed() {
        for bad in [
            "a b",
            "ab\"",
            "a\"b",
            "caf\u{e9}",
            "a\u{7f}",
            "a\tb",
            "a\u{1}",
        ] {
            assert!(malformed(bad), "{bad:?}");
        }
        assert!(malformed(&"k".repeat(256)));
        assert!(!malformed(&"k".repeat(255)));
    }

    #[test]
    fn missing_quotes_are_malformed() {
        assert!(malformed(r#""abc"#));
        assert!(malformed(r#"abc""#));
        assert!(malformed(""));
        assert!(malformed("   "));
    }

    #[test]
    fn anything_after_the_closing_quote_is_malformed() {
        assert!(malformed(r#""a"b"#));
        assert!(malformed(r#""a";p=1"#));
        assert!(malformed(r#""a", "b""#));
    }

    #[test]
    fn tabs_are_not_sf_whitespace() {
        assert!(malformed("\t\"k\""));
        assert!(malformed("\tk"));
        assert!(malformed("\"a\tb\""));
    }

    #[test]
    fn non_ascii_and_controls_are_malformed() {
        assert!(malformed("\"caf\u{e9}\""));
        assert!(malformed("\"a\u{7f}\""));
        assert!(malformed("\"a\u{1}\""));
    }

    #[test]
    fn an_empty_string_is_malformed() {
        assert_eq!(
            parse(r#""""#),
            Err(KeyError::Malformed(Malformation::Empty))
        );
    }

    #[test]
    fn exactly_255_characters_is_accepted() {
        let key = "k".repeat(255);
        assert_eq!(parse(&format!("\"{key}\"")).unwrap().as_str(), key);
    }

    #[test]
    fn more_than_255_characters_is_malformed() {
        assert!(malformed(&format!("\"{}\"", "k".repeat(256))));
    }

    #[test]
    fn the_limit_counts_unescaped_characters() {
        let key = "\\\\".repeat(255); // 510 bytes on the wire, 255 characters
        assert_eq!(parse(&format!("\"{key}\"")).unwrap().as_str().len(), 255);
    }

    #[test]
    fn key_errors_say_what_is_wrong() {
        assert_eq!(KeyError::Missing.to_string(), "Idempotency-Key is missing");
        let e = IdempotencyKey::parse(Some("\"abc")).unwrap_err();
        assert_eq!(e, KeyError::Malformed(Malformation::UnclosedQuote));
        assert_eq!(
            e.to_string(),
            "Idempotency-Key is malformed: missing closing quote"
        );
    }

    // --- fingerprints ---

    #[test]
    fn method_and_path_cannot_shift_into_each_other() {
        assert_ne!(
            Fingerprint::of("PO", "ST/x", b""),
            Fingerprint::of("POST", "/x", b"")
        );
        assert_ne!(
            Fingerprint::of("POST", "/x", b"a"),
            Fingerprint::of("POST", "/xa", b"")
        );
    }

    #[test]
    fn any_part_changes_the_fingerprint() {
        let base = Fingerprint::of("POST", "/v1/events", b"{}");
        assert_eq!(base, Fingerprint::of("POST", "/v1/events", b"{}"));
        assert_ne!(base, Fingerprint::of("PUT", "/v1/events", b"{}"));
        assert_ne!(base, Fingerprint::of("post", "/v1/events", b"{}"));
        assert_ne!(base, Fingerprint::of("POST", "/v1/event", b"{}"));
        assert_ne!(base, Fingerprint::of("POST", "/v1/events", b"{ }"));
    }

    #[test]
    fn hex_round_trips_in_either_case() {
        let fp = Fingerprint::of("POST", "/x", b"body");
        let hex = fp.to_hex();
        assert_eq!(hex.len(), 64);
        assert_eq!(hex, hex.to_lowercase());
        assert_eq!(Fingerprint::from_hex(&hex), Ok(fp));
        assert_eq!(Fingerprint::from_hex(&hex.to_uppercase()), Ok(fp));
    }

    #[test]
    fn bad_hex_is_refused() {
        assert_eq!(Fingerprint::from_hex("ab"), Err(FingerprintError::Length));
        let bad = format!("{}g", "0".repeat(63));
        assert_eq!(Fingerprint::from_hex(&bad), Err(FingerprintError::NotHex));
        let non_ascii = format!("{}\u{e9}", "0".repeat(62));
        assert_eq!(
            Fingerprint::from_hex(&non_ascii),
            Err(FingerprintError::NotHex)
        );
    }

    // --- decisions ---

    #[test]
    fn an_unseen_key_proceeds() {
        let fp = Fingerprint::of("POST", "/x", b"1");
        assert_eq!(decide(None, &fp, T0), KeyDecision::Proceed);
    }

    #[test]
    fn a_completed_key_replays_its_response_to_the_same_request() {
        let policy = KeyPolicy::default();
        let fp = Fingerprint::of("POST", "/x", b"1");
        let state = policy.completed(fp, response(b"{\"id\":1}"), T0);
        let d = decide(Some(&state), &fp, UnixSeconds(T0.0 + 3_600));
        assert_eq!(d, KeyDecision::Replay(&response(b"{\"id\":1}")));
    }

    #[test]
    fn a_completed_key_reused_for_another_request_is_a_mismatch() {
        let policy = KeyPolicy::default();
        let state = policy.completed(Fingerprint::of("POST", "/x", b"1"), response(b""), T0);
        let other = Fingerprint::of("POST", "/x", b"2");
        let d = decide(Some(&state), &other, UnixSeconds(T0.0 + 1));
        assert_eq!(d, KeyDecision::Mismatch);
    }

    #[test]
    fn an_expired_key_proceeds_as_new_whatever_the_fingerprint() {
        let policy = KeyPolicy::default();
        let fp = Fingerprint::of("POST", "/x", b"1");
        let state = policy.completed(fp, response(b""), T0);
        let expiry = UnixSeconds(T0.0 + 86_400);
        let just_before = UnixSeconds(expiry.0 - 1);
        assert!(matches!(
            decide(Some(&state), &fp, just_before),
            KeyDecision::Replay(_)
        ));
        let other = Fingerprint::of("POST", "/x", b"2");
        for fingerprint in [fp, other] {
            assert!(matches!(
                decide(Some(&state), &fingerprint, expiry),
                KeyDecision::Proceed
            ));
        }
    }

    #[test]
    fn states_are_prunable_exactly_when_decide_ignores_them() {
        let policy = KeyPolicy::default();
        let fp = Fingerprint::of("POST", "/x", b"1");
        let done = policy.completed(fp, response(b""), T0);
        assert_eq!(done.prune_at(), UnixSeconds(T0.0 + 86_400));
        assert!(!done.prune_due(UnixSeconds(T0.0 + 86_399)));
        assert!(done.prune_due(UnixSeconds(T0.0 + 86_400)));
    }

    #[test]
    fn the_default_policy_is_valid() {
        assert_eq!(KeyPolicy::default().validate(), Ok(()));
    }

    #[test]
    fn policies_out_of_bounds_are_refused() {
        let p = |ttl| KeyPolicy { ttl: Seconds(ttl) };
        assert_eq!(p(3_599).validate(), Err(KeyPolicyError::TtlTooShort));
        assert_eq!(p(3_600).validate(), Ok(()));
        assert_eq!(
            p(30 * 86_400 + 1).validate(),
            Err(KeyPolicyError::TtlTooLong)
        );
    }

    proptest! {
        #[test]
        fn a_retry_before_expiry_replays_the_identical_body(
            method in "[A-Z]{1,7}",
            path in "/[ -~]{0,40}",
            body in proptest::collection::vec(any::<u8>(), 0..512),
            stored in proptest::collection::vec(any::<u8>(), 0..512),
            ttl in 3_600u64..=30 * 86_400,
            elapsed in 0u64..30 * 86_400,
        ) {
            let policy = KeyPolicy { ttl: Seconds(ttl) };
            let fp = Fingerprint::of(&method, &path, &body);
            let state = policy.completed(fp, response(&stored), T0);
            let now = T0.plus(Seconds(elapsed));
            let retry = Fingerprint::of(&method, &path, &body);
            match decide(Some(&state), &retry, now) {
                KeyDecision::Replay(r) => {
                    prop_assert!(elapsed < ttl);
                    prop_assert_eq!(&r.body, &stored);
                }
                KeyDecision::Proceed => prop_assert!(elapsed >= ttl),
                other => prop_assert!(false, "unexpected {:?}", other),
            }
        }

        #[test]
        fn any_printable_key_round_trips_through_escaping(key in "[ -~]{1,255}") {
            let escaped = key.replace('\\', "\\\\").replace('"', "\\\"");
            let parsed = IdempotencyKey::parse(Some(&format!("\"{escaped}\""))).unwrap();
            prop_assert_eq!(parsed.as_str(), key.as_str());
        }
    }
}

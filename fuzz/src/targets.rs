//! The fuzz targets: each reads its input with [`Fields`], must never panic, and asserts
//! properties whose expected values are computed here, not by the code under test.

use hookonce_core::config::{Destination, ForwardMode, SourceConfig, Sources};
use hookonce_core::event::{CreatedAt, Event};
use hookonce_core::idempotency::{IdempotencyKey, MAX_KEY_LEN};
use hookonce_core::retry::{parse_retry_after, MAX_RETRY_AFTER};
use hookonce_core::route::{decode_segment, query_param, Route};
use hookonce_core::sign;
use hookonce_core::time::{Seconds, UnixSeconds};
use hookonce_core::verify::{Scheme, Verifier};
use serde_json::{json, Value};

use crate::{split_oracle, Fields};

/// One target: its name (a `make fuzz` argument), the function, and how to make inputs.
pub struct Target {
    /// As in `make fuzz TARGET=…`.
    pub name: &'static str,
    /// Never panics; panics on a broken property.
    pub run: fn(&[u8]),
    /// A structured input (see [`crate::gen`]).
    pub generate: fn(&mut crate::Rng) -> Vec<u8>,
    /// Tokens worth splicing into inputs when mutating.
    pub dictionary: &'static [&'static str],
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "standard_webhooks",
        run: standard_webhooks,
        generate: crate::gen::standard_webhooks,
        dictionary: &[
            "v1,", "v1a,", " ", ",", "=", "-", "+", "whsec_", "\u{0660}", ".",
        ],
    },
    Target {
        name: "stripe",
        run: stripe,
        generate: crate::gen::stripe,
        dictionary: &["t=", "v1=", "v0=", ",", " ", "=", ";", "-", "00", "ff"],
    },
    Target {
        name: "github",
        run: github,
        generate: crate::gen::github,
        dictionary: &["sha256=", "sha1=", "=", " ", "00", "ff", "FF"],
    },
    Target {
        name: "event_parse",
        run: event_parse,
        generate: crate::gen::event,
        dictionary: &[
            "{", "}", "[", "]", "\"", ":", ",", "null", "1e400", "-", "\\u0000", "\\ud800",
        ],
    },
    Target {
        name: "source_config",
        run: source_config,
        generate: crate::gen::source_config,
        dictionary: &[
            "{", "}", "\"", ":", ",", "null", "0", "-1", "[]", "\"/\"", "\"*\"",
        ],
    },
    Target {
        name: "idempotency_key",
        run: idempotency_key,
        generate: crate::gen::idempotency_key,
        dictionary: &["\"", "\\", ";", ",", " ", "\t", ":", "?1", "\u{7f}", "é"],
    },
    Target {
        name: "retry_after",
        run: retry_after,
        generate: crate::gen::retry_after,
        dictionary: &[
            "GMT",
            ", ",
            " ",
            ":",
            "Sun",
            "Feb",
            "29",
            "60",
            "99999999999999999999999",
        ],
    },
    Target {
        name: "rfc3339",
        run: rfc3339,
        generate: crate::gen::rfc3339,
        dictionary: &[
            "T", "Z", "z", ".", "+", "-", ":", "60", "24", "\u{0660}", " ",
        ],
    },
    Target {
        name: "route",
        run: route,
        generate: crate::gen::route,
        dictionary: &[
            "%", "%2F", "%2f", "%ff", "%C3%28", "/", "+", "&", "=", "?", "%00",
        ],
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

const TOLERANCE: Seconds = Seconds(300);

/// Checks a scheme end to end: arbitrary headers never panic; a signature made for a body
/// verifies within the tolerance, and fails for another body or outside it.
fn round_trip(
    scheme: Scheme,
    secret: &str,
    id: &str,
    signed_at: i64,
    now: i64,
    body: &[u8],
    fuzzed: &[(String, String)],
) {
    let Ok(key) = scheme.parse_secret(secret) else {
        return;
    };
    let verifier = Verifier::new(scheme.clone(), vec![key.clone()], TOLERANCE).expect("one secret");
    let now = UnixSeconds(now);
    let pairs: Vec<(&str, &str)> = fuzzed
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let _ = verifier.verify(&pairs, body, now);

    let headers = sign::headers(&scheme, &key, id, UnixSeconds(signed_at), body);
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // A timestamp before 1970 is refused as malformed, by design.
    let within = signed_at >= 0 && signed_at.abs_diff(now.0) <= TOLERANCE.0;
    let timed = scheme != Scheme::GitHub;
    // Standard Webhooks needs a webhook-id to sign; an empty one is refused as missing.
    let id_ok = scheme != Scheme::StandardWebhooks || !id.is_empty();
    let result = verifier.verify(&headers, body, now);
    if (within || !timed) && id_ok {
        let v = result.unwrap_or_else(|e| panic!("{scheme:?}: own signature refused: {e}"));
        assert_eq!(v.body(), body);
    } else {
        assert!(
            result.is_err(),
            "{scheme:?}: accepted outside the tolerance or without an id"
        );
    }
    let mut other = body.to_vec();
    other.push(b'x');
    assert!(
        verifier.verify(&headers, &other, now).is_err(),
        "{scheme:?}: a signature verified another body"
    );
}

/// Fields: secret, id, timestamp text, signature header, body, signed_at, now.
pub fn standard_webhooks(data: &[u8]) {
    let mut f = Fields::of(data);
    let (secret, id, ts, sig, body) = (f.text(), f.text(), f.text(), f.text(), f.bytes().to_vec());
    let (signed_at, now) = (f.int(), f.int());
    let fuzzed = vec![
        ("webhook-id".to_owned(), id.clone()),
        ("webhook-timestamp".to_owned(), ts),
        ("webhook-signature".to_owned(), sig),
    ];
    round_trip(
        Scheme::StandardWebhooks,
        &secret,
        &id,
        signed_at,
        now,
        &body,
        &fuzzed,
    );
}

/// Fields: secret, Stripe-Signature header, body, signed_at, now.
pub fn stripe(data: &[u8]) {
    let mut f = Fields::of(data);
    let (secret, header, body) = (f.text(), f.text(), f.bytes().to_vec());
    let (signed_at, now) = (f.int(), f.int());
    let fuzzed = vec![("stripe-signature".to_owned(), header)];
    round_trip(Scheme::Stripe, &secret, "", signed_at, now, &body, &fuzzed);
}

/// Fields: secret, X-Hub-Signature-256 header, body, now.
pub fn github(data: &[u8]) {
    let mut f = Fields::of(data);
    let (secret, header, body) = (f.text(), f.text(), f.bytes().to_vec());
    let now = f.int();
    let fuzzed = vec![("x-hub-signature-256".to_owned(), header)];
    round_trip(Scheme::GitHub, &secret, "", 0, now, &body, &fuzzed);
}

/// The source shapes `event_parse` reads with: each scheme's defaults, and fields from
/// headers and odd pointers.
fn shapes() -> Vec<SourceConfig> {
    let effects = json!({
        "snap": "snapshot",
        "led": { "ledger": "/data/object/amount" },
        "deep": { "ledger": "/a/b/c/d" },
        "*": "notify",
    });
    [
        json!({"scheme": "standard-webhooks", "secrets": ["S"], "effects": effects}),
        json!({"scheme": "stripe", "secrets": ["S"], "effects": effects}),
        // Header-read fields on purpose, so the parser's header paths are fuzzed too.
        json!({"scheme": "github", "secrets": ["S"], "effects": effects,
               "trust_unsigned_headers": true}),
        json!({"scheme": "standard-webhooks", "secrets": ["S"], "effects": effects,
               "id_header": "x-id", "trust_unsigned_headers": true,
               "fields": {"type": "/", "created_at": "/0", "entity": "/~0~1", "object": ""}}),
    ]
    .iter()
    .map(|v| SourceConfig::from_json("fuzz", v).expect("the fuzz shapes are valid"))
    .collect()
}

/// Fields: shape index, body, id header, event header.
pub fn event_parse(data: &[u8]) {
    thread_local! {
        static SHAPES: Vec<SourceConfig> = shapes();
    }
    let mut f = Fields::of(data);
    let which = f.int().unsigned_abs() as usize;
    let body = f.bytes().to_vec();
    let (id, kind) = (f.text(), f.text());
    SHAPES.with(|shapes| {
        let source = &shapes[which % shapes.len()];
        let secret = source
            .scheme
            .parse_secret("whsec_c2VjcmV0")
            .expect("a secret");
        let now = UnixSeconds(1_791_270_400);
        let signed = sign::headers(&source.scheme, &secret, "msg_1", now, &body);
        let mut headers: Vec<(&str, &str)> = signed.iter().map(|(k, v)| (*k, v.as_str())).collect();
        headers.extend([
            ("x-github-delivery", id.as_str()),
            ("x-github-event", kind.as_str()),
            ("x-id", id.as_str()),
        ]);
        let verifier =
            Verifier::new(source.scheme.clone(), vec![secret], TOLERANCE).expect("one secret");
        let verified = verifier
            .verify(&headers, &body, now)
            .expect("signed just now");
        if let Ok(event) = Event::parse(&verified, &headers, &source.shape) {
            assert!(!event.id().as_str().is_empty(), "an event without an id");
            if let Some(c) = event.created_at() {
                assert!(c.nanos() < 1_000_000_000);
            }
        }
    });
}

/// Fields: JSON text of one source, or of all sources.
pub fn source_config(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    if let Ok(s) = SourceConfig::from_json("fuzz", &value) {
        assert!(!s.secrets.is_empty(), "a source without secrets");
        assert!(
            !s.headers_read().is_empty(),
            "a source that reads no signature header"
        );
        let sync = s
            .destinations
            .iter()
            .filter(|d| d.forward.mode == ForwardMode::Sync);
        assert!(sync.count() <= 1, "two sync destinations");
        for fw in s.destinations.iter().map(|d| &d.forward) {
            assert!(
                fw.lease > fw.timeout,
                "a lease that does not outlast the call"
            );
            assert!(
                !(fw.mode == ForwardMode::Sync && matches!(fw.destination, Destination::Queue(_))),
                "sync forwarding to a queue"
            );
        }
    }
    if let Ok(all) = Sources::from_json(&value) {
        for s in all.iter() {
            let ok = !s.name.is_empty()
                && s.name.len() <= 64
                && s.name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            assert!(ok, "source name {:?} accepted", s.name);
        }
    }
}

/// Fields: the header value.
pub fn idempotency_key(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(k) = IdempotencyKey::parse(Some(&text)) {
        let len = k.as_str().chars().count();
        assert!((1..=MAX_KEY_LEN).contains(&len), "key of {len} characters");
        assert!(
            k.as_str().bytes().all(|b| (0x20..=0x7e).contains(&b)),
            "non-printable key"
        );
        assert_eq!(
            IdempotencyKey::parse(Some(&k.to_header())).as_ref(),
            Ok(&k),
            "to_header does not round-trip"
        );
        assert_eq!(IdempotencyKey::from_value(k.as_str()).as_ref(), Ok(&k));
    }
    if let Ok(k) = IdempotencyKey::from_value(&text) {
        assert_eq!(k.as_str(), text, "from_value changed the value");
        assert_eq!(IdempotencyKey::parse(Some(&k.to_header())).as_ref(), Ok(&k));
    }
}

/// Whether `y` is a leap year of the proleptic Gregorian calendar.
pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// The days of month `month` (1 to 12) of year `y`.
pub fn days_in_month(y: i64, month: u32) -> i64 {
    match month {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date, counted the slow way (an oracle
/// independent of the core's calendar arithmetic). Years 1..=9999.
pub fn days_since_epoch(year: i64, month: u32, day: u32) -> i64 {
    let year_days = |y: i64| if is_leap(y) { 366 } else { 365 };
    let mut days: i64 = if year >= 1970 {
        (1970..year).map(year_days).sum()
    } else {
        -(year..1970).map(year_days).sum::<i64>()
    };
    days += (1..month).map(|m| days_in_month(year, m)).sum::<i64>();
    days + i64::from(day) - 1
}

/// Fields: the value, now; the oracle: the date's year, month, day, h, m, s.
pub fn retry_after(data: &[u8]) {
    let (payload, oracle) = split_oracle(data);
    let mut f = Fields::of(payload);
    let value = f.text();
    let now = UnixSeconds(f.int());
    let got = parse_retry_after(&value, now);
    if let Some(d) = got {
        assert!(d <= MAX_RETRY_AFTER, "{value:?}: {d:?} over the cap");
    }
    let trimmed = value.trim_matches([' ', '\t']);
    if !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit()) {
        let want = trimmed
            .parse::<u64>()
            .unwrap_or(u64::MAX)
            .min(MAX_RETRY_AFTER.0);
        assert_eq!(got, Some(Seconds(want)), "{value:?}");
    }
    if let Some(oracle) = oracle {
        let mut o = Fields::of(oracle);
        let [y, mo, d, h, mi, s] = [(); 6].map(|_| o.int());
        let at = days_since_epoch(y, mo as u32, d as u32) * 86_400 + h * 3600 + mi * 60 + s;
        let want = Seconds(u64::try_from(at - now.0).unwrap_or(0)).min(MAX_RETRY_AFTER);
        assert_eq!(got, Some(want), "{value:?} at now = {}", now.0);
    }
}

/// Fields: the text; the oracle: the seconds and nanoseconds it denotes.
pub fn rfc3339(data: &[u8]) {
    let (payload, oracle) = split_oracle(data);
    let text = String::from_utf8_lossy(payload);
    let got = CreatedAt::parse_rfc3339(&text);
    if let Some(c) = got {
        assert!(c.nanos() < 1_000_000_000);
    }
    if let Some(oracle) = oracle {
        let mut o = Fields::of(oracle);
        let (secs, nanos) = (o.int(), o.int() as u32);
        let c = got.unwrap_or_else(|| panic!("{text:?} refused, expected {secs}.{nanos}"));
        assert_eq!((c.secs(), c.nanos()), (secs, nanos), "{text:?}");
    }
}

/// Percent-encodes every byte outside unreserved (RFC 3986), as a client would.
pub fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Fields: method, path, query; then a plain string to encode and decode back.
pub fn route(data: &[u8]) {
    let mut f = Fields::of(data);
    let (method, path, query) = (f.text(), f.text(), f.text());
    let _ = Route::parse(&method, &path, &query);
    let _ = query_param(&query, "entity");
    for seg in path.split('/') {
        if let Some(s) = decode_segment(seg) {
            assert_eq!(
                decode_segment(&percent_encode(&s)).as_deref(),
                Some(s.as_str())
            );
        }
    }
    let plain = f.text();
    let enc = percent_encode(&plain);
    assert_eq!(
        decode_segment(&enc).as_deref(),
        Some(plain.as_str()),
        "{enc}"
    );
    assert_eq!(
        Route::parse("POST", &format!("/webhooks/{enc}"), ""),
        Ok(Route::Receive {
            source: plain.clone()
        })
    );
    assert_eq!(
        Route::parse(
            "GET",
            &format!("/events/s/{enc}"),
            &format!("a=1&entity={enc}")
        ),
        Ok(Route::Event {
            source: "s".into(),
            event_id: plain.clone(),
            entity: Some(plain.clone())
        })
    );
    assert_eq!(
        query_param(&format!("entity={enc}&entity=x"), "entity"),
        Some(Ok(plain))
    );
}

//! Hostile inputs over every route, as a table of cases sent byte for byte to workerd (run
//! directly, state on disk): paths, methods and headers; each scheme's signature headers
//! and odd timestamps; odd bodies, ids, entities and dates; oversized bodies and lying
//! `Content-Length`s; admin and publish auth; publish keys and bodies. Every case must hold
//! four things:
//!
//! 1. it never gets a `5xx`;
//! 2. every error is `application/problem+json` (a problem document with its status);
//! 3. the worker still applies a valid event right after it;
//! 4. nothing in storage changes for a rejected request (the files on disk, hashed).

use hookonce_core::route::ROUTES;
use hookonce_e2e::events::{at, cardholder_created, cockpit_secret, ADMIN_TOKEN, COCKPIT};
use hookonce_e2e::origin::{Origin, Reply};
use hookonce_e2e::raw::{changed, chunked as chunks, fingerprint, RawRequest};
use hookonce_e2e::schemes::standard_webhooks_signature;
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{publish, sign_github as github_signature, sign_stripe as stripe_signature};
use hookonce_e2e::{unix_now, wrangler_sources};
use serde_json::{json, Value};

const STRIPE_SECRET: &str = "whsec_stripe_hostile_secret";
const GITHUB_SECRET: &str = "github hostile secret";
/// The entity the canary events and the admin cases use.
const CANARY: &str = "ch_canary";

/// One hostile request, and whether it must be refused.
struct Case {
    name: String,
    req: RawRequest,
    /// `true`: must get a 4xx. `false`: any status below 500 (some odd inputs are valid).
    refused: bool,
    /// Malformed HTTP framing, which workerd's HTTP layer refuses itself before any worker
    /// code runs (a `text/plain` 400, or closing the connection): any 4xx or no answer
    /// will do, but never a 5xx and never a change in storage.
    framing: bool,
    /// Accepted work that goes on in the background (a publish to a failing
    /// destination): such cases run last, so their writes cannot be blamed on another.
    background: bool,
    /// The answer must carry no binding name, secret value or runtime error text
    /// ([`discloses`]; issue 48).
    quiet: bool,
}

fn case(name: impl Into<String>, method: &str, path: &str) -> Case {
    Case {
        name: name.into(),
        req: RawRequest {
            method: method.into(),
            path: path.into(),
            ..RawRequest::default()
        },
        refused: true,
        framing: false,
        background: false,
        quiet: false,
    }
}

impl Case {
    fn header(mut self, k: &str, v: impl AsRef<[u8]>) -> Case {
        self.req.headers.push((k.into(), v.as_ref().to_vec()));
        self
    }
    fn body(mut self, b: impl AsRef<[u8]>) -> Case {
        self.req.body = b.as_ref().to_vec();
        self
    }
    fn content_length(mut self, v: &str) -> Case {
        self.req.content_length = Some(v.into());
        self
    }
    fn framing(mut self) -> Case {
        self.framing = true;
        self
    }
    fn may_succeed(mut self) -> Case {
        self.refused = false;
        self
    }
}

fn now() -> String {
    unix_now().to_string()
}

/// A valid cockpit event body with id `id`.
fn event_body(id: &str) -> Vec<u8> {
    cardholder_created(id, "ch_hostile", &at(1), "Ada")
        .to_string()
        .into_bytes()
}

/// POST /webhooks/cockpit of `body`, Standard Webhooks headers as given (signed over the
/// literal timestamp text, so only its parsing decides).
fn sw(name: impl Into<String>, id: &str, ts: &str, body: &[u8]) -> Case {
    let sig = standard_webhooks_signature(&cockpit_secret(), id, ts, body);
    case(name, "POST", "/webhooks/cockpit")
        .header("content-type", "application/json")
        .header("webhook-id", id)
        .header("webhook-timestamp", ts)
        .header("webhook-signature", sig)
        .body(body)
}

/// A validly signed cockpit delivery of `body` (its content decides).
fn signed_body(name: impl Into<String>, body: impl AsRef<[u8]>) -> Case {
    let id = format!("msg_{}", unix_now());
    sw(name, &id, &now(), body.as_ref())
}

fn stripe(name: impl Into<String>, header: impl AsRef<[u8]>, body: &[u8]) -> Case {
    case(name, "POST", "/webhooks/stripe")
        .header("stripe-signature", header)
        .body(body)
}

fn github(name: impl Into<String>, headers: &[(&str, &[u8])], body: &[u8]) -> Case {
    let mut c = case(name, "POST", "/webhooks/github").body(body);
    for (k, v) in headers {
        c = c.header(k, v);
    }
    c
}

fn admin_auth(value: &[u8]) -> Vec<(String, Vec<u8>)> {
    vec![("authorization".into(), value.to_vec())]
}

fn with_headers(mut c: Case, headers: Vec<(String, Vec<u8>)>) -> Case {
    c.req.headers.extend(headers);
    c
}

/// Digits of `n` in another script: `zero` is that script's 0 (e.g. '٠', '０').
fn digits_in(n: &str, zero: char) -> String {
    n.chars()
        .map(|c| char::from_u32(zero as u32 + c.to_digit(10).unwrap()).unwrap())
        .collect()
}

fn cases(origin: &Origin) -> Vec<Case> {
    let mut v = Vec::new();
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let token = publish::token();

    // --- Paths and methods: every route with every other method.
    for (method, template) in ROUTES {
        let path = template
            .replace("{source}", COCKPIT)
            .replace("{entity}", CANARY)
            .replace("{event_id}", "evt_x")
            .replace("{destination}", "default");
        for other in ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            if other != *method {
                v.push(with_headers(
                    case(format!("{other} {path}"), other, &path),
                    admin_auth(bearer.as_bytes()),
                ));
            }
        }
    }
    for path in [
        "//",
        "/webhooks",
        "/webhooks/",
        "/webhooks//",
        "/webhooks/cockpit/",
        "/webhooks/cockpit/extra",
        "/webhooks/%",
        "/webhooks/%4",
        "/webhooks/%zz",
        "/webhooks/%+f",
        "/webhooks/%ff",
        "/webhooks/%C3%28",
        "/webhooks/%00",
        "/webhooks/cock%70it",
        "/webhooks/cockpit%2F..",
        "/WEBHOOKS/cockpit",
        "/webhooks/cockpit?x=%zz&&=&",
        "/webhooks/../entities/cockpit/ch_canary",
        "/%2e%2e/webhooks/cockpit",
        "/webhooks/%E2%80%AE",
        "/v1/messages/",
        "/v1//messages",
        "/admin/replay/cockpit",
        "/admin/outbox/cockpit/ch_canary",
        "*",
    ] {
        v.push(case(format!("POST {path}"), "POST", path).body("{}"));
    }
    v.push(case(
        "a 10 KiB path",
        "GET",
        &format!("/{}", "a".repeat(10_240)),
    ));
    v.push(case("a non-ASCII path", "POST", "/webhooks/c\u{f6}ckpit"));

    // --- Headers, around a validly signed event.
    let id = "evt_hostile_headers";
    let body = event_body(id);
    for ct in ["text/plain", "", "application/json; charset=utf-16", "*/*"] {
        let mut c = sw(format!("content-type {ct:?}"), id, &now(), &body).may_succeed();
        c.req.headers.retain(|(k, _)| k != "content-type");
        v.push(c.header("content-type", ct));
    }
    v.push(
        sw("a 16 KiB header", id, &now(), &body)
            .header("x-junk", "a".repeat(16_384))
            .may_succeed(),
    );
    let mut many = sw("200 extra headers", id, &now(), &body).may_succeed();
    for i in 0..200 {
        many = many.header(&format!("x-junk-{i}"), "1");
    }
    v.push(many);
    v.push(
        sw("a second, junk webhook-signature", id, &now(), &body)
            .header("webhook-signature", "v1,junk")
            .may_succeed(),
    );
    v.push(
        sw("a second webhook-timestamp", id, &now(), &body)
            .header("webhook-timestamp", "0")
            .may_succeed(),
    );
    v.push(
        sw("a control byte in a header", id, &now(), &body)
            .header("x-junk", b"a\x01b")
            .may_succeed(),
    );
    v.push(
        sw("obs-text bytes in a header", id, &now(), &body)
            .header("x-junk", b"\xff\xfe")
            .may_succeed(),
    );

    // --- Standard Webhooks signatures.
    let secret = cockpit_secret();
    let ts = now();
    let good = standard_webhooks_signature(&secret, id, &ts, &body);
    let good_b64 = good.trim_start_matches("v1,").to_owned();
    for sig in [
        String::new(),
        "v1,".into(),
        "v1".into(),
        format!("v2,{good_b64}"),
        good_b64.clone(),
        format!("V1,{good_b64}"),
        format!("v1a,{good_b64}"),
        format!("v1,{}", good_b64.trim_end_matches('=')),
        format!("v1,{}", good_b64.replace('+', "-").replace('/', "_")),
        format!("v1,{good_b64},extra"),
        "v1,=".into(),
        "v1,%%%%".into(),
        format!("v1,{}", "QUFB".repeat(11)),
        format!("v1,{}", "A".repeat(10_000)),
        vec!["v1,AAAA"; 1000].join(" "),
    ]
    .into_iter()
    // The URL-safe variant equals the real signature when it has no `+` or `/`.
    .filter(|sig| *sig != good)
    {
        v.push(
            case(
                format!("webhook-signature {:.40?}", sig),
                "POST",
                "/webhooks/cockpit",
            )
            .header("webhook-id", id)
            .header("webhook-timestamp", &ts)
            .header("webhook-signature", &sig)
            .body(&body),
        );
    }
    for sig in [
        format!("{good} v1,junk"),
        format!("v1,junk {good}"),
        format!(" {good} "),
        // Trailing Unicode whitespace is trimmed (str::trim), the signature still matches.
        format!("v1,{good_b64}\u{a0}"),
    ] {
        v.push(
            case(
                format!("webhook-signature {sig:.30?} (one valid)"),
                "POST",
                "/webhooks/cockpit",
            )
            .header("webhook-id", id)
            .header("webhook-timestamp", &ts)
            .header("webhook-signature", &sig)
            .body(&body)
            .may_succeed(),
        );
    }
    let n = unix_now();
    for ts in [
        "-1".to_string(),
        "0".into(),
        "-0".into(),
        "99999999999999999999".into(),
        "9223372036854775807".into(),
        "9223372036854775808".into(),
        "-9223372036854775808".into(),
        "18446744073709551616".into(),
        format!("{n}.5"),
        format!("{n}.0"),
        "1.5".into(),
        format!(" {n}"),
        format!("{n} "),
        format!("\t{n}"),
        format!("+{n}"),
        format!("0{n}"),
        format!("0x{n:x}"),
        "1e9".into(),
        format!("{n}e0"),
        digits_in(&n.to_string(), '\u{ff10}'),
        digits_in(&n.to_string(), '\u{0660}'),
        digits_in(&n.to_string(), '\u{0966}'),
        String::new(),
        (n - 301).to_string(),
        (n + 301).to_string(),
        "NaN".into(),
        "Infinity".into(),
    ] {
        v.push(sw(format!("webhook-timestamp {ts:?}"), id, &ts, &body).may_succeed());
    }
    v.push(
        sw(
            "webhook-timestamp with a NUL",
            id,
            &format!("{n}\u{0}"),
            &body,
        )
        .framing(),
    );
    for wid in [
        String::new(),
        " ".into(),
        "x".repeat(10_000),
        "évt_ünïcode".into(),
        "evt/../x".into(),
        "%00".into(),
        "other_id_than_the_body".into(),
    ] {
        v.push(sw(format!("webhook-id {wid:.20?}"), &wid, &now(), &body).may_succeed());
    }
    for missing in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
        let mut c = sw(format!("without {missing}"), id, &now(), &body);
        c.req.headers.retain(|(k, _)| k != missing);
        v.push(c);
    }
    v.push(case("no signature headers at all", "POST", "/webhooks/cockpit").body(&body));
    let mut other = sw("signed with another secret", id, &now(), &body);
    other.req.headers.retain(|(k, _)| k != "webhook-signature");
    let wrong = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    v.push(other.header(
        "webhook-signature",
        standard_webhooks_signature(wrong, id, &now(), &body),
    ));

    // --- Stripe.
    let sbody = json!({"id": "evt_stripe_hostile", "type": "customer.updated", "created": n,
                       "data": {"object": {"id": "cus_1", "name": "Ada"}}})
    .to_string()
    .into_bytes();
    let sig = stripe_signature(STRIPE_SECRET, n, &sbody);
    let v1 = sig.split_once(",v1=").unwrap().1.to_owned();
    v.push(stripe("stripe valid", &sig, &sbody).may_succeed());
    for h in [
        format!("t={n}"),
        format!("v1={v1}"),
        "t=,v1=".into(),
        format!(
            "t=-1,v1={}",
            stripe_signature(STRIPE_SECRET, -1, &sbody)
                .split_once(",v1=")
                .unwrap()
                .1
        ),
        format!("t=99999999999999999999,v1={v1}"),
        format!("t={n}.5,v1={v1}"),
        format!("t= {n},v1={v1}"),
        format!("t={n},v1={}", v1.to_uppercase()),
        format!("t={n},v1={}", &v1[..32]),
        format!("t={n},v0={v1}"),
        format!("t={n};v1={v1}"),
        format!("t={},v1={v1}", digits_in(&n.to_string(), '\u{0660}')),
        String::new(),
        ",,,,".into(),
        "t".repeat(10_000),
        format!("t={n},v1={v1}zz"),
    ] {
        v.push(stripe(format!("stripe-signature {h:.40?}"), &h, &sbody).may_succeed());
    }
    v.push(stripe("stripe v1 order swapped", format!("v1={v1},t={n}"), &sbody).may_succeed());
    v.push(
        stripe(
            "stripe a junk v1 before the valid one",
            format!("t={n},v1=00,v1={v1}"),
            &sbody,
        )
        .may_succeed(),
    );
    v.push(stripe("stripe two t", format!("t={n},t={},v1={v1}", n + 1), &sbody).may_succeed());
    v.push(stripe("stripe signature over another body", &sig, b"{}"));
    for (name, b) in [
        (
            "stripe without created",
            json!({"id": "evt_s2", "type": "customer.updated", "data": {"object": {"id": "cus_1"}}}),
        ),
        (
            "stripe created as RFC 3339",
            json!({"id": "evt_s3", "type": "customer.updated", "created": "2026-10-06T00:00:00Z", "data": {"object": {"id": "cus_1"}}}),
        ),
        (
            "stripe created negative",
            json!({"id": "evt_s4", "type": "customer.updated", "created": -1, "data": {"object": {"id": "cus_1"}}}),
        ),
        (
            "stripe created 1e20",
            json!({"id": "evt_s5", "type": "customer.updated", "created": 1e20, "data": {"object": {"id": "cus_1"}}}),
        ),
    ] {
        let b = b.to_string().into_bytes();
        v.push(stripe(name, stripe_signature(STRIPE_SECRET, n, &b), &b).may_succeed());
    }

    // --- GitHub.
    let gbody = br#"{"zen":"Keep it logically awesome.","hook_id":1}"#;
    let gsig = github_signature(GITHUB_SECRET, gbody);
    let ghex = gsig.trim_start_matches("sha256=").to_owned();
    let ok_headers = |sig: &[u8]| -> Vec<(&'static str, Vec<u8>)> {
        vec![
            ("x-hub-signature-256", sig.to_vec()),
            (
                "x-github-delivery",
                b"72d3162e-cc78-11e3-81ab-4c9367dc0958".to_vec(),
            ),
            ("x-github-event", b"ping".to_vec()),
        ]
    };
    let gh = |name: String, headers: Vec<(&'static str, Vec<u8>)>| {
        let refs: Vec<(&str, &[u8])> = headers.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        github(name, &refs, gbody)
    };
    v.push(gh("github valid".into(), ok_headers(gsig.as_bytes())).may_succeed());
    for sig in [
        format!("sha256={}", ghex.to_uppercase()),
        format!("sha1={ghex}"),
        "sha256=".into(),
        format!("sha256={}", &ghex[..10]),
        ghex.clone(),
        format!("sha256={ghex} "),
        format!("sha256={ghex}00"),
        format!("sha256 = {ghex}"),
    ] {
        v.push(
            gh(
                format!("x-hub-signature-256 {sig:.30?}"),
                ok_headers(sig.as_bytes()),
            )
            .may_succeed(),
        );
    }
    for (name, replace, value) in [
        (
            "github without x-github-delivery",
            "x-github-delivery",
            None,
        ),
        (
            "github empty x-github-delivery",
            "x-github-delivery",
            Some(b"".to_vec()),
        ),
        (
            "github 10 KiB x-github-delivery",
            "x-github-delivery",
            Some(vec![b'd'; 10_240]),
        ),
        (
            "github non-ASCII x-github-delivery",
            "x-github-delivery",
            Some("dé".as_bytes().to_vec()),
        ),
        ("github without x-github-event", "x-github-event", None),
        (
            "github non-ASCII x-github-event",
            "x-github-event",
            Some("pûsh".as_bytes().to_vec()),
        ),
        ("github without signature", "x-hub-signature-256", None),
    ] {
        let mut h = ok_headers(gsig.as_bytes());
        h.retain(|(k, _)| *k != replace);
        if let Some(value) = value {
            h.push((replace, value));
        }
        v.push(gh(name.into(), h).may_succeed());
    }

    // --- Bodies, validly signed: only their content decides.
    let deep_arrays = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_objects = format!("{}1{}", "{\"a\":".repeat(5_000), "}".repeat(5_000));
    for (name, b) in [
        ("empty", Vec::new()),
        ("invalid UTF-8", b"{\"id\":\"\xff\xfe\",\"type\":\"x\"}".to_vec()),
        ("a lone surrogate escape", br#"{"id":"\ud800","type":"x","created_at":0,"data":{"object":{"id":"e"}}}"#.to_vec()),
        ("null", b"null".to_vec()),
        ("an array", b"[]".to_vec()),
        ("a string", b"\"evt\"".to_vec()),
        ("a number", b"1e400".to_vec()),
        ("10,000 nested arrays", deep_arrays.into_bytes()),
        ("5,000 nested objects", deep_objects.into_bytes()),
        ("a BOM before the JSON", [&b"\xef\xbb\xbf"[..], &event_body("evt_bom")].concat()),
        ("trailing garbage", [&event_body("evt_trailing")[..], b" x"].concat()),
        ("JSON with a comment", b"{/* c */\"id\":\"evt_c\"}".to_vec()),
        ("UTF-16", "{\"id\":\"e\"}".encode_utf16().flat_map(u16::to_le_bytes).collect()),
        ("duplicate keys", br#"{"id":"evt_dup_a","id":"evt_dup_b","type":"cardholder.created","created_at":0,"data":{"object":{"id":"ch_dup"}}}"#.to_vec()),
        ("1 MiB of whitespace", vec![b' '; 1 << 19]),
    ] {
        v.push(signed_body(format!("body: {name}"), b).may_succeed());
    }
    let field_values: Vec<(&str, &str, Value)> = vec![
        ("id", "empty", json!("")),
        ("id", "a space", json!(" ")),
        ("id", "10 KiB", json!("i".repeat(10_240))),
        ("id", "a slash and dots", json!("../../evt")),
        ("id", "NUL", json!("evt\u{0}x")),
        ("id", "non-ASCII", json!("évt_☃")),
        ("id", "a number", json!(123)),
        ("id", "null", Value::Null),
        ("id", "an object", json!({"id": 1})),
        ("type", "empty", json!("")),
        ("type", "10 KiB", json!("t".repeat(10_240))),
        ("type", "a number", json!(1)),
        ("data/object/id", "empty", json!("")),
        ("data/object/id", "10 KiB", json!("e".repeat(10_240))),
        ("data/object/id", "a slash", json!("a/b")),
        ("data/object/id", "dots", json!("..")),
        ("data/object/id", "non-ASCII", json!("ënt☃")),
        ("data/object/id", "a number", json!(42)),
        ("data/object/id", "an object", json!({})),
        ("data/object", "a string", json!("obj")),
        ("data/object", "null", Value::Null),
        ("created_at", "Feb 30", json!("2026-02-30T00:00:00Z")),
        ("created_at", "year 0", json!("0000-01-01T00:00:00Z")),
        ("created_at", "year 9999", json!("9999-12-31T23:59:59Z")),
        ("created_at", "a leap second", json!("2026-06-30T23:59:60Z")),
        (
            "created_at",
            "a space instead of T",
            json!("2026-10-06 07:06:30Z"),
        ),
        (
            "created_at",
            "lower-case t and z",
            json!("2026-10-06t07:06:30z"),
        ),
        (
            "created_at",
            "13 fraction digits",
            json!("2026-10-06T07:06:30.1234567890123Z"),
        ),
        (
            "created_at",
            "offset +24:00",
            json!("2026-10-06T07:06:30+24:00"),
        ),
        (
            "created_at",
            "Arabic-Indic digits",
            json!("٢٠٢٦-10-06T07:06:30Z"),
        ),
        ("created_at", "unix -1", json!(-1)),
        ("created_at", "unix 1e20", json!(1e20)),
        ("created_at", "unix 1.5", json!(1.5)),
        ("created_at", "unix as a string", json!("1791270400")),
        ("created_at", "i64::MAX", json!(i64::MAX)),
        ("created_at", "u64::MAX", json!(u64::MAX)),
        ("created_at", "i64::MIN", json!(i64::MIN)),
    ];
    // Each on an entity of its own: see a_created_at_beyond_2_pow_53_leaves_the_entity_usable.
    for (n, (field, what, value)) in field_values.into_iter().enumerate() {
        let mut ev = cardholder_created(
            &format!("evt_field_{n}"),
            &format!("ch_field_{n}"),
            &at(2),
            "Ada",
        );
        *ev.pointer_mut(&format!("/{field}")).unwrap() = value;
        v.push(signed_body(format!("{field}: {what}"), ev.to_string()).may_succeed());
    }
    for (what, amount) in [
        ("huge", "123456789012345678901234567890"),
        ("2^63", "9223372036854775808"),
        ("-2^63", "-9223372036854775808"),
        ("2^53 + 1", "9007199254740993"),
        ("1.5", "1.5"),
        ("1e3", "1e3"),
        ("-0", "-0"),
        ("negative", "-100"),
        ("a string", "\"100\""),
        ("null", "null"),
    ] {
        let b = format!(
            r#"{{"id":"evt_amount_{}","type":"payment.captured","created_at":"{}","data":{{"object":{{"id":"acct_hostile","amount":{amount}}}}}}}"#,
            what.replace([' ', '^', '+', '.'], "_"),
            at(3)
        );
        v.push(signed_body(format!("ledger amount {what}"), b).may_succeed());
    }

    // --- Sizes and framing.
    v.push(signed_body("65 bytes to a 64-byte source", vec![b' '; 65]).path("/webhooks/tiny"));
    v.push(signed_body("1 MiB + 1", vec![b' '; (1 << 20) + 1]));
    v.push(
        case("a declared 2 MB body", "POST", "/webhooks/cockpit")
            .content_length("2000000")
            .body("{}"),
    );
    v.push(
        signed_body(
            "Content-Length shorter than the body",
            event_body("evt_cl_short"),
        )
        .content_length("10"),
    );
    // A body cut short and a malformed chunked body: a_body_cut_short_is_refused_with_a_4xx.
    for cl in ["18446744073709551616", "-1", "abc", "1, 2", " 5", "0x10"] {
        v.push(
            case(
                format!("Content-Length {cl:?}"),
                "POST",
                "/webhooks/cockpit",
            )
            .content_length(cl)
            .body("{}")
            .framing(),
        );
    }
    v.push(
        case("two different Content-Lengths", "POST", "/webhooks/cockpit")
            .content_length("2")
            .header("content-length", "3")
            .body("{}}")
            .framing(),
    );
    v.push(
        case(
            "a chunked body over the 64-byte limit",
            "POST",
            "/webhooks/tiny",
        )
        .header("transfer-encoding", "chunked")
        .body(format!("50\r\n{}\r\n0\r\n\r\n", "x".repeat(80))),
    );

    // --- Admin auth, on each admin route of the canary entity (which exists).
    let admin_paths = [
        ("GET", format!("/entities/cockpit/{CANARY}")),
        (
            "GET",
            format!("/events/cockpit/evt_canary_0?entity={CANARY}"),
        ),
        ("POST", format!("/admin/outbox/cockpit/{CANARY}/retry")),
        (
            "POST",
            format!("/admin/replay/cockpit/evt_canary_0?entity={CANARY}"),
        ),
    ];
    let long_token = format!("Bearer {}", "t".repeat(10_000));
    let bad_auths: [&[u8]; 11] = [
        b"",
        b"Bearer",
        b"Bearer ",
        b"Bearer wrong",
        b"Bearer dev-admin-tokenX",
        b"Bearer dev-admin-toke",
        b"Bearer DEV-ADMIN-TOKEN",
        b"Basic ZGV2LWFkbWluLXRva2Vu",
        b"dev-admin-token",
        b"Bearer dev-admin-token, Bearer x",
        long_token.as_bytes(),
    ];
    for (method, path) in &admin_paths {
        v.push(case(
            format!("{method} {path} without a token"),
            method,
            path,
        ));
        for auth in bad_auths {
            v.push(with_headers(
                case(
                    format!(
                        "{method} {path} with {:.30?}",
                        String::from_utf8_lossy(auth)
                    ),
                    method,
                    path,
                ),
                admin_auth(auth),
            ));
        }
    }
    for (path, what) in [
        (
            "/events/cockpit/%ff?entity=ch_canary",
            "a bad escape in the event id",
        ),
        ("/entities/cockpit/%zz", "a bad escape in the entity"),
        ("/entities/nope/ch_canary", "an unknown source"),
        (
            "/events/nope/evt_canary_0?entity=ch_canary",
            "an unknown source",
        ),
    ] {
        v.push(with_headers(
            case(format!("admin: {what}"), "GET", path),
            admin_auth(bearer.as_bytes()),
        ));
    }

    // --- Publish: auth, keys, bodies.
    let dest = origin.url("/published");
    let good_body = publish::body(&dest, "order.shipped", json!({"order": 1}));
    let publish_case = |name: String, auth: Option<&str>, key: Option<&[u8]>, body: &[u8]| {
        let mut c = case(name, "POST", "/v1/messages")
            .header("content-type", "application/json")
            .body(body);
        if let Some(a) = auth {
            c = c.header("authorization", a);
        }
        if let Some(k) = key {
            c = c.header("idempotency-key", k);
        }
        c
    };
    let auth = format!("Bearer {token}");
    for a in [
        "",
        "Bearer",
        "Bearer nope",
        "Bearer dev-admin-token",
        "Basic ZGV2LXB1Ymxpc2gtdG9rZW4=",
    ] {
        v.push(publish_case(
            format!("publish with auth {a:?}"),
            Some(a),
            Some(b"\"k-auth\""),
            &good_body,
        ));
    }
    v.push(publish_case(
        "publish without auth".into(),
        None,
        Some(b"\"k-auth\""),
        &good_body,
    ));
    let long_key = format!("\"{}\"", "k".repeat(256));
    let long_ok = format!("\"{}\"", "k".repeat(255));
    for key in [
        &b"k unquoted"[..],
        b"k\x7f",
        b"ab\"",
        b"\"\"",
        long_key.as_bytes(),
        b"\"a\";p=1",
        b"\"a\", \"b\"",
        b"\"a\\x\"",
        b"\"a\tb\"",
        "\"é\"".as_bytes(),
        b"\"a",
        b"a\"",
        b"\"\\\"",
        b"\"a\" \"b\"",
    ] {
        v.push(publish_case(
            format!("publish key {:.40?}", String::from_utf8_lossy(key)),
            Some(&auth),
            Some(key),
            &good_body,
        ));
    }
    v.push(publish_case(
        "publish without a key".into(),
        Some(&auth),
        None,
        &good_body,
    ));
    for (name, b) in [
        ("empty", Vec::new()),
        ("not JSON", b"{".to_vec()),
        ("null", b"null".to_vec()),
        ("{}", b"{}".to_vec()),
        (
            "no payload",
            json!({"destination": dest, "event_type": "x"})
                .to_string()
                .into_bytes(),
        ),
        (
            "an ftp destination",
            publish::body("ftp://127.0.0.1/", "x", json!(1)),
        ),
        (
            "a javascript: destination",
            publish::body("javascript:alert(1)", "x", json!(1)),
        ),
        (
            "a number destination",
            json!({"destination": 1, "event_type": "x", "payload": 1})
                .to_string()
                .into_bytes(),
        ),
        ("an empty event_type", publish::body(&dest, "", json!(1))),
        (
            "a 256-character event_type",
            publish::body(&dest, &"t".repeat(256), json!(1)),
        ),
        (
            "10,000 nested arrays as payload",
            format!(
                r#"{{"destination":"{dest}","event_type":"x","payload":{}{}}}"#,
                "[".repeat(10_000),
                "]".repeat(10_000)
            )
            .into_bytes(),
        ),
        ("1 MiB + 1", vec![b' '; (1 << 20) + 1]),
        ("invalid UTF-8", b"{\"destination\":\"\xff\"}".to_vec()),
    ] {
        v.push(publish_case(
            format!("publish body: {name}"),
            Some(&auth),
            Some(b"\"k-body\""),
            &b,
        ));
    }
    v.push(
        publish_case(
            "publish a 255-character key".into(),
            Some(&auth),
            Some(long_ok.as_bytes()),
            &good_body,
        )
        .may_succeed(),
    );
    v.push(
        publish_case(
            "publish with key k-reuse".into(),
            Some(&auth),
            Some(b"\"k-reuse\""),
            &good_body,
        )
        .may_succeed(),
    );
    v.push(publish_case(
        "publish k-reuse again with another body".into(),
        Some(&auth),
        Some(b"\"k-reuse\""),
        &publish::body(&dest, "order.cancelled", json!({"order": 1})),
    ));
    v.push(
        publish_case(
            "publish k-reuse again, same body (replay)".into(),
            Some(&auth),
            Some(b"\"k-reuse\""),
            &good_body,
        )
        .may_succeed(),
    );
    for (name, d) in [
        ("an unreachable port", "http://127.0.0.1:1/"),
        ("an empty host", "http://"),
        ("another loopback address", "http://127.0.0.2:1/"),
    ] {
        let mut c = publish_case(
            format!("publish to {name}"),
            Some(&auth),
            Some(format!("\"k-{name}\"").as_bytes()),
            &publish::body(d, "x", json!(1)),
        )
        .may_succeed();
        c.background = true;
        v.push(c);
    }
    v
}

impl Case {
    fn path(mut self, p: &str) -> Case {
        self.req.path = p.into();
        self
    }
}

/// Waits until the state on disk stops changing (an accepted publish is delivered by an
/// alarm just after), so its writes are not blamed on the next case.
fn settle(w: &Workerd) {
    let mut last = fingerprint(&w.storage_dir());
    for _ in 0..25 {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let now = fingerprint(&w.storage_dir());
        if now == last {
            return;
        }
        last = now;
    }
}

/// What is wrong with one case's answer, if anything.
fn judge(c: &Case, r: &Result<hookonce_e2e::Resp, String>) -> Option<String> {
    let r = match r {
        Ok(r) => r,
        Err(_) if c.framing => return None,
        Err(e) => return Some(format!("no response: {e}")),
    };
    if c.quiet {
        if let Some(what) = discloses(&r.text()) {
            return Some(format!("the answer discloses {what}: {r}"));
        }
    }
    if c.framing && (400..500).contains(&r.status) {
        return None;
    }
    if r.status >= 500 {
        return Some(format!("answered {r}"));
    }
    if c.refused && r.status < 400 {
        return Some(format!("should be refused, got {r}"));
    }
    if r.status >= 400 {
        if r.header("content-type") != Some("application/problem+json") {
            return Some(format!("an error that is not problem+json: {r}"));
        }
        let doc: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        let is_problem = doc["status"] == r.status
            && doc["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("https://hookonce.dev/problems/"))
            && doc["title"].is_string()
            && doc["detail"].is_string();
        if !is_problem {
            return Some(format!("not a problem document: {r}"));
        }
    }
    None
}

/// The outbound guard's refusals (issue 48), sent to a worker whose operator allows no
/// private destinations and whose `listed-token` may publish only to `hooks.example.com`.
fn guard_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let publish_to = |name: String, token: &str, url: &str| {
        case(name, "POST", "/v1/messages")
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .header("idempotency-key", format!("\"g-{}\"", v_key(url, token)))
            .body(publish::body(url, "order.paid", json!({ "n": 1 })))
    };
    let open = publish::token();
    for url in [
        "http://hooks.example.com/in",
        "http://93.184.216.34/",
        "https://127.0.0.1/",
        "https://127.0.0.1:8443/",
        "https://127.255.255.254/",
        "https://2130706433/",
        "https://0x7f000001/",
        "https://0x7f.1/",
        "https://0177.0.0.1/",
        "https://127.1/",
        "https://017700000001/",
        "https://127.0.0.1./",
        "https://10.0.0.1/",
        "https://172.16.0.1/",
        "https://192.168.0.1/",
        "https://169.254.169.254/latest/meta-data/",
        "https://169.254.170.2/v2/credentials",
        "https://100.64.0.1/",
        "https://0.0.0.0/",
        "https://0/",
        "https://224.0.0.251/",
        "https://255.255.255.255/",
        "https://256.1.1.1/",
        "https://1.2.3.4.5/",
        "https://[::1]/",
        "https://[::]/",
        "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:7f00:1]/",
        "https://[::ffff:169.254.169.254]/",
        "https://[64:ff9b::a9fe:a9fe]/",
        "https://[fc00::1]/",
        "https://[fd00:ec2::254]/",
        "https://[fe80::1]/",
        "https://[ff02::1]/",
        "https://localhost/",
        "https://LocalHost./",
        "https://api.localhost/",
        "https://metadata.google.internal/computeMetadata/v1/",
        "https://metadata/",
        "https://192.0.2.1/",
        "https://198.51.100.7/",
    ] {
        v.push(publish_to(format!("guard: publish to {url}"), &open, url));
    }
    for url in [
        "https://elsewhere.example/in",
        "https://hooks.example.com.evil.example/",
        "https://xhooks.example.com/",
        "https://example.com/",
    ] {
        v.push(publish_to(
            format!("guard: listed token to {url}"),
            LISTED_TOKEN,
            url,
        ));
    }
    v
}

/// A key per case, so that no case replays another's receipt.
fn v_key(url: &str, token: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (url, token).hash(&mut h);
    format!("{:016x}", h.finish())
}

const LISTED_TOKEN: &str = "hostile-listed-token";

/// Sends every case to `w`, each followed by a valid event; what went wrong, per case.
fn run(w: &Workerd, mut all: Vec<Case>) -> (usize, usize, Vec<String>) {
    let mut canaries = 0u32;
    let mut canary = || {
        let id = format!("evt_canary_{canaries}");
        let ev = cardholder_created(&id, CANARY, &at(canaries), "Canary");
        canaries += 1;
        let body = ev.to_string();
        let headers = hookonce_e2e::standard_webhooks_headers(
            &cockpit_secret(),
            &id,
            unix_now(),
            body.as_bytes(),
        );
        w.post("/webhooks/cockpit", &headers, body)
    };
    let first = canary();
    assert_eq!(first.status, 200, "{first}");

    all.sort_by_key(|c| c.background);
    let mut failures = Vec::new();
    let (mut refused, mut accepted) = (0, 0);
    for c in &all {
        let before = fingerprint(&w.storage_dir());
        let r = c.req.send(w.addr());
        let mut wrong: Vec<String> = judge(c, &r).into_iter().collect();
        let was_refused = r.as_ref().map_or(true, |r| r.status >= 400);
        if was_refused {
            refused += 1;
            // The source's feed records refused deliveries on purpose (sampled, bounded:
            // issue 13); every other store must be untouched.
            let diff: Vec<String> = changed(&before, &fingerprint(&w.storage_dir()))
                .into_iter()
                .filter(|d| !d.contains("hookonce-e2e-feed/"))
                .collect();
            if !diff.is_empty() {
                wrong.push(format!("a refused request changed storage: {diff:?}"));
            }
        } else {
            accepted += 1;
            if c.req.path == "/v1/messages" {
                settle(w);
            }
        }
        let after = canary();
        let applied = after.status == 200 && after.json()["outcome"] == "applied";
        if !applied {
            wrong.push(format!("the next valid event was not applied: {after}"));
        }
        if !wrong.is_empty() {
            failures.push(format!("{}: {}", c.name, wrong.join("; ")));
        }
    }
    (refused, accepted, failures)
}

#[test]
fn hostile_inputs_get_4xx_problems_change_nothing_and_leave_the_worker_working() {
    let origin = Origin::start();
    origin.set_default(Reply::OK);
    let mut sources = wrangler_sources();
    let mut tiny = sources[COCKPIT].clone();
    tiny["max_body_bytes"] = json!(64);
    sources["tiny"] = tiny;
    sources["stripe"] = json!({"scheme": "stripe", "secrets": ["STRIPE_SECRET"],
        "effects": {"customer.updated": "snapshot", "*": "notify"}});
    sources["github"] = json!({"scheme": "github", "secrets": ["GITHUB_SECRET"]});
    let w = Workerd::builder()
        .sources(sources.clone())
        .text("STRIPE_SECRET", STRIPE_SECRET)
        .text("GITHUB_SECRET", GITHUB_SECRET)
        .start();
    let strict = Workerd::builder()
        .sources(sources)
        .text("STRIPE_SECRET", STRIPE_SECRET)
        .text("GITHUB_SECRET", GITHUB_SECRET)
        .text("HOOKONCE_ALLOW_PRIVATE_DESTINATIONS", "false")
        .text(
            "HOOKONCE_PUBLISH_TOKENS",
            &format!("{}, {LISTED_TOKEN} hooks.example.com", publish::token()),
        )
        .start();

    let mut main = cases(&origin);
    main.extend(issue_48_memory_and_disclosure_cases());
    let main_len = main.len();
    let guard = guard_cases();
    let total = main_len + guard.len();
    let (r1, a1, mut failures) = run(&w, main);
    let (r2, a2, more) = run(&strict, guard);
    failures.extend(more);
    println!(
        "hostile inputs: {total} cases, {} refused, {} accepted, {} failures",
        r1 + r2,
        a1 + a2,
        failures.len()
    );
    assert!(total >= 400, "only {total} cases");
    failures.extend(issue_48_after_the_cases(&w, main_len));
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// --- Issue 48, items 4 to 6: bounded memory, a flush that outlives its request, tokens,
// disclosure and missing secret bindings. Kept apart from the table above.

/// The values of every secret and token the suite's workerd has.
fn secret_values() -> Vec<String> {
    let mut secrets = vec![
        cockpit_secret(),
        STRIPE_SECRET.to_owned(),
        GITHUB_SECRET.to_owned(),
        ADMIN_TOKEN.to_owned(),
        hookonce_e2e::dev_var("HOOKONCE_FORWARD_SECRET"),
    ];
    let publish = hookonce_e2e::dev_var("HOOKONCE_PUBLISH_TOKENS");
    secrets.extend(publish.split(',').map(|t| t.trim().to_owned()));
    secrets
}

/// The binding names, secret values and runtime error texts no refused answer may carry.
fn discloses(answer: &str) -> Option<String> {
    let secrets = secret_values();
    let bindings = [
        "HOOKONCE_",
        "COCKPIT_SECRET",
        "STRIPE_SECRET",
        "GITHUB_SECRET",
        "ENTITY",
        "KEYS",
        "FEED",
    ];
    let runtime = [
        "TypeError",
        "RangeError",
        "Error:",
        "jsg.",
        "kj/",
        "internal error; reference",
    ];
    if let Some(s) = secrets.iter().find(|s| answer.contains(s.as_str())) {
        return Some(format!("a secret value ({} bytes)", s.len()));
    }
    bindings
        .iter()
        .chain(runtime.iter())
        .find(|b| answer.contains(*b))
        .map(|b| format!("{b:?}"))
}

impl Case {
    fn quiet(mut self) -> Case {
        self.quiet = true;
        self
    }
    fn half_closed(mut self) -> Case {
        self.req.half_close = true;
        self
    }
}

/// A validly signed delivery of `body` to `path`, sent chunked as `wire`.
fn signed_chunked(name: String, path: &str, body: &[u8], wire: Vec<u8>) -> Case {
    signed_body(name, body)
        .path(path)
        .header("transfer-encoding", "chunked")
        .body(wire)
}

fn issue_48_memory_and_disclosure_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let mib = 1 << 20;

    // 4. Bodies are counted while they are read; chunked bodies over the limit get 413.
    for (name, path, len, size) in [
        (
            "1 MiB + 1 in 64 KiB chunks",
            "/webhooks/cockpit",
            mib + 1,
            64 << 10,
        ),
        (
            "1 MiB + 1 in one chunk",
            "/webhooks/cockpit",
            mib + 1,
            mib + 1,
        ),
        (
            "2 MB, over what an entity stores",
            "/webhooks/cockpit",
            2_000_001,
            256 << 10,
        ),
        ("65 bytes in one-byte chunks", "/webhooks/tiny", 65, 1),
        ("64 + 1 bytes in two chunks", "/webhooks/tiny", 65, 64),
        ("1 KiB to a 64-byte source", "/webhooks/tiny", 1024, 100),
    ] {
        let body = vec![b' '; len];
        let wire = chunks(&body, size);
        v.push(signed_chunked(format!("chunked: {name}"), path, &body, wire).quiet());
    }
    let body = vec![b' '; 64];
    v.push(
        signed_chunked(
            "chunked: exactly 64 bytes to a 64-byte source".into(),
            "/webhooks/tiny",
            &body,
            chunks(&body, 16),
        )
        .quiet(),
    );
    v.push(
        signed_chunked(
            "chunked: an empty body".into(),
            "/webhooks/cockpit",
            b"",
            b"0\r\n\r\n".to_vec(),
        )
        .quiet(),
    );
    let body = vec![b'x'; 100];
    let mut ext = b"64;ext=1\r\n".to_vec();
    ext.extend_from_slice(&body);
    ext.extend_from_slice(b"\r\n0\r\n\r\n");
    v.push(
        signed_chunked(
            "chunked: an extension, over the limit".into(),
            "/webhooks/tiny",
            &body,
            ext,
        )
        .quiet(),
    );
    let mut trailer = chunks(&body, 50);
    trailer.truncate(trailer.len() - 2);
    trailer.extend_from_slice(b"x-trailer: 1\r\n\r\n");
    v.push(
        signed_chunked(
            "chunked: a trailer, over the limit".into(),
            "/webhooks/tiny",
            &body,
            trailer,
        )
        .quiet(),
    );
    for (name, wire) in [
        (
            "a chunk size of 2^64 - 1",
            b"ffffffffffffffff\r\nxx\r\n0\r\n\r\n".to_vec(),
        ),
        (
            "a chunk size of 2^64",
            b"10000000000000000\r\nxx\r\n0\r\n\r\n".to_vec(),
        ),
        ("a negative chunk size", b"-1\r\nxx\r\n0\r\n\r\n".to_vec()),
        (
            "a chunk longer than it says",
            b"2\r\nxxxxxxxx\r\n0\r\n\r\n".to_vec(),
        ),
        ("no final chunk", b"2\r\nxx\r\n".to_vec()),
    ] {
        v.push(
            signed_chunked(format!("chunked: {name}"), "/webhooks/tiny", b"xx", wire)
                .framing()
                .quiet()
                .half_closed(),
        );
    }
    v.push(
        signed_chunked(
            "chunked and a Content-Length".into(),
            "/webhooks/tiny",
            &body,
            chunks(&body, 10),
        )
        .content_length("10")
        .framing()
        .quiet(),
    );
    let token = format!("Bearer {}", publish::token());
    let big = vec![b' '; mib + 1];
    v.push(
        case("publish: 1 MiB + 1, chunked", "POST", "/v1/messages")
            .header("authorization", &token)
            .header("idempotency-key", "\"k-chunked\"")
            .header("transfer-encoding", "chunked")
            .body(chunks(&big, 32 << 10))
            .quiet(),
    );
    v.push(
        case(
            "publish: 1 MiB + 1, chunked, without a token",
            "POST",
            "/v1/messages",
        )
        .header("idempotency-key", "\"k-chunked\"")
        .header("transfer-encoding", "chunked")
        .body(chunks(&big, 32 << 10))
        .quiet(),
    );
    v.push(
        case("publish: a declared 1 MiB + 1", "POST", "/v1/messages")
            .header("authorization", &token)
            .header("idempotency-key", "\"k-declared\"")
            .content_length(&(mib + 1).to_string())
            .body("{}")
            .framing()
            .quiet()
            .half_closed(),
    );

    // 6a. Tokens of every length, none of them right, and none echoed.
    let admin = format!("/entities/cockpit/{CANARY}");
    let digest = hex_sha256(ADMIN_TOKEN.as_bytes());
    let publish_list = hookonce_e2e::dev_var("HOOKONCE_PUBLISH_TOKENS");
    let first_publish = publish::token();
    for (name, auth) in [
        ("one byte", "Bearer d".to_owned()),
        (
            "the token's first 14 bytes",
            format!("Bearer {}", &ADMIN_TOKEN[..14]),
        ),
        ("the token and one byte", format!("Bearer {ADMIN_TOKEN}0")),
        (
            "the token twice",
            format!("Bearer {ADMIN_TOKEN}{ADMIN_TOKEN}"),
        ),
        ("the token's SHA-256 in hex", format!("Bearer {digest}")),
        ("32 KiB", format!("Bearer {}", "d".repeat(32 << 10))),
        (
            "the token with its last byte changed",
            format!("Bearer {}x", &ADMIN_TOKEN[..ADMIN_TOKEN.len() - 1]),
        ),
        ("a publish token", format!("Bearer {first_publish}")),
        (
            "lower-case bearer and a wrong token",
            "bearer dev-admin-tokem".to_owned(),
        ),
    ] {
        v.push(
            case(format!("admin token: {name}"), "GET", &admin)
                .header("authorization", auth)
                .quiet(),
        );
    }
    for (name, auth) in [
        ("the whole list", format!("Bearer {publish_list}")),
        (
            "two tokens run together",
            format!("Bearer {}", publish_list.replace(',', "")),
        ),
        (
            "a prefix of a token",
            format!("Bearer {}", &first_publish[..first_publish.len() - 1]),
        ),
        ("a token and one byte", format!("Bearer {first_publish}-")),
        ("the admin token", format!("Bearer {ADMIN_TOKEN}")),
        ("empty", "Bearer ".to_owned()),
    ] {
        v.push(
            case(format!("publish token: {name}"), "POST", "/v1/messages")
                .header("authorization", auth)
                .header("idempotency-key", "\"k-token\"")
                .header("content-type", "application/json")
                .body("{}")
                .quiet(),
        );
    }

    // 6b. Unauthenticated answers name no binding and carry no runtime text.
    for (method, path) in [
        ("GET", admin.clone()),
        ("GET", "/sources/cockpit/events".to_owned()),
        ("GET", "/sources/cockpit/dead".to_owned()),
        ("POST", format!("/admin/outbox/cockpit/{CANARY}/retry")),
        ("GET", "/v1/messages/status".to_owned()),
    ] {
        v.push(case(format!("no token: {method} {path}"), method, &path).quiet());
    }
    for (name, path) in [
        ("an unknown source", "/webhooks/nope"),
        ("no signature", "/webhooks/cockpit"),
        ("no signature, stripe", "/webhooks/stripe"),
        ("no signature, github", "/webhooks/github"),
    ] {
        v.push(
            case(format!("unsigned: {name}"), "POST", path)
                .body(event_body("evt_quiet"))
                .quiet(),
        );
    }
    v
}

fn hex_sha256(b: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// What must hold once every case ran: the feed still takes notes (5); the unset secret
/// binding of `cockpit` (`COCKPIT_SECRET_PREVIOUS`, as in `.dev.vars.example`) was logged
/// as a warning, per isolate and not per request (6c); no secret's value is in the log.
fn issue_48_after_the_cases(w: &Workerd, requests: usize) -> Vec<String> {
    let mut wrong = Vec::new();
    let id = format!("evt_after_{}", unix_now());
    let body = cardholder_created(&id, CANARY, &at(100_000), "After").to_string();
    let headers = hookonce_e2e::standard_webhooks_headers(
        &cockpit_secret(),
        &id,
        unix_now(),
        body.as_bytes(),
    );
    let r = w.post("/webhooks/cockpit", &headers, body);
    if r.status != 200 {
        wrong.push(format!("after the cases: a valid event got {r}"));
    }
    let auth = [("authorization", format!("Bearer {ADMIN_TOKEN}"))];
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let feed = w.request("GET", "/sources/cockpit/events?limit=200", &auth, None);
        if feed.status == 200 && feed.text().contains(&id) {
            break;
        }
        if std::time::Instant::now() > deadline {
            wrong.push(format!(
                "after the cases: {id} never reached the feed: {feed}"
            ));
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let logs = w.logs();
    let warnings = logs
        .lines()
        .filter(|l| l.contains("secret_binding_missing") && l.contains("COCKPIT_SECRET_PREVIOUS"))
        .count();
    if warnings == 0 || warnings * 10 > requests {
        wrong.push(format!(
            "after the cases: {warnings} secret_binding_missing warnings for {requests} requests"
        ));
    }
    let secrets = secret_values();
    if secrets.iter().any(|s| logs.contains(s.as_str())) {
        wrong.push("after the cases: a secret's value is in the log".into());
    }
    wrong
}

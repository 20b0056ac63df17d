//! Structured inputs per target (a small grammar each), and byte-level mutation.

use crate::targets::{days_in_month, is_leap};
use crate::{join, with_oracle, Rng, SEP};

/// A realistic "now", give or take a few years.
fn now(rng: &mut Rng) -> i64 {
    1_700_000_000 + rng.below(400_000_000) as i64
}

/// Text from a mix of ASCII, separators, controls and a few non-ASCII characters.
pub fn text(rng: &mut Rng, max: u64) -> String {
    const ODD: [char; 12] = [
        'é', '☃', '\u{0660}', '\u{ff10}', '\u{a0}', '\u{7f}', '\t', ' ', '"', '\\', '%', '\u{0}',
    ];
    let n = rng.below(max + 1);
    (0..n)
        .map(|_| match rng.below(10) {
            0 => *rng.pick(&ODD),
            _ => (0x20 + rng.below(0x5f) as u8) as char,
        })
        .collect()
}

/// A timestamp as a provider might (mis)write it.
fn timestamp_text(rng: &mut Rng, ts: i64) -> String {
    match rng.below(12) {
        0 => format!(" {ts}"),
        1 => format!("{ts}.5"),
        2 => format!("+{ts}"),
        3 => format!("0{ts}"),
        4 => "-1".into(),
        5 => "99999999999999999999".into(),
        6 => ts
            .to_string()
            .chars()
            .map(|c| char::from_u32(0x0660 + c.to_digit(10).unwrap_or(0)).unwrap())
            .collect(),
        _ => ts.to_string(),
    }
}

fn body(rng: &mut Rng) -> Vec<u8> {
    match rng.below(4) {
        0 => {
            let n = rng.below(64) as usize;
            rng.bytes(n).into_iter().filter(|b| *b != SEP).collect()
        }
        _ => format!(
            r#"{{"id":"evt_{}","type":"x","n":{}}}"#,
            rng.below(1000),
            rng.next_u64()
        )
        .into_bytes(),
    }
}

fn b64ish(rng: &mut Rng) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let n = 4 * (1 + rng.below(12) as usize);
    let mut s: String = (0..n).map(|_| *rng.pick(A) as char).collect();
    if rng.chance(300) {
        s.replace_range(n - 1.., "=");
    }
    s
}

/// Standard Webhooks: secret, id, timestamp, signature, body, signed_at, now.
pub fn standard_webhooks(rng: &mut Rng) -> Vec<u8> {
    let n = now(rng);
    let signed_at = n + rng.below(1_000) as i64 - 500;
    let secret = match rng.below(4) {
        0 => b64ish(rng),
        1 => text(rng, 20),
        _ => format!("whsec_{}", b64ish(rng)),
    };
    let id = if rng.chance(100) {
        String::new()
    } else {
        format!("msg_{}", text(rng, 12))
    };
    let sigs: Vec<String> = (0..1 + rng.below(3))
        .map(|_| match rng.below(4) {
            0 => format!("v1a,{}", b64ish(rng)),
            1 => text(rng, 30),
            _ => format!("v1,{}", b64ish(rng)),
        })
        .collect();
    join(&[
        secret.as_bytes(),
        id.as_bytes(),
        timestamp_text(rng, signed_at).as_bytes(),
        sigs.join(" ").as_bytes(),
        &body(rng),
        signed_at.to_string().as_bytes(),
        n.to_string().as_bytes(),
    ])
}

fn hex(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| *rng.pick(b"0123456789abcdefABCDEF") as char)
        .collect()
}

/// Mostly a SHA-256's 64 hex digits, sometimes another length.
fn hex_len(rng: &mut Rng) -> usize {
    if rng.chance(800) {
        64
    } else {
        rng.below(70) as usize
    }
}

/// Stripe: secret, header, body, signed_at, now.
pub fn stripe(rng: &mut Rng) -> Vec<u8> {
    let n = now(rng);
    let signed_at = n + rng.below(1_000) as i64 - 500;
    let mut parts = vec![format!("t={}", timestamp_text(rng, signed_at))];
    for _ in 0..rng.below(4) {
        parts.push(match rng.below(4) {
            0 => format!("v0={}", hex(rng, 64)),
            1 => text(rng, 20),
            _ => {
                let n = hex_len(rng);
                format!("v1={}", hex(rng, n))
            }
        });
    }
    rng.shuffle(&mut parts);
    let secret = format!("whsec_{}", text(rng, 24));
    join(&[
        secret.as_bytes(),
        parts.join(",").as_bytes(),
        &body(rng),
        signed_at.to_string().as_bytes(),
        n.to_string().as_bytes(),
    ])
}

/// GitHub: secret, header, body, now.
pub fn github(rng: &mut Rng) -> Vec<u8> {
    let header = match rng.below(4) {
        0 => format!("sha1={}", hex(rng, 40)),
        1 => text(rng, 70),
        _ => {
            let n = hex_len(rng);
            format!("sha256={}", hex(rng, n))
        }
    };
    let secret = text(rng, 30);
    join(&[
        secret.as_bytes(),
        header.as_bytes(),
        &body(rng),
        now(rng).to_string().as_bytes(),
    ])
}

/// A JSON value from a small grammar, biased to the shapes hookonce reads.
pub fn json_value(rng: &mut Rng, depth: u32) -> serde_json::Value {
    use serde_json::{json, Value};
    let scalar = |rng: &mut Rng| -> Value {
        match rng.below(9) {
            0 => Value::Null,
            1 => json!(rng.chance(500)),
            2 => json!(rng.next_u64() as i64),
            3 => json!(rng.below(2_000_000_000)),
            4 => json!((rng.next_u64() as f64) / 7.0),
            5 => json!(format!(
                "2026-{:02}-{:02}T{:02}:00:00Z",
                rng.below(14),
                rng.below(33),
                rng.below(26)
            )),
            _ => json!(text(rng, 12)),
        }
    };
    if depth == 0 || rng.chance(400) {
        return scalar(rng);
    }
    const KEYS: [&str; 12] = [
        "id",
        "type",
        "created_at",
        "created",
        "data",
        "object",
        "amount",
        "a",
        "b",
        "0",
        "~",
        "/",
    ];
    if rng.chance(200) {
        return Value::Array(
            (0..rng.below(4))
                .map(|_| json_value(rng, depth - 1))
                .collect(),
        );
    }
    let mut m = serde_json::Map::new();
    for _ in 0..rng.below(6) {
        m.insert((*rng.pick(&KEYS)).into(), json_value(rng, depth - 1));
    }
    Value::Object(m)
}

/// An event body for one of the shapes, and the id and event headers.
pub fn event(rng: &mut Rng) -> Vec<u8> {
    use serde_json::json;
    let kind = *rng.pick(&["snap", "led", "deep", "other", ""]);
    let mut ev = json!({
        "id": format!("evt_{}", rng.below(100)),
        "type": kind,
        "created_at": if rng.chance(500) { json!(now(rng)) } else { json!("2026-10-06T07:06:30.5+02:00") },
        "created": now(rng),
        "data": { "object": { "id": format!("ent_{}", rng.below(10)), "amount": rng.below(1000) } },
    });
    // Replace or remove a few fields with something odd.
    for _ in 0..rng.below(3) {
        let field = *rng.pick(&[
            "/id",
            "/type",
            "/created_at",
            "/created",
            "/data",
            "/data/object",
            "/data/object/id",
            "/data/object/amount",
        ]);
        if let Some(slot) = ev.pointer_mut(field) {
            *slot = json_value(rng, 2);
        }
    }
    let body = if rng.chance(50) {
        rng.bytes(40)
    } else {
        ev.to_string().into_bytes()
    };
    let body: Vec<u8> = body.into_iter().filter(|b| *b != SEP).collect();
    join(&[
        rng.below(8).to_string().as_bytes(),
        &body,
        text(rng, 10).as_bytes(),
        kind.as_bytes(),
    ])
}

/// A source configuration: valid-looking, with a few fields mangled.
pub fn source_config(rng: &mut Rng) -> Vec<u8> {
    use serde_json::json;
    let mut s = json!({
        "scheme": *rng.pick(&["standard-webhooks", "stripe", "github", "none"]),
        "secrets": ["A", "B"],
        "tolerance_secs": 300,
        "retention_secs": 86_400 * (1 + rng.below(40)),
        "keep_raw_bodies": true,
        "max_body_bytes": 1 + rng.below(40_000_000),
        "id_header": "x-id",
        "fields": {"id": "/id", "type": "/type", "created_at": "", "entity": "/e", "object": "/o"},
        "effects": {"a": "snapshot", "b": {"ledger": "/amount"}, "*": "notify"},
        "forward": {"url": "http://127.0.0.1:9/", "mode": "async", "schedule_secs": [1, 5, 60],
                    "window_secs": 3600, "timeout_secs": 10, "lease_secs": 30},
    });
    // Any of the three destinations, sometimes two at once (a configuration error).
    let mut other = false;
    for key in ["service", "queue"] {
        if rng.chance(300) {
            s["forward"][key] = json!(*rng.pick(&["APP", "EVENTS", "bad-name", "_x9"]));
            other = true;
        }
    }
    if let Some(forward) = s["forward"].as_object_mut().filter(|_| other) {
        if rng.chance(800) {
            forward.remove("url");
        }
    }
    let paths = [
        "/scheme",
        "/secrets",
        "/secrets/0",
        "/tolerance_secs",
        "/retention_secs",
        "/keep_raw_bodies",
        "/max_body_bytes",
        "/id_header",
        "/fields",
        "/fields/id",
        "/fields/created_at",
        "/effects",
        "/effects/a",
        "/effects/b/ledger",
        "/forward",
        "/forward/url",
        "/forward/service",
        "/forward/queue",
        "/forward/mode",
        "/forward/schedule_secs",
        "/forward/schedule_secs/1",
        "/forward/window_secs",
        "/forward/timeout_secs",
        "/forward/lease_secs",
    ];
    for _ in 0..rng.below(4) {
        let p = *rng.pick(&paths);
        if let Some(slot) = s.pointer_mut(p) {
            *slot = json_value(rng, 2);
        }
    }
    let v = if rng.chance(300) {
        json!({ text(rng, 8): s })
    } else {
        s
    };
    v.to_string().into_bytes()
}

/// An `Idempotency-Key` value.
pub fn idempotency_key(rng: &mut Rng) -> Vec<u8> {
    let max = if rng.chance(100) { 300 } else { 40 };
    let inner = text(rng, max);
    let v = match rng.below(6) {
        0 => inner,
        1 => format!("\"{inner}\";p=1"),
        2 => format!("\"{inner}\", \"x\""),
        _ => format!("\"{}\"", inner.replace('\\', "\\\\").replace('"', "\\\"")),
    };
    v.into_bytes()
}

/// A Retry-After: delay-seconds, or an IMF-fixdate of a known date with its parts
/// appended so the target can check the delay.
pub fn retry_after(rng: &mut Rng) -> Vec<u8> {
    let n = now(rng);
    if rng.chance(300) {
        let v = match rng.below(3) {
            0 => rng.next_u64().to_string(),
            1 => format!(" {}\t", rng.below(100_000)),
            _ => text(rng, 30),
        };
        return join(&[v.as_bytes(), n.to_string().as_bytes()]);
    }
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let at = n - 86_400 + rng.below(40 * 86_400) as i64;
    let (y, mo, d) = civil(at.div_euclid(86_400));
    let (h, mi, s) = (
        at.rem_euclid(86_400) / 3600,
        at.rem_euclid(3600) / 60,
        at.rem_euclid(60),
    );
    let day = DAYS[at.div_euclid(86_400).rem_euclid(7) as usize];
    let v = format!(
        "{day}, {d:02} {} {y:04} {h:02}:{mi:02}:{s:02} GMT",
        MONTHS[mo as usize - 1]
    );
    let parts = [y, mo, d, h, mi, s].map(|x| x.to_string());
    let oracle: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    with_oracle(join(&[v.as_bytes(), n.to_string().as_bytes()]), &oracle)
}

/// Year, month, day of a day count since 1970-01-01, found by walking from the epoch
/// (slow and obviously right, for the oracle).
fn civil(mut days: i64) -> (i64, i64, i64) {
    let leap = is_leap;
    let mut y = 1970;
    loop {
        let len = if leap(y) { 366 } else { 365 };
        if days < 0 {
            y -= 1;
            days += if leap(y) { 366 } else { 365 };
        } else if days >= len {
            days -= len;
            y += 1;
        } else {
            break;
        }
    }
    let mut m = 1;
    while days >= days_in_month(y, m) {
        days -= days_in_month(y, m);
        m += 1;
    }
    (y, i64::from(m), days + 1)
}

/// An RFC 3339 date-time from parts, with the seconds and nanoseconds it denotes.
pub fn rfc3339(rng: &mut Rng) -> Vec<u8> {
    if rng.chance(200) {
        return text(rng, 40).into_bytes();
    }
    let y = 1 + rng.below(9999) as i64;
    let mo = 1 + rng.below(12) as u32;
    let dim = days_in_month(y, mo) as u64;
    let d = 1 + rng.below(dim) as u32;
    let (h, mi, s) = (
        rng.below(24) as i64,
        rng.below(60) as i64,
        rng.below(61) as i64,
    );
    let digits = rng.below(13) as usize;
    let frac: String = (0..digits)
        .map(|_| (b'0' + rng.below(10) as u8) as char)
        .collect();
    let nanos: u32 = format!("{:0<9}", &frac[..digits.min(9)]).parse().unwrap();
    let (zone, offset) = match rng.below(3) {
        0 => ("Z".to_string(), 0),
        _ => {
            let (oh, om) = (rng.below(24) as i64, rng.below(60) as i64);
            let sign = if rng.chance(500) { 1 } else { -1 };
            (
                format!("{}{oh:02}:{om:02}", if sign > 0 { '+' } else { '-' }),
                sign * (oh * 3600 + om * 60),
            )
        }
    };
    let sep = *rng.pick(&["T", "t", " "]);
    let dot = if digits > 0 {
        format!(".{frac}")
    } else {
        String::new()
    };
    let text = format!("{y:04}-{mo:02}-{d:02}{sep}{h:02}:{mi:02}:{s:02}{dot}{zone}");
    // A leap second (:60) is folded onto :59, as POSIX time does.
    let secs = crate::targets::days_since_epoch(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s.min(59)
        - offset;
    with_oracle(
        text.into_bytes(),
        &[secs.to_string().as_bytes(), nanos.to_string().as_bytes()],
    )
}

/// A request line's method, path and query, and a plain string to round-trip.
pub fn route(rng: &mut Rng) -> Vec<u8> {
    let method = *rng.pick(&["GET", "POST", "PUT", "get", ""]);
    let seg = |rng: &mut Rng| -> String {
        match rng.below(4) {
            0 => crate::targets::percent_encode(&text(rng, 8)),
            1 => text(rng, 8).replace('/', ""),
            _ => (*rng.pick(&[
                "webhooks",
                "entities",
                "events",
                "admin",
                "outbox",
                "replay",
                "retry",
                "v1",
                "messages",
                "openapi.json",
                "cockpit",
                "%",
                "%zz",
                "%2F",
            ]))
            .into(),
        }
    };
    let path: String = (0..1 + rng.below(6))
        .map(|_| format!("/{}", seg(rng)))
        .collect();
    let query = match rng.below(3) {
        0 => String::new(),
        1 => format!("entity={}&x={}", seg(rng), seg(rng)),
        _ => text(rng, 20),
    };
    join(&[
        method.as_bytes(),
        path.as_bytes(),
        query.as_bytes(),
        text(rng, 16).as_bytes(),
    ])
}

/// One random edit: flip, insert a dictionary token, delete or duplicate a range, truncate.
pub fn mutate(rng: &mut Rng, input: &mut Vec<u8>, dictionary: &[&str]) {
    let len = input.len();
    match rng.below(6) {
        0 if len > 0 => {
            let i = rng.below(len as u64) as usize;
            input[i] ^= 1 << rng.below(8);
        }
        1 => {
            let i = rng.below(len as u64 + 1) as usize;
            let token = rng.pick(dictionary).as_bytes().to_vec();
            input.splice(i..i, token);
        }
        2 if len > 0 => {
            let i = rng.below(len as u64) as usize;
            let j = (i + 1 + rng.below(8) as usize).min(len);
            input.drain(i..j);
        }
        3 if len > 0 => {
            let i = rng.below(len as u64) as usize;
            let j = (i + 1 + rng.below(16) as usize).min(len);
            let copy = input[i..j].to_vec();
            input.splice(j..j, copy);
        }
        4 => input.truncate(rng.below(len as u64 + 1) as usize),
        _ => {
            let i = rng.below(len as u64 + 1) as usize;
            input.insert(i, rng.next_u64() as u8);
        }
    }
}

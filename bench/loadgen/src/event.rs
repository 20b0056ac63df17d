//! Webhook bodies in the seeds' shape, padded to an exact size.
//!
//! Only std and hookonce-core: `core/benches/pipeline.rs` includes this file by path, so the native figures
//! and the workerd figures measure the same bytes.

/// The body size of every scenario but `big`.
pub const SMALL_BODY: usize = 1024;
/// The body size of the `big` scenario.
pub const BIG_BODY: usize = 64 * 1024;
/// The configured snapshot type of the `cockpit` source.
pub const EVENT_TYPE: &str = "cardholder.updated";

/// `{"id":…,"type":"cardholder.updated","created_at":…,"data":{"object":{"id":card,…}}}`,
/// padded with a `note` field to `size` bytes (or left shorter if the fields alone exceed it).
/// `id` and `card` must need no JSON escaping.
pub fn body(id: &str, card: &str, created_at: i64, size: usize) -> Vec<u8> {
    let created_at = rfc3339(created_at);
    let with = |pad: usize| {
        format!(
            r#"{{"id":"{id}","type":"{EVENT_TYPE}","created_at":"{created_at}","data":{{"object":{{"id":"{card}","status":"active","note":"{}"}}}}}}"#,
            "x".repeat(pad)
        )
    };
    let pad = size.saturating_sub(with(0).len());
    with(pad).into_bytes()
}

/// Unix seconds as RFC 3339 UTC, `2026-10-06T07:06:30Z`.
pub fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let d = hookonce_core::CivilDate::from_days_since_epoch(days);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        d.year,
        d.month,
        d.day,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

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
/// shaped like a provider's cardholder object, and filled to `size` bytes (or left
/// shorter if the fields alone exceed it) with `metadata` entries whose values are
/// pseudo-random per event. Real payloads mix repeated keys with ids and hashes that do
/// not compress; a filler of one repeated byte would flatter hookonce's body packing.
/// `id` and `card` must need no JSON escaping.
pub fn body(id: &str, card: &str, created_at: i64, size: usize) -> Vec<u8> {
    let created_at = rfc3339(created_at);
    let head = format!(
        r#"{{"id":"{id}","object":"event","type":"{EVENT_TYPE}","created_at":"{created_at}","livemode":false,"data":{{"object":{{"id":"{card}","object":"issuing.cardholder","status":"active","type":"individual","name":"Jenny Rosen","email":"jenny.rosen@example.com","phone_number":"+18008675309","billing":{{"address":{{"city":"San Francisco","country":"US","line1":"1234 Main Street","line2":null,"postal_code":"94111","state":"CA"}}}},"spending_controls":{{"allowed_categories":[],"blocked_categories":[],"spending_limits":[]}},"metadata":{{"#
    );
    let (last, tail) = (r#""ref":""#, r#""}}}}"#);
    let mut out = head;
    let mut random = Hex::seeded(id);
    for i in 0.. {
        let entry = format!(r#""order_{i}":"{}","#, random.take(12));
        if out.len() + entry.len() + last.len() + tail.len() > size {
            break;
        }
        out.push_str(&entry);
    }
    out.push_str(last);
    let fill = size.saturating_sub(out.len() + tail.len());
    out.push_str(&random.take(fill));
    out.push_str(tail);
    out.into_bytes()
}

/// Lower-case hex digits from SplitMix64, seeded by a string: the same per event id.
struct Hex(u64);

impl Hex {
    fn seeded(s: &str) -> Hex {
        // FNV-1a.
        Hex(s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        }))
    }

    fn take(&mut self, n: usize) -> String {
        let mut out = String::with_capacity(n);
        while out.len() < n {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let digits = format!("{z:016x}");
            out.push_str(&digits[..digits.len().min(n - out.len())]);
        }
        out
    }
}

/// Unix seconds as RFC 3339 UTC, `2026-10-06T07:06:30Z`.
pub fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let d = hookonce_core::time::CivilDate::from_days_since_epoch(days);
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

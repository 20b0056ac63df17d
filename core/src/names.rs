//! Names hookonce chooses: which Durable Object owns an event, and the key it forwards.

use sha2::{Digest, Sha256};

use crate::event::{EntityKey, EventId};
use crate::outbox::Order;

/// The Durable Object that owns an event: its entity's (`{source}/e/{entity}`), or, for an
/// event about no entity, one of the source's `buckets` bucket objects
/// (`{source}/b/{n}`, [`bucket_of`]). Source names contain no `/`, so [`source_of`] reads
/// the source back.
#[must_use]
pub fn object_for(
    source: &str,
    buckets: u32,
    entity: Option<&EntityKey>,
    event_id: &EventId,
) -> String {
    object_name(
        source,
        buckets,
        entity.map(EntityKey::as_str),
        event_id.as_str(),
    )
}

/// [`object_for`] from unvalidated strings, for the read API's path parameters.
#[must_use]
pub fn object_name(source: &str, buckets: u32, entity: Option<&str>, event_id: &str) -> String {
    match entity {
        Some(entity) => format!("{source}/e/{entity}"),
        None => bucket_name(source, bucket_of(event_id, buckets)),
    }
}

/// The name of a source's bucket `n`.
#[must_use]
pub fn bucket_name(source: &str, n: u32) -> String {
    format!("{source}/b/{n}")
}

/// The bucket of an event about no entity: the first 8 bytes of the SHA-256 of its id,
/// big-endian, modulo `buckets` (at least 1). Stable across versions and platforms, so one
/// id always lands in the same bucket while `buckets` stays the same.
#[must_use]
pub fn bucket_of(event_id: &str, buckets: u32) -> u32 {
    let digest = Sha256::digest(event_id.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let n = u64::from_be_bytes(first) % u64::from(buckets.max(1));
    u32::try_from(n).unwrap_or(0)
}

/// The object an event about no entity had to itself before buckets
/// (`{source}/i/{event_id}`): ids recorded there are looked up, never written.
#[must_use]
pub fn per_event_object(source: &str, event_id: &str) -> String {
    format!("{source}/i/{event_id}")
}

/// What an object serves, from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ObjectKind<'a> {
    /// One entity's events (`{source}/e/{entity}`).
    Entity(&'a str),
    /// A share of the events about no entity (`{source}/b/{n}`).
    Bucket(u32),
    /// One event about no entity, as versions before buckets recorded it
    /// (`{source}/i/{event_id}`).
    PerEvent(&'a str),
}

/// The kind of object `object_name` names; `None` for a name hookonce never makes.
#[must_use]
pub fn object_kind(object_name: &str) -> Option<ObjectKind<'_>> {
    let (_, rest) = object_name.split_once('/')?;
    let (kind, key) = rest.split_once('/')?;
    match kind {
        "e" => Some(ObjectKind::Entity(key)),
        "b" => key.parse().ok().map(ObjectKind::Bucket),
        "i" => Some(ObjectKind::PerEvent(key)),
        _ => None,
    }
}

/// How an object's outbox goes out: an entity's head of line, so its application sees it
/// in order; any other's row by row as each is due, since events about no entity have no
/// order among them and one that fails must not hold back the rest.
#[must_use]
pub fn order_of(object_name: &str) -> Order {
    match object_kind(object_name) {
        Some(ObjectKind::Entity(_)) => Order::HeadOfLine,
        _ => Order::EachDue,
    }
}

/// The source an object serves, from its name.
#[must_use]
pub fn source_of(object_name: &str) -> Option<&str> {
    object_name.split_once('/').map(|(source, _)| source)
}

/// The entity an object serves, from its name (`None` for a bucket or an event's own object).
#[must_use]
pub fn entity_of(object_name: &str) -> Option<&str> {
    match object_kind(object_name)? {
        ObjectKind::Entity(entity) => Some(entity),
        ObjectKind::Bucket(_) | ObjectKind::PerEvent(_) => None,
    }
}

/// The gate object of a source's destination (`{source}/{destination}`, in its own
/// namespace): one per pair, shared by all the source's entities (`gate`). Source names
/// contain no `/`, so [`gate_parts`] reads both back whatever the destination's name holds.
#[must_use]
pub fn gate_name(source: &str, destination: &str) -> String {
    format!("{source}/{destination}")
}

/// The source and destination a gate object serves, from its name; `None` for a name
/// [`gate_name`] never makes.
#[must_use]
pub fn gate_parts(gate_name: &str) -> Option<(&str, &str)> {
    gate_name
        .split_once('/')
        .filter(|(s, d)| !s.is_empty() && !d.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_name_gives_back_its_source() {
        let id = EventId::new("evt_1").unwrap();
        let entity = EntityKey::new("ch/1").unwrap();
        let name = object_for("cockpit", 64, Some(&entity), &id);
        assert_eq!(name, "cockpit/e/ch/1");
        assert_eq!(source_of(&name), Some("cockpit"));
        assert_eq!(entity_of(&name), Some("ch/1"));
        assert_eq!(object_kind(&name), Some(ObjectKind::Entity("ch/1")));
        assert_eq!(entity_of("cockpit/i/evt_1"), None);
        assert_eq!(entity_of("cockpit/i/evt/e/1"), None);
        assert_eq!(
            object_kind("cockpit/i/evt/e/1"),
            Some(ObjectKind::PerEvent("evt/e/1"))
        );
        assert_eq!(per_event_object("cockpit", "evt_1"), "cockpit/i/evt_1");
    }

    #[test]
    fn an_event_about_no_entity_goes_to_the_bucket_its_ids_hash_names() {
        let id = EventId::new("evt_1").unwrap();
        let name = object_for("gh", 64, None, &id);
        // SHA-256("evt_1") starts 7d4e5a76eae6d8c1 (Python's hashlib): 1 mod 64, 193 mod 1024.
        assert_eq!(name, "gh/b/1");
        assert_eq!(bucket_of("evt_1", 1024), 193);
        assert_eq!(bucket_of("delivery-0", 64), 30);
        assert_eq!(object_kind(&name), Some(ObjectKind::Bucket(1)));
        assert_eq!(entity_of(&name), None);
        assert_eq!(source_of(&name), Some("gh"));
        // The read API's path parameters name the same object.
        assert_eq!(object_name("gh", 64, None, "evt_1"), name);
        // One bucket holds everything when there is one; the count bounds the number.
        assert_eq!(object_for("gh", 1, None, &id), "gh/b/0");
        assert!((0..1000).all(|i| bucket_of(&format!("delivery-{i}"), 7) < 7));
    }

    #[test]
    fn ids_spread_over_every_bucket() {
        let mut seen = [0u32; 64];
        for i in 0..6400 {
            seen[bucket_of(&format!("72d3162e-cc78-11e3-81ab-{i:012}"), 64) as usize] += 1;
        }
        // About 100 each; a hash that ignored most of the id would leave buckets empty.
        assert!(seen.iter().all(|&n| (50..=150).contains(&n)), "{seen:?}");
    }

    #[test]
    fn only_an_entitys_outbox_goes_head_of_line() {
        assert_eq!(order_of("cockpit/e/ch_1"), Order::HeadOfLine);
        assert_eq!(order_of("gh/b/3"), Order::EachDue);
        assert_eq!(order_of("gh/i/evt_1"), Order::EachDue);
        assert_eq!(object_kind("gh/b/x"), None);
        assert_eq!(object_kind("gh"), None);
    }

    #[test]
    fn a_gate_name_gives_back_its_source_and_destination() {
        let name = gate_name("cockpit", "billing/v2");
        assert_eq!(name, "cockpit/billing/v2");
        assert_eq!(gate_parts(&name), Some(("cockpit", "billing/v2")));
        assert_eq!(gate_parts("cockpit"), None);
        assert_eq!(gate_parts("cockpit/"), None);
        assert_eq!(gate_parts("/default"), None);
    }
}

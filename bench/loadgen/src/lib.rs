//! What `loadgen` sends: one deterministic delivery per request index, per scenario.
//!
//! Request `n` maps to a delivery without shared state, so any number of threads can draw
//! indices from one counter. Entity names carry a per-run nonce: every run starts on fresh
//! Durable Objects, so scenarios run back to back on one workerd do not see each other's
//! versions.

pub mod event;

use event::{BIG_BODY, SMALL_BODY};

/// Entities the spread-out scenarios cycle over.
pub const ENTITIES: u64 = 1_000;
/// `created_at` of the first event of a run: the seeds' example instant.
pub const BASE_CREATED_AT: i64 = 1_791_270_390;

/// A load shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// New events over [`ENTITIES`] entities, `created_at` increasing per entity.
    Unique,
    /// New events, all about one entity, `created_at` increasing.
    Hot,
    /// Every event sent twice (50 % duplicates), over [`ENTITIES`] entities.
    Dupes,
    /// New events over [`ENTITIES`] entities in shuffled `created_at` order.
    Shuffled,
    /// `Unique` with 64 KiB bodies.
    Big,
    /// New events about no entity, GitHub-shaped (the id in `X-GitHub-Delivery`, signed
    /// with `X-Hub-Signature-256`, to the `github` source), with `unique`'s bodies: they go
    /// to the source's bucket objects. hookonce only: not in [`Scenario::ALL`].
    NoEntity,
}

impl Scenario {
    /// Every scenario, in the report's order.
    pub const ALL: [Scenario; 5] = [
        Scenario::Unique,
        Scenario::Hot,
        Scenario::Dupes,
        Scenario::Shuffled,
        Scenario::Big,
    ];

    /// The command-line and report name.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Unique => "unique",
            Scenario::Hot => "hot",
            Scenario::Dupes => "dupes",
            Scenario::Shuffled => "shuffled",
            Scenario::Big => "big",
            Scenario::NoEntity => "no-entity",
        }
    }

    /// Parses a name from [`Scenario::name`].
    pub fn parse(s: &str) -> Option<Scenario> {
        Scenario::ALL
            .into_iter()
            .chain([Scenario::NoEntity])
            .find(|sc| sc.name() == s)
    }

    /// The delivery request `n` of run `run` sends.
    pub fn delivery(self, run: &str, n: u64) -> Delivery {
        let spread = |k: u64, created_at: i64, size| Delivery {
            id: format!("evt_{run}_{k}"),
            card: format!("card_{run}_{}", k % ENTITIES),
            created_at,
            size,
            github: false,
        };
        let in_order = |k: u64| BASE_CREATED_AT + (k / ENTITIES) as i64;
        match self {
            Scenario::Unique => spread(n, in_order(n), SMALL_BODY),
            Scenario::Big => spread(n, in_order(n), BIG_BODY),
            // Both copies of event k are drawn back to back, so they are often in flight
            // together: the Durable Object, not the client, has to tell them apart.
            Scenario::Dupes => spread(n / 2, in_order(n / 2), SMALL_BODY),
            // About half of an entity's events arrive after a newer one: stale for hookonce.
            Scenario::Shuffled => {
                spread(n, BASE_CREATED_AT + (mix(n) % 1_000_000) as i64, SMALL_BODY)
            }
            Scenario::Hot => Delivery {
                id: format!("evt_{run}_{n}"),
                card: format!("card_{run}_hot"),
                created_at: BASE_CREATED_AT + n as i64,
                size: SMALL_BODY,
                github: false,
            },
            Scenario::NoEntity => Delivery {
                github: true,
                ..spread(n, in_order(n), SMALL_BODY)
            },
        }
    }
}

/// One event to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Event id, also the `webhook-id`.
    pub id: String,
    /// Entity (`data.object.id`).
    pub card: String,
    /// `created_at`, unix seconds.
    pub created_at: i64,
    /// Body size in bytes.
    pub size: usize,
    /// Sent as GitHub sends, to the `github` source, about no entity.
    pub github: bool,
}

impl Delivery {
    /// The JSON body.
    pub fn body(&self) -> Vec<u8> {
        event::body(&self.id, &self.card, self.created_at, self.size)
    }
}

/// SplitMix64's finaliser: a cheap, well-spread permutation of `u64`.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_matches_the_seeds_example() {
        assert_eq!(event::rfc3339(1_791_270_390), "2026-10-06T07:06:30Z");
        assert_eq!(event::rfc3339(0), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn bodies_are_padded_to_the_exact_size() {
        for size in [SMALL_BODY, BIG_BODY] {
            assert_eq!(
                event::body("evt_1", "card_1", 1_791_270_390, size).len(),
                size
            );
        }
    }

    #[test]
    fn bodies_are_valid_json_that_differs_per_event_and_compresses_like_a_real_payload() {
        let a = event::body("evt_1", "card_1", 1_791_270_390, SMALL_BODY);
        let b = event::body("evt_2", "card_1", 1_791_270_390, SMALL_BODY);
        let json: serde_json::Value = serde_json::from_slice(&a).unwrap();
        assert_eq!(json["data"]["object"]["id"], "card_1");
        assert_ne!(a[200..], b[200..]);
        // Not a run of one byte: LZ4 keeps well over half of it.
        let packed = hookonce_core::packing::pack(&a);
        assert!(
            packed.bytes.len() * 10 > a.len() * 6,
            "{} of {}",
            packed.bytes.len(),
            a.len()
        );
    }

    #[test]
    fn no_entity_is_unique_sent_as_github_and_parsed_by_its_name_only() {
        let d = Scenario::NoEntity.delivery("r", 7);
        assert!(d.github);
        assert_eq!(d.id, Scenario::Unique.delivery("r", 7).id);
        assert_eq!(Scenario::parse("no-entity"), Some(Scenario::NoEntity));
        assert!(!Scenario::ALL.contains(&Scenario::NoEntity));
    }

    #[test]
    fn dupes_sends_every_event_twice() {
        let d = |n| Scenario::Dupes.delivery("r", n);
        assert_eq!(d(4), d(5));
        assert_ne!(d(5), d(6));
    }

    #[test]
    fn unique_events_grow_older_never_within_an_entity() {
        let a = Scenario::Unique.delivery("r", 7);
        let b = Scenario::Unique.delivery("r", 7 + ENTITIES);
        assert_eq!(a.card, b.card);
        assert!(b.created_at > a.created_at);
    }

    #[test]
    fn hot_targets_one_entity() {
        let cards: Vec<_> = (0..10)
            .map(|n| Scenario::Hot.delivery("r", n).card)
            .collect();
        assert!(cards.iter().all(|c| c == &cards[0]));
    }
}

//! Names hookonce chooses: which Durable Object owns an event, and the key it forwards.

use crate::event::{EntityKey, EventId};
use crate::idempotency::IdempotencyKey;

/// The Durable Object that owns an event: its entity's (`{source}/e/{entity}`), or, for an
/// event about no entity, one of its own (`{source}/i/{event_id}`). Source names contain
/// no `/`, so [`source_of`] reads the source back.
#[must_use]
pub fn object_for(source: &str, entity: Option<&EntityKey>, event_id: &EventId) -> String {
    object_name(source, entity.map(EntityKey::as_str), event_id.as_str())
}

/// [`object_for`] from unvalidated strings, for the read API's path parameters.
#[must_use]
pub fn object_name(source: &str, entity: Option<&str>, event_id: &str) -> String {
    match entity {
        Some(entity) => format!("{source}/e/{entity}"),
        None => format!("{source}/i/{event_id}"),
    }
}

/// The source an object serves, from its name.
#[must_use]
pub fn source_of(object_name: &str) -> Option<&str> {
    object_name.split_once('/').map(|(source, _)| source)
}

/// The entity an object serves, from its name (`None` for an event's own object).
#[must_use]
pub fn entity_of(object_name: &str) -> Option<&str> {
    object_name.split_once('/')?.1.strip_prefix("e/")
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

    #[test]
    fn an_object_name_gives_back_its_source() {
        let id = EventId::new("evt_1").unwrap();
        let entity = EntityKey::new("ch/1").unwrap();
        let name = object_for("cockpit", Some(&entity), &id);
        assert_eq!(name, "cockpit/e/ch/1");
        assert_eq!(source_of(&name), Some("cockpit"));
        assert_eq!(entity_of(&name), Some("ch/1"));
        assert_eq!(entity_of("cockpit/i/evt_1"), None);
        assert_eq!(entity_of("cockpit/i/evt/e/1"), None);
        assert_eq!(object_for("cockpit", None, &id), "cockpit/i/evt_1");
    }

    #[test]
    fn the_forwarded_key_is_the_quoted_event_id() {
        assert_eq!(forwarded_key("evt_1"), "\"evt_1\"");
        assert_eq!(forwarded_key("a\"b"), "\"a\\\"b\"");
        assert_eq!(forwarded_key("évt"), "évt");
    }
}

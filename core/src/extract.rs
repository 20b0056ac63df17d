//! The values at a few JSON pointers (RFC 6901), read in one pass over a body.
//!
//! An event needs five or six fields of a body that may be 64 KiB of nested objects.
//! Building the whole tree (`serde_json::Value`) allocated every key and value of it and
//! was a quarter of the Worker's time on such bodies (a V8 profile; commit 26648a6).
//! Here the body is walked once: values on no wanted path are skipped, still checked for
//! syntax, so a body that is not JSON is still refused; the wanted ones are kept as
//! borrowed raw text. Where a key repeats, the last one counts, as in `Value`.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The body is not one JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotJson;

/// One step of a pointer: an object key or an array index.
type Segment<'p> = Cow<'p, str>;

/// Which pointers pass through a node, and which end there.
#[derive(Default)]
struct Node<'p> {
    /// Output slots of the pointers that end here.
    ends: Vec<usize>,
    children: Vec<(Segment<'p>, Node<'p>)>,
}

impl<'p> Node<'p> {
    fn insert(&mut self, mut segments: impl Iterator<Item = Segment<'p>>, slot: usize) {
        match segments.next() {
            None => self.ends.push(slot),
            Some(seg) => {
                let at = match self.children.iter().position(|(s, _)| *s == seg) {
                    Some(i) => i,
                    None => {
                        self.children.push((seg, Node::default()));
                        self.children.len() - 1
                    }
                };
                self.children[at].1.insert(segments, slot);
            }
        }
    }

    fn child(&self, key: &str) -> Option<&Node<'p>> {
        self.children.iter().find(|(s, _)| s == key).map(|(_, n)| n)
    }
}

/// RFC 6901 reference tokens: `/a~1b/~0c` is `a/b`, then `~c`.
fn segments(pointer: &str) -> impl Iterator<Item = Segment<'_>> {
    pointer.split('/').skip(1).map(|s| match s.contains('~') {
        true => Cow::Owned(s.replace("~1", "/").replace("~0", "~")),
        false => Cow::Borrowed(s),
    })
}

/// An array index as RFC 6901 spells it: digits, no leading zero.
fn index(seg: &str) -> Option<usize> {
    let digits = !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit());
    match digits && (seg == "0" || !seg.starts_with('0')) {
        true => seg.parse().ok(),
        false => None,
    }
}

/// The raw value at each of `pointers` (each `""` or starting with `/`), in order;
/// `None` where the body has nothing there.
pub(crate) fn extract<'b>(
    body: &'b [u8],
    pointers: &[&str],
) -> Result<Vec<Option<&'b RawValue>>, NotJson> {
    let mut root = Node::default();
    for (slot, p) in pointers.iter().enumerate() {
        root.insert(segments(p), slot);
    }
    let mut out = vec![None; pointers.len()];
    let mut de = serde_json::Deserializer::from_slice(body);
    Walk {
        node: &root,
        out: &mut out,
        below_only: false,
    }
    .deserialize(&mut de)
    .map_err(|_| NotJson)?;
    de.end().map_err(|_| NotJson)?;
    Ok(out)
}

/// Visits one value at `node`.
struct Walk<'n, 'p, 'o, 'b> {
    node: &'n Node<'p>,
    out: &'o mut Vec<Option<&'b RawValue>>,
    /// The value was kept whole already: only the paths below it are left.
    below_only: bool,
}

impl<'de: 'b, 'b> DeserializeSeed<'de> for Walk<'_, '_, '_, 'b> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if !self.below_only && !self.node.ends.is_empty() {
            // Wanted whole: keep its text; paths below it are read from that text.
            let raw: &'b RawValue = Deserialize::deserialize(d)?;
            for &slot in &self.node.ends {
                self.out[slot] = Some(raw);
            }
            if !self.node.children.is_empty() {
                let mut de = serde_json::Deserializer::from_str(raw.get());
                let below = Walk {
                    node: self.node,
                    out: self.out,
                    below_only: true,
                };
                below.deserialize(&mut de).map_err(de::Error::custom)?;
            }
            return Ok(());
        }
        if self.node.children.is_empty() {
            IgnoredAny::deserialize(d)?;
            return Ok(());
        }
        d.deserialize_any(self)
    }
}

/// Forgets what an earlier copy of a repeated key left under `node`: the last one counts.
fn clear(node: &Node<'_>, out: &mut [Option<&RawValue>]) {
    for &slot in &node.ends {
        out[slot] = None;
    }
    for (_, child) in &node.children {
        clear(child, out);
    }
}

impl<'de: 'b, 'b> Visitor<'de> for Walk<'_, '_, '_, 'b> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(Key(key)) = map.next_key()? {
            match self.node.child(&key) {
                Some(node) => {
                    clear(node, self.out);
                    map.next_value_seed(Walk {
                        node,
                        out: &mut *self.out,
                        below_only: false,
                    })?
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        loop {
            let node = self
                .node
                .children
                .iter()
                .find(|(s, _)| index(s) == Some(i))
                .map(|(_, n)| n);
            let more = match node {
                Some(node) => seq
                    .next_element_seed(Walk {
                        node,
                        out: &mut *self.out,
                        below_only: false,
                    })?
                    .is_some(),
                None => seq.next_element::<IgnoredAny>()?.is_some(),
            };
            if !more {
                return Ok(());
            }
            i += 1;
        }
    }

    // Scalars: nothing below them.
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// An object key, borrowed from the body unless it has escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    /// The oracle: serde_json's own tree and `Value::pointer`.
    fn oracle(body: &str, pointers: &[&str]) -> Vec<Option<Value>> {
        let v: Value = serde_json::from_str(body).unwrap();
        pointers.iter().map(|p| v.pointer(p).cloned()).collect()
    }

    fn ours(body: &str, pointers: &[&str]) -> Vec<Option<Value>> {
        extract(body.as_bytes(), pointers)
            .unwrap()
            .into_iter()
            .map(|r| r.map(|r| serde_json::from_str(r.get()).unwrap()))
            .collect()
    }

    #[test]
    fn the_fields_of_an_event_are_read_as_serde_json_reads_them() {
        let body = r#"{"id":"evt_1","type":"t","created_at":1,"data":{"object":{"id":"ch_1",
            "n":[1,{"a~b/c":2}]},"x":null},"amount":-5}"#;
        let pointers = [
            "/id",
            "/type",
            "/data/object",
            "/data/object/id",
            "/data/object/n/1/a~0b~1c",
            "/data/x",
            "/data/missing",
            "/id/deeper",
            "/data/object/n/01",
            "",
            "/amount",
        ];
        assert_eq!(ours(body, &pointers), oracle(body, &pointers));
        // Raw text is kept as sent.
        let found = extract(body.as_bytes(), &["/data/object/n"]).unwrap();
        assert_eq!(found[0].unwrap().get(), r#"[1,{"a~b/c":2}]"#);
    }

    #[test]
    fn a_repeated_key_counts_once_the_last_time_as_in_serde_json() {
        let body = r#"{"data":{"object":{"id":"a"}},"id":"x","data":{"other":1},"id":"y"}"#;
        let pointers = ["/data/object/id", "/data/object", "/id", "/data"];
        assert_eq!(ours(body, &pointers), oracle(body, &pointers));
    }

    #[test]
    fn a_body_that_is_not_json_is_refused_even_where_nothing_is_read() {
        for bad in [
            &b"{"[..],
            b"{\"id\":1,\"x\":[1,}",
            b"{\"id\":1} trailing",
            b"",
            b"\xff",
        ] {
            assert_eq!(
                extract(bad, &["/id"]).err(),
                Some(NotJson),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            "[a-z~/\"\\\\]{0,4}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-c~/]{0,2}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Every path in `v`, as RFC 6901 pointers, plus some that lead nowhere.
    fn paths(v: &Value, prefix: String, out: &mut Vec<String>) {
        out.push(prefix.clone());
        out.push(format!("{prefix}/zz"));
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    let token = k.replace('~', "~0").replace('/', "~1");
                    paths(c, format!("{prefix}/{token}"), out);
                }
            }
            Value::Array(a) => {
                out.push(format!("{prefix}/0{}", a.len()));
                for (i, c) in a.iter().enumerate() {
                    paths(c, format!("{prefix}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    proptest! {
        #[test]
        fn every_pointer_reads_what_serde_json_reads(v in json_value(), pick in proptest::collection::vec(any::<prop::sample::Index>(), 1..6)) {
            let body = serde_json::to_string_pretty(&v).unwrap();
            let mut all = Vec::new();
            paths(&v, String::new(), &mut all);
            let pointers: Vec<&str> = pick.iter().map(|i| all[i.index(all.len())].as_str()).collect();
            prop_assert_eq!(ours(&body, &pointers), oracle(&body, &pointers));
        }

        #[test]
        fn arbitrary_bytes_are_json_exactly_when_serde_json_says_so(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let theirs = serde_json::from_slice::<Value>(&bytes).is_ok();
            prop_assert_eq!(extract(&bytes, &["/a", "/0"]).is_ok(), theirs);
        }
    }
}

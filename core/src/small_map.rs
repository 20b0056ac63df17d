//! A map kept as a `Vec` sorted by key, for the few keys of a configuration (sources, event
//! types) and the short tables of an isolate (pending tasks, queued notes).
//!
//! Why not `BTreeMap`: each of its key and value types brings its own copy of the tree's
//! code (insert, split, merge, steal, drop) into the wasm, about 2 KiB per map type. Here
//! a map is a binary search and a `Vec`. Lookups stay logarithmic; an insert or removal
//! moves the entries after it, which is nothing at these sizes.

use std::borrow::Borrow;

/// An ordered map on a sorted `Vec`: iteration is in key order, as `BTreeMap`'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmallMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap::new()
    }
}

impl<K, V> SmallMap<K, V> {
    /// An empty map; `const`, for a `thread_local!` table.
    pub const fn new() -> Self {
        SmallMap(Vec::new())
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    /// The values, in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }
}

impl<K: Ord, V> SmallMap<K, V> {
    /// Where `key` is (`Ok`) or would go (`Err`).
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    /// The value of `key`, to change.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &mut self.0[i].1)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, returning the value it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    /// Takes `key`'s value out of the map.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| self.0.remove(i).1)
    }

    /// The value of `key`, made with `make` first if it has none.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.find(&key) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (key, make()));
                i
            }
        };
        &mut self.0[i].1
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SmallMap<K, V> {
    /// Later entries replace earlier ones of the same key, as in `BTreeMap`.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut map = SmallMap::new();
        for (k, v) in entries {
            map.insert(k, v);
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::SmallMap;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u8, u16),
        Remove(u8),
        Upsert(u8, u16),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (any::<u8>(), any::<u16>()).prop_map(|(k, v)| Op::Insert(k, v)),
            any::<u8>().prop_map(Op::Remove),
            (any::<u8>(), any::<u16>()).prop_map(|(k, v)| Op::Upsert(k, v)),
        ]
    }

    proptest! {
        /// The standard library's `BTreeMap` is the oracle: after any sequence of inserts,
        /// removals and upserts, both answer every lookup alike and iterate alike.
        #[test]
        fn behaves_as_a_btreemap(ops in prop::collection::vec(op(), 0..200)) {
            let (mut ours, mut oracle) = (SmallMap::new(), BTreeMap::new());
            for op in ops {
                match op {
                    Op::Insert(k, v) => prop_assert_eq!(ours.insert(k, v), oracle.insert(k, v)),
                    Op::Remove(k) => prop_assert_eq!(ours.remove(&k), oracle.remove(&k)),
                    Op::Upsert(k, v) => {
                        let mine = ours.get_or_insert_with(k, || 0);
                        *mine = mine.wrapping_add(v);
                        let theirs: &mut u16 = oracle.entry(k).or_insert(0);
                        *theirs = theirs.wrapping_add(v);
                    }
                }
                prop_assert_eq!(ours.len(), oracle.len());
            }
            for k in 0..=u8::MAX {
                prop_assert_eq!(ours.get(&k), oracle.get(&k));
                prop_assert_eq!(ours.contains_key(&k), oracle.contains_key(&k));
            }
            let both: Vec<_> = ours.iter().map(|(k, v)| (*k, *v)).collect();
            let want: Vec<_> = oracle.iter().map(|(k, v)| (*k, *v)).collect();
            prop_assert_eq!(both, want);
        }
    }

    #[test]
    fn string_keys_are_found_by_str() {
        let map: SmallMap<String, u8> = [("b".to_owned(), 2), ("a".to_owned(), 1)]
            .into_iter()
            .collect();
        assert_eq!(map.get("a"), Some(&1));
        assert_eq!(
            map.keys().map(String::as_str).collect::<Vec<_>>(),
            ["a", "b"]
        );
    }
}

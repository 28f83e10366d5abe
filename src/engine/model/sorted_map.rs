//! A map from strings kept as one vector of entries in key order. Property maps hold a handful
//! of entries, and a B-tree spends a node of eleven slots (about 600 bytes) on even one of
//! them; a million resources hold several maps each, so their size is the stack's memory.

use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Entries sorted by key, each key once: lookups search, iteration is in key order, as a
/// `BTreeMap`'s is, so output and comparisons are unchanged.
#[derive(Clone, PartialEq, Eq)]
pub struct SortedMap<V> {
    entries: Vec<(String, V)>,
}

/// A borrowed entry as a `BTreeMap` iterator yields it.
type Pair<'a, V> = (&'a String, &'a V);

/// Iterates the entries in key order.
pub type Iter<'a, V> =
    std::iter::Map<std::slice::Iter<'a, (String, V)>, fn(&'a (String, V)) -> Pair<'a, V>>;

/// Iterates the entries in key order, values writable.
pub type IterMut<'a, V> = std::iter::Map<
    std::slice::IterMut<'a, (String, V)>,
    fn(&'a mut (String, V)) -> (&'a String, &'a mut V),
>;

/// The methods are those of `BTreeMap` that property maps use, with the same meaning.
impl<V> SortedMap<V> {
    pub const fn new() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Where `key` is, or where it would go.
    fn find<Q>(&self, key: &Q) -> Result<usize, usize>
    where
        String: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        String: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        String: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        String: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, returning the value it replaced.
    pub fn insert(&mut self, key: String, value: V) -> Option<V> {
        match self.find(key.as_str()) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        String: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| self.entries.remove(i).1)
    }

    /// The value at `key`, inserted from `default` first when absent.
    pub fn entry_or_insert_with(&mut self, key: String, default: impl FnOnce() -> V) -> &mut V {
        let i = match self.find(key.as_str()) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key, default()));
                i
            }
        };
        &mut self.entries[i].1
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    pub fn iter(&self) -> Iter<'_, V> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> IterMut<'_, V> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// Puts unsorted entries in order; of equal keys the last one stays, as a `BTreeMap`
    /// built from them keeps it.
    fn from_unsorted(mut entries: Vec<(String, V)>) -> Self {
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            // `dedup_by` keeps the first slot of a run of equal keys: each later entry is
            // swapped into it before it goes, so the slot ends with the last.
            entries.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    std::mem::swap(later, kept);
                }
                same
            });
        }
        entries.shrink_to_fit();
        SortedMap { entries }
    }
}

impl<V> Default for SortedMap<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: fmt::Debug> fmt::Debug for SortedMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V, Q> std::ops::Index<&Q> for SortedMap<V>
where
    String: Borrow<Q>,
    Q: Ord + ?Sized,
{
    type Output = V;

    /// The value at `key`; panics when there is none, as a `BTreeMap` does.
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry for the key")
    }
}

impl<V> FromIterator<(String, V)> for SortedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> Self {
        SortedMap::from_unsorted(entries.into_iter().collect())
    }
}

impl<V, const N: usize> From<[(String, V); N]> for SortedMap<V> {
    fn from(entries: [(String, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<V> Extend<(String, V)> for SortedMap<V> {
    fn extend<I: IntoIterator<Item = (String, V)>>(&mut self, more: I) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.extend(more);
        *self = SortedMap::from_unsorted(entries);
    }
}

impl<V> IntoIterator for SortedMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, V> IntoIterator for &'a SortedMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = Iter<'a, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, V> IntoIterator for &'a mut SortedMap<V> {
    type Item = (&'a String, &'a mut V);
    type IntoIter = IterMut<'a, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<V: Serialize> Serialize for SortedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for SortedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<V>(PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for Entries<V> {
            type Value = SortedMap<V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(access.size_hint().unwrap_or(0).min(4096));
                while let Some(entry) = access.next_entry()? {
                    entries.push(entry);
                }
                Ok(SortedMap::from_unsorted(entries))
            }
        }

        d.deserialize_map(Entries(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn plain(entries: &[(&str, u32)]) -> BTreeMap<String, u32> {
        entries.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }

    fn sorted(entries: &[(&str, u32)]) -> SortedMap<u32> {
        entries.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }

    fn same<V: PartialEq + fmt::Debug>(a: &SortedMap<V>, b: &BTreeMap<String, V>) {
        let a: Vec<_> = a.iter().collect();
        let b: Vec<_> = b.iter().collect();
        assert_eq!(a, b);
    }

    #[test]
    fn built_from_scrambled_entries_it_holds_what_a_btree_map_holds() {
        let entries = [("m", 1), ("b", 2), ("z", 3), ("b", 4), ("a", 5), ("m", 6)];
        same(&sorted(&entries), &plain(&entries));
        let mut extended = sorted(&entries[..3]);
        extended.extend(entries[3..].iter().map(|&(k, v)| (k.to_string(), v)));
        same(&extended, &plain(&entries));
    }

    #[test]
    fn inserts_and_removals_keep_the_order_a_btree_map_keeps() {
        let mut a = SortedMap::new();
        let mut b = BTreeMap::new();
        // A fixed scramble of 200 keys, some inserted twice, every third removed.
        for i in 0..400u32 {
            let key = format!("k{}", (i * 7919) % 200);
            assert_eq!(a.insert(key.clone(), i), b.insert(key.clone(), i));
            if i % 3 == 0 {
                let gone = format!("k{}", (i * 31) % 200);
                assert_eq!(a.remove(gone.as_str()), b.remove(gone.as_str()));
            }
        }
        same(&a, &b);
        for k in b.keys() {
            assert_eq!(a.get(k.as_str()), b.get(k.as_str()));
        }
        assert!(!a.contains_key("absent"));
        assert_eq!(a.len(), b.len());
        *a.entry_or_insert_with("k7".into(), || 0) += 1000;
        *b.entry("k7".into()).or_insert(0) += 1000;
        a.entry_or_insert_with("new".into(), || 5);
        b.entry("new".into()).or_insert(5);
        a.retain(|_, v| *v % 2 == 0);
        b.retain(|_, v| *v % 2 == 0);
        same(&a, &b);
    }

    #[test]
    fn serializes_as_a_map_and_reads_back_in_order() {
        let a = sorted(&[("b", 2), ("a", 1)]);
        assert_eq!(serde_json::to_string(&a).unwrap(), r#"{"a":1,"b":2}"#);
        assert_eq!(format!("{a:?}"), r#"{"a": 1, "b": 2}"#);
        let back: SortedMap<u32> = serde_json::from_str(r#"{"b":2,"a":1,"b":3}"#).unwrap();
        same(&back, &plain(&[("a", 1), ("b", 3)]));
        let err = serde_json::from_str::<SortedMap<u32>>("[1]").unwrap_err();
        assert!(err.to_string().contains("expected a map"), "{err}");
    }
}

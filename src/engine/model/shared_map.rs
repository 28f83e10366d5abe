//! A sorted string-keyed map shared copy-on-write: cloning it is a reference-count increment,
//! and the first change to a shared copy clones the entries then, so it keeps a plain map's
//! value semantics. Property maps are this, because every step, event and answer of an
//! unchanged resource copies its inputs and outputs.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::sorted_map::{self, SortedMap};

/// A [`SortedMap`] whose clones share their entries until one of them changes.
pub struct SharedMap<V>(Arc<SortedMap<V>>);

impl<V> SharedMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        SharedMap(Arc::new(SortedMap::new()))
    }

    /// Whether the map has no entries; a path for `skip_serializing_if`, which does not deref.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V: Clone> SharedMap<V> {
    /// The entries as a plain map, moved out when no other copy shares them.
    pub fn into_inner(self) -> SortedMap<V> {
        Arc::unwrap_or_clone(self.0)
    }
}

impl<V> Default for SharedMap<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> Clone for SharedMap<V> {
    fn clone(&self) -> Self {
        SharedMap(Arc::clone(&self.0))
    }
}

impl<V> Deref for SharedMap<V> {
    type Target = SortedMap<V>;

    fn deref(&self) -> &SortedMap<V> {
        &self.0
    }
}

impl<V: Clone> DerefMut for SharedMap<V> {
    fn deref_mut(&mut self) -> &mut SortedMap<V> {
        Arc::make_mut(&mut self.0)
    }
}

impl<V: PartialEq> PartialEq for SharedMap<V> {
    fn eq(&self, other: &Self) -> bool {
        *self.0 == *other.0
    }
}

impl<V: Eq> Eq for SharedMap<V> {}

impl<V: fmt::Debug> fmt::Debug for SharedMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<V> From<SortedMap<V>> for SharedMap<V> {
    fn from(map: SortedMap<V>) -> Self {
        SharedMap(Arc::new(map))
    }
}

impl<V, const N: usize> From<[(String, V); N]> for SharedMap<V> {
    fn from(entries: [(String, V); N]) -> Self {
        SharedMap::from(SortedMap::from(entries))
    }
}

impl<V> FromIterator<(String, V)> for SharedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> Self {
        SharedMap::from(SortedMap::from_iter(entries))
    }
}

impl<V: Clone> IntoIterator for SharedMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_inner().into_iter()
    }
}

impl<'a, V> IntoIterator for &'a SharedMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = sorted_map::Iter<'a, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, V: Clone> IntoIterator for &'a mut SharedMap<V> {
    type Item = (&'a String, &'a mut V);
    type IntoIter = sorted_map::IterMut<'a, V>;

    fn into_iter(self) -> Self::IntoIter {
        Arc::make_mut(&mut self.0).iter_mut()
    }
}

/// Written as the map itself: state files and events keep their bytes.
impl<V: Serialize> Serialize for SharedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for SharedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        SortedMap::deserialize(d).map(SharedMap::from)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn map(entries: &[(&str, u32)]) -> SharedMap<u32> {
        entries.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }

    #[test]
    fn a_clone_shares_the_entries_until_one_side_changes() {
        let a = map(&[("x", 1), ("y", 2)]);
        let mut b = a.clone();
        assert!(std::ptr::eq(&*a, &*b), "a clone copies no entry");
        b.insert("x".into(), 10);
        assert_eq!(a.get("x"), Some(&1), "the original keeps its value");
        assert_eq!(b.get("x"), Some(&10));
        assert!(!std::ptr::eq(&*a, &*b));
    }

    #[test]
    fn an_unshared_map_changes_in_place() {
        let mut a = map(&[("x", 1)]);
        let before: *const SortedMap<u32> = &*a;
        a.insert("y".into(), 2);
        for (_, v) in &mut a {
            *v += 1;
        }
        assert!(std::ptr::eq(before, &*a));
        assert_eq!(a, map(&[("x", 2), ("y", 3)]));
    }

    #[test]
    fn owned_iteration_leaves_a_shared_copy_whole() {
        let a = map(&[("x", 1), ("y", 2)]);
        let b = a.clone();
        let taken: Vec<(String, u32)> = b.into_iter().collect();
        assert_eq!(taken, vec![("x".to_string(), 1), ("y".to_string(), 2)]);
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn serializes_and_prints_as_the_plain_map() {
        let a = map(&[("b", 2), ("a", 1)]);
        let plain: BTreeMap<String, u32> = a.iter().map(|(k, v)| (k.clone(), *v)).collect();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&plain).unwrap()
        );
        assert_eq!(format!("{a:?}"), format!("{plain:?}"));
        let back: SharedMap<u32> = serde_json::from_str(r#"{"a":1,"b":2}"#).unwrap();
        assert_eq!(back, a);
    }
}

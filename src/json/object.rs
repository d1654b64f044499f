//! JSON objects that keep every member, duplicates included, in source order.

use std::collections::{HashMap, HashSet};

use compact_str::CompactString;

use super::{Node, Span};

/// Members in source order. Duplicate keys are kept because hiding them is a
/// classic smuggling trick: different consumers pick different occurrences.
/// Lookups follow serde_json and take the LAST occurrence.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object {
    pub members: Vec<Member>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// The decoded key.
    pub key: CompactString,
    /// The key's literal in the source, quotes included (only the parser sets it; see
    /// [`super::Node::span`]).
    pub key_span: Span,
    pub value: Node,
}

impl Object {
    pub fn new() -> Object {
        Object::default()
    }

    /// The value of the last member named `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.get_member(key).map(|m| &m.value)
    }

    /// The value of the last member named `key`, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.members
            .iter_mut()
            .rev()
            .find(|m| m.key == key)
            .map(|m| &mut m.value)
    }

    /// The last member named `key`.
    pub fn get_member(&self, key: &str) -> Option<&Member> {
        self.members.iter().rev().find(|m| m.key == key)
    }

    /// Each key once (its last occurrence, the one lookups see), in the source order of those
    /// occurrences.
    pub fn iter_unique(&self) -> impl Iterator<Item = &Member> {
        // Almost every object has unique keys: then nothing is allocated.
        let mut shadowed = Vec::new();
        if self.has_duplicate_keys() {
            let mut seen = HashSet::with_capacity(self.members.len());
            shadowed = vec![false; self.members.len()];
            for (i, member) in self.members.iter().enumerate().rev() {
                if !seen.insert(member.key.as_str())
                    && let Some(flag) = shadowed.get_mut(i)
                {
                    *flag = true;
                }
            }
        }
        self.members
            .iter()
            .enumerate()
            .filter(move |(i, _)| !shadowed.get(*i).copied().unwrap_or(false))
            .map(|(_, member)| member)
    }

    /// Whether some key occurs twice: pairwise for small objects (no allocation), hashed for
    /// large ones.
    pub fn has_duplicate_keys(&self) -> bool {
        const PAIRWISE_MAX: usize = 16;
        let members = &self.members;
        if members.len() <= PAIRWISE_MAX {
            // Each key is read out of its inline-or-heap form once, not once per comparison:
            // this look runs for every object of every walk.
            let mut keys = [""; PAIRWISE_MAX];
            for (slot, member) in keys.iter_mut().zip(members) {
                *slot = member.key.as_str();
            }
            let keys = keys.get(..members.len()).unwrap_or_default();
            return keys
                .iter()
                .enumerate()
                .any(|(i, key)| keys.iter().skip(i + 1).any(|other| other == key));
        }
        let mut seen = HashSet::with_capacity(members.len());
        !members.iter().all(|m| seen.insert(m.key.as_str()))
    }

    /// Keys that occur more than once, each with all its occurrences in source
    /// order; keys are ordered by their first occurrence.
    pub fn duplicate_keys(&self) -> Vec<(&str, Vec<&Member>)> {
        if !self.has_duplicate_keys() {
            return Vec::new();
        }
        let mut slots: HashMap<&str, usize> = HashMap::with_capacity(self.members.len());
        let mut groups: Vec<(&str, Vec<&Member>)> = Vec::new();
        for member in &self.members {
            let key = member.key.as_str();
            let slot = *slots.entry(key).or_insert_with(|| {
                groups.push((key, Vec::with_capacity(1)));
                groups.len() - 1
            });
            if let Some((_, occurrences)) = groups.get_mut(slot) {
                occurrences.push(member);
            }
        }
        groups.retain(|(_, occurrences)| occurrences.len() > 1);
        groups
    }

    /// Sets `key` to `value` for trees built in code: the new member takes the
    /// place of the first existing occurrence and every other occurrence is
    /// removed, so the object ends up with exactly one such key.
    pub fn insert(&mut self, key: impl Into<String>, value: Node) {
        let key = key.into();
        let member = Member {
            key: key.into(),
            key_span: Span::default(),
            value,
        };
        match self.members.iter().position(|m| m.key == member.key) {
            Some(first) => {
                let mut index = 0;
                self.members.retain(|m| {
                    let keep = index == first || m.key != member.key;
                    index += 1;
                    keep
                });
                if let Some(slot) = self.members.get_mut(first) {
                    *slot = member;
                }
            }
            None => self.members.push(member),
        }
    }

    /// An object built in code, with the members [`Object::insert`] would leave, in linear time:
    /// building a server's tools object one `insert` at a time is quadratic, and a snapshot may
    /// hold a million tools.
    pub fn from_pairs<K: Into<CompactString>>(
        pairs: impl IntoIterator<Item = (K, Node)>,
    ) -> Object {
        let mut slots: HashMap<CompactString, usize> = HashMap::new();
        let mut members: Vec<Member> = Vec::new();
        for (key, value) in pairs {
            let key = key.into();
            match slots.get(&key).and_then(|&slot| members.get_mut(slot)) {
                Some(member) => member.value = value,
                None => {
                    slots.insert(key.clone(), members.len());
                    members.push(Member {
                        key,
                        key_span: Span::default(),
                        value,
                    });
                }
            }
        }
        Object { members }
    }

    /// The number of distinct keys.
    pub fn len_unique(&self) -> usize {
        self.members
            .iter()
            .map(|m| m.key.as_str())
            .collect::<HashSet<_>>()
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(pairs: &[(&str, u64)]) -> Object {
        Object {
            members: pairs
                .iter()
                .enumerate()
                .map(|(i, (k, v))| Member {
                    key: (*k).into(),
                    key_span: Span {
                        start: i,
                        end: i + 1,
                    },
                    value: Node::u64(*v),
                })
                .collect(),
        }
    }

    fn value_of(node: Option<&Node>) -> Option<u64> {
        node.and_then(Node::as_number).and_then(|n| n.as_u64())
    }

    #[test]
    fn last_occurrence_wins() {
        let o = object(&[("a", 1), ("b", 2), ("a", 3)]);
        assert_eq!(value_of(o.get("a")), Some(3));
        assert_eq!(value_of(o.get("b")), Some(2));
        assert_eq!(o.get("c"), None);
        assert_eq!(o.get_member("a").map(|m| m.key_span.start), Some(2));
    }

    #[test]
    fn iter_unique_keeps_last_occurrences_in_source_order() {
        let o = object(&[("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5)]);
        let got: Vec<(&str, Option<u64>)> = o
            .iter_unique()
            .map(|m| (m.key.as_str(), value_of(Some(&m.value))))
            .collect();
        assert_eq!(got, [("a", Some(3)), ("c", Some(4)), ("b", Some(5))]);
        assert_eq!(o.len_unique(), 3);
        assert!(!o.is_empty());
        assert!(Object::new().is_empty());
        assert_eq!(Object::new().len_unique(), 0);
    }

    #[test]
    fn duplicate_keys_are_grouped_by_first_occurrence() {
        let o = object(&[("x", 0), ("b", 1), ("a", 2), ("b", 3), ("a", 4), ("b", 5)]);
        let got: Vec<(&str, Vec<usize>)> = o
            .duplicate_keys()
            .into_iter()
            .map(|(k, ms)| (k, ms.iter().map(|m| m.key_span.start).collect()))
            .collect();
        assert_eq!(got, [("b", vec![1, 3, 5]), ("a", vec![2, 4])]);
        assert!(object(&[("a", 1), ("b", 2)]).duplicate_keys().is_empty());
        assert!(!object(&[("a", 1), ("b", 2)]).has_duplicate_keys());
        let many: Vec<(String, u64)> = (0..40).map(|i| (format!("k{i}"), i)).collect();
        let mut pairs: Vec<(&str, u64)> = many.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert!(!object(&pairs).has_duplicate_keys());
        pairs.push(("k3", 99));
        let large = object(&pairs);
        assert!(large.has_duplicate_keys());
        assert_eq!(large.iter_unique().count(), 40);
        assert_eq!(
            value_of(large.iter_unique().last().map(|m| &m.value)),
            Some(99)
        );
    }

    #[test]
    fn insert_replaces_all_occurrences_in_place() {
        let mut o = object(&[("a", 1), ("b", 2), ("a", 3), ("c", 4)]);
        o.insert("a", Node::u64(9));
        let keys: Vec<&str> = o.members.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c"]);
        assert_eq!(value_of(o.get("a")), Some(9));
        o.insert("d", Node::u64(5));
        assert_eq!(o.members.last().map(|m| m.key.as_str()), Some("d"));
        assert_eq!(o.len_unique(), 4);
    }

    #[test]
    fn from_pairs_agrees_with_repeated_insert() {
        let pairs = [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5)];
        let mut inserted = Object::new();
        for (k, v) in pairs {
            inserted.insert(k, Node::u64(v));
        }
        let built = Object::from_pairs(pairs.map(|(k, v)| (k.to_owned(), Node::u64(v))));
        assert_eq!(built, inserted);
    }
}

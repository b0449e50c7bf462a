//! A small bounded map from a token to what was learned about it (a
//! validated grant, an exchanged token), each entry until its own deadline.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// Tokens longer than this are never cached (checked every time), so the
/// cache holds at most `capacity` × this many bytes of keys.
const MAX_CACHED_TOKEN_BYTES: usize = 4096;

/// At most `capacity` entries; a full cache first drops what has expired,
/// then everything (a flood of distinct tokens costs re-validation, not
/// memory).
#[derive(Debug)]
pub(crate) struct TokenCache<V> {
    entries: Mutex<HashMap<String, (Instant, V)>>,
    capacity: usize,
}

impl<V: Clone> TokenCache<V> {
    /// An empty cache of at most `capacity` entries.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    /// The value kept for `token`, unless its deadline has passed.
    pub(crate) fn get(&self, token: &str) -> Option<V> {
        let entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries
            .get(token)
            .filter(|(until, _)| *until > Instant::now())
            .map(|(_, v)| v.clone())
    }

    /// Keeps `value` for `token` until `until`.
    pub(crate) fn insert(&self, token: &str, until: Instant, value: V) {
        if token.len() > MAX_CACHED_TOKEN_BYTES || until <= Instant::now() {
            return;
        }
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if entries.len() >= self.capacity && !entries.contains_key(token) {
            let now = Instant::now();
            entries.retain(|_, (until, _)| *until > now);
            if entries.len() >= self.capacity {
                entries.clear();
            }
        }
        entries.insert(token.to_string(), (until, value));
    }

    /// Forgets `token` (Keeper refused what it led to).
    pub(crate) fn remove(&self, token: &str) {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries.remove(token);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn entries_expire_and_the_size_is_bounded() {
        let cache = TokenCache::new(3);
        let later = Instant::now() + Duration::from_secs(60);
        cache.insert("a", later, 1);
        assert_eq!(cache.get("a"), Some(1));
        cache.insert("gone", Instant::now(), 2);
        assert_eq!(cache.get("gone"), None);
        for t in ["b", "c", "d", "e"] {
            cache.insert(t, later, 3);
        }
        assert!(cache.len() <= 3);
        assert_eq!(cache.get("e"), Some(3));
        cache.remove("e");
        assert_eq!(cache.get("e"), None);
        cache.insert(&"x".repeat(MAX_CACHED_TOKEN_BYTES + 1), later, 4);
        assert_eq!(cache.get(&"x".repeat(MAX_CACHED_TOKEN_BYTES + 1)), None);
    }
}

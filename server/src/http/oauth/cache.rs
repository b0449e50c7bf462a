//! A small bounded map from a token to what was learned about it (a
//! validated grant, an exchanged token, a refusal), each entry until its own
//! deadline. Entries are keyed by the SHA-256 of the token (and of what it
//! was exchanged for), whatever its length: the cache holds no token, and a
//! long one costs 32 bytes like any other.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// What an entry is found by: the SHA-256 of its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct TokenKey([u8; 32]);

impl TokenKey {
    /// The key of `token` alone.
    pub(crate) fn of(token: &str) -> Self {
        Self::of_parts(&[token])
    }

    /// The key of several parts (an audience and a token), each
    /// length-prefixed so that no two lists share a key.
    pub(crate) fn of_parts(parts: &[&str]) -> Self {
        let mut hash = Sha256::new();
        for part in parts {
            hash.update((part.len() as u64).to_be_bytes());
            hash.update(part.as_bytes());
        }
        Self(hash.finalize().into())
    }
}

/// The instant `lifetime` from now, saturating: a lifetime an authorization
/// server chose (`exp` 10^19, `expires_in` 2^63) is capped at
/// [`MAX_LIFETIME`] and never overflows.
pub(crate) fn after(lifetime: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(lifetime.min(MAX_LIFETIME)).unwrap_or(now)
}

/// The longest lifetime Herald reckons with (caches keep far less).
pub(crate) const MAX_LIFETIME: Duration = Duration::from_secs(365 * 24 * 3600);

/// At most `capacity` entries; a full cache first drops what has expired,
/// then everything (a flood of distinct tokens costs re-validation, not
/// memory).
#[derive(Debug)]
pub(crate) struct TokenCache<V> {
    entries: Mutex<HashMap<TokenKey, (Instant, V)>>,
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

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TokenKey, (Instant, V)>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The value kept for `key`, unless its deadline has passed.
    pub(crate) fn get(&self, key: &TokenKey) -> Option<V> {
        self.lock()
            .get(key)
            .filter(|(until, _)| *until > Instant::now())
            .map(|(_, v)| v.clone())
    }

    /// Keeps `value` for `key` until `until`.
    pub(crate) fn insert(&self, key: TokenKey, until: Instant, value: V) {
        if until <= Instant::now() {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= self.capacity && !entries.contains_key(&key) {
            let now = Instant::now();
            entries.retain(|_, (until, _)| *until > now);
            if entries.len() >= self.capacity {
                entries.clear();
            }
        }
        entries.insert(key, (until, value));
    }

    /// Forgets `key` (Keeper refused what it led to).
    pub(crate) fn remove(&self, key: &TokenKey) {
        self.lock().remove(key);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire_and_the_size_is_bounded() {
        let cache = TokenCache::new(3);
        let later = Instant::now() + Duration::from_secs(60);
        let key = TokenKey::of;
        cache.insert(key("a"), later, 1);
        assert_eq!(cache.get(&key("a")), Some(1));
        cache.insert(key("gone"), Instant::now(), 2);
        assert_eq!(cache.get(&key("gone")), None);
        for t in ["b", "c", "d", "e"] {
            cache.insert(key(t), later, 3);
        }
        assert!(cache.len() <= 3);
        assert_eq!(cache.get(&key("e")), Some(3));
        cache.remove(&key("e"));
        assert_eq!(cache.get(&key("e")), None);
        // A long token is cached like any other.
        let long = "x".repeat(64 * 1024);
        cache.insert(key(&long), later, 4);
        assert_eq!(cache.get(&key(&long)), Some(4));
        assert_ne!(
            TokenKey::of_parts(&["ab", "c"]),
            TokenKey::of_parts(&["a", "bc"])
        );
    }

    #[test]
    fn lifetimes_from_outside_saturate() {
        let far = after(Duration::from_secs(u64::MAX));
        assert!(far > Instant::now() + Duration::from_secs(3600));
        assert!(after(Duration::ZERO) <= Instant::now());
    }
}

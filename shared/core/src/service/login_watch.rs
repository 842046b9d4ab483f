//! Held status polls: where one process owns the store (`scanid serve` on the embedded store,
//! which every scan and decision goes through), the login page's poll waits for its login to
//! change instead of asking again every one to three seconds. The page then shows the number
//! the moment the phone scans, follows the approval the moment it lands, and makes fewer
//! requests. A Lambda function has no watch (the scan and the poll run in different
//! processes, and a held request is billed by the millisecond), so there the poll is answered
//! at once and the page paces itself as before.
//!
//! The watch is a map from a login's id to a [`Notify`] that only lives while a poll waits on
//! it (the map holds it weakly); the map is split in shards so that no one lock sits on every
//! request's path.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::futures::Notified;
use tokio::sync::Notify;

/// How many locks the map is split over.
const SHARDS: usize = 16;

/// The logins a poll waits on, by id.
#[derive(Default)]
pub struct LoginWatch {
    shards: [Mutex<HashMap<String, Weak<Notify>>>; SHARDS],
    /// The server is shutting down: no poll waits any more.
    closed: AtomicBool,
}

impl std::fmt::Debug for LoginWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginWatch").finish_non_exhaustive()
    }
}

impl LoginWatch {
    fn shard(&self, id: &str) -> &Mutex<HashMap<String, Weak<Notify>>> {
        // FNV-1a: the ids are random already; this only spreads them.
        let h = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        &self.shards[(h % SHARDS as u64) as usize]
    }

    /// Wakes every poll waiting on login `id` (after a write that changed it: a scan, a
    /// decision, a cancellation). Nobody waiting: nothing happens.
    pub fn changed(&self, id: &str) {
        let notify = self
            .shard(id)
            .lock()
            .ok()
            .and_then(|m| m.get(id).and_then(Weak::upgrade));
        if let Some(n) = notify {
            n.notify_waiters();
        }
    }

    /// A watch on login `id`: take [`Watch::changed`] before reading the login, so that a
    /// change written between the read and the wait is not missed.
    pub fn watch(&self, id: &str) -> Watch<'_> {
        let shard = self.shard(id);
        let notify = match shard.lock() {
            Ok(mut m) => match m.get(id).and_then(Weak::upgrade) {
                Some(n) => n,
                None => {
                    let n = Arc::new(Notify::new());
                    m.insert(id.to_owned(), Arc::downgrade(&n));
                    n
                }
            },
            // A poisoned shard (a panic while it was held): this poll is not woken, and
            // returns at its deadline.
            Err(_) => Arc::new(Notify::new()),
        };
        Watch {
            shard,
            id: id.to_owned(),
            notify,
        }
    }

    /// Whether a poll may wait: not once the server shuts down. Asked *after* the watch's
    /// [`Watch::changed`] is registered, so a poll either sees the close or is woken by it.
    pub fn is_open(&self) -> bool {
        !self.closed.load(Ordering::SeqCst)
    }

    /// The server shuts down: every waiting poll is answered now (its connection must not
    /// hold the shutdown), and none waits from now on.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for shard in &self.shards {
            let waiting: Vec<Arc<Notify>> = shard
                .lock()
                .map(|m| m.values().filter_map(Weak::upgrade).collect())
                .unwrap_or_default();
            for n in waiting {
                n.notify_waiters();
            }
        }
    }

    /// How many logins are watched now (for tests: a watch leaves no entry behind).
    pub fn watched(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().map(|m| m.len()).unwrap_or(0))
            .sum()
    }
}

/// One poll's watch on one login; the entry leaves the map with its last watch.
pub struct Watch<'a> {
    shard: &'a Mutex<HashMap<String, Weak<Notify>>>,
    id: String,
    notify: Arc<Notify>,
}

impl Watch<'_> {
    /// A future that completes at the next [`LoginWatch::changed`] of this login, registered
    /// at once (before the caller reads the login).
    pub fn changed(&self) -> std::pin::Pin<Box<Notified<'_>>> {
        let mut n = Box::pin(self.notify.notified());
        n.as_mut().enable();
        n
    }
}

/// Waits for `changed` ([`Watch::changed`]) at most `wait`: whether the login changed.
pub async fn within(changed: std::pin::Pin<Box<Notified<'_>>>, wait: std::time::Duration) -> bool {
    tokio::time::timeout(wait, changed).await.is_ok()
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        if let Ok(mut m) = self.shard.lock() {
            // Only this watch holds it (the map's is weak, and new ones are taken under this
            // lock): nobody else waits on this login.
            if Arc::strong_count(&self.notify) == 1 {
                m.remove(&self.id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_change_wakes_the_polls_waiting_on_that_login_only() {
        let w = LoginWatch::default();
        let a1 = w.watch("a");
        let a2 = w.watch("a");
        let b = w.watch("b");
        let (fa1, fa2, fb) = (a1.changed(), a2.changed(), b.changed());
        assert_eq!(w.watched(), 2);
        w.changed("a");
        tokio::time::timeout(Duration::from_secs(1), fa1)
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(1), fa2)
            .await
            .unwrap();
        assert!(
            tokio::time::timeout(Duration::from_millis(50), fb)
                .await
                .is_err(),
            "b did not change"
        );
    }

    #[tokio::test]
    async fn a_change_between_the_watch_and_the_wait_is_not_missed() {
        let w = LoginWatch::default();
        let watch = w.watch("a");
        let changed = watch.changed();
        // The write lands while the poll reads the login, before it starts waiting.
        w.changed("a");
        tokio::time::timeout(Duration::from_secs(1), changed)
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn closing_answers_every_waiting_poll_and_no_poll_waits_after() {
        let w = LoginWatch::default();
        let (a, b) = (w.watch("a"), w.watch("b"));
        let (fa, fb) = (a.changed(), b.changed());
        assert!(w.is_open());
        w.close();
        assert!(!w.is_open());
        for f in [fa, fb] {
            tokio::time::timeout(Duration::from_secs(1), f)
                .await
                .unwrap();
        }
    }

    #[test]
    fn the_last_watch_of_a_login_takes_its_entry_with_it() {
        let w = LoginWatch::default();
        let first = w.watch("a");
        let second = w.watch("a");
        drop(first);
        assert_eq!(w.watched(), 1, "one poll still waits");
        drop(second);
        assert_eq!(w.watched(), 0);
        // A change nobody waits for does nothing.
        w.changed("a");
        assert_eq!(w.watched(), 0);
    }
}

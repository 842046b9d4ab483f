//! Push subscriptions: where a person's apps want to be told of a new backchannel request.
//! One record per identity holds its subscriptions (a few: one per installed app), keyed by
//! their endpoint; deleted with the identity.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::{Backend, Cond, Key, Kind, Record, StoreError, Typed, Write};
use crate::clock::Timestamp;

/// The most subscriptions an identity keeps: past it, the oldest is dropped.
pub const MAX_SUBSCRIPTIONS: usize = 10;

/// One subscription.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushSubscription {
    /// What it is: `webpush` (RFC 8030 with RFC 8291 and VAPID), the only kind delivered
    /// today; another kind (a native app's push token) is kept and not delivered.
    pub kind: String,
    /// Where to push: the push service's URL for this subscription (or a native token).
    pub endpoint: String,
    /// The app's public key (`p256dh`, base64url), for `webpush`.
    #[serde(default)]
    pub p256dh: String,
    /// The app's authentication secret (`auth`, base64url), for `webpush`.
    #[serde(default)]
    pub auth: String,
    /// When it was registered (Unix s).
    pub created_at: i64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct List {
    subscriptions: Vec<PushSubscription>,
}

/// The push subscriptions of identities.
#[async_trait]
pub trait PushSubscriptions: Backend {
    /// Adds `s` to `sub`'s subscriptions, replacing one with the same endpoint (the oldest
    /// dropped past [`MAX_SUBSCRIPTIONS`]).
    async fn add_push_subscription(
        &self,
        sub: &str,
        s: &PushSubscription,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.change_push_subscriptions(sub, now, |list| {
            list.retain(|o| o.endpoint != s.endpoint);
            list.push(s.clone());
            let excess = list.len().saturating_sub(MAX_SUBSCRIPTIONS);
            list.drain(..excess);
            true
        })
        .await
        .map(|_| ())
    }

    /// Removes `sub`'s subscription at `endpoint`; whether there was one.
    async fn remove_push_subscription(
        &self,
        sub: &str,
        endpoint: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        self.change_push_subscriptions(sub, now, |list| {
            let before = list.len();
            list.retain(|o| o.endpoint != endpoint);
            list.len() != before
        })
        .await
    }

    /// `sub`'s subscriptions, oldest first.
    async fn push_subscriptions(
        &self,
        sub: &str,
        now: Timestamp,
    ) -> Result<Vec<PushSubscription>, StoreError> {
        Ok(self
            .read::<List>(Kind::IdentityPush, sub, now)
            .await?
            .map(|l| l.value.subscriptions)
            .unwrap_or_default())
    }

    /// Applies `change` to `sub`'s list (read, change, conditional write; a few tries when
    /// another change won); whether `change` changed anything.
    async fn change_push_subscriptions<F>(
        &self,
        sub: &str,
        now: Timestamp,
        change: F,
    ) -> Result<bool, StoreError>
    where
        F: Fn(&mut Vec<PushSubscription>) -> bool + Send + Sync,
    {
        for _ in 0..3 {
            let old = self.read::<List>(Kind::IdentityPush, sub, now).await?;
            let mut list = old.as_ref().map(|o| o.value.clone()).unwrap_or_default();
            if !change(&mut list.subscriptions) {
                return Ok(false);
            }
            let write = match old {
                Some(o) => Write::Put(o.record.next(&list)?, Cond::Version(o.record.version)),
                None => Write::Put(
                    Record::new(Key::new(Kind::IdentityPush, sub), &list, None)?,
                    Cond::Absent,
                ),
            };
            match self.transact(vec![write], now).await {
                Ok(()) => return Ok(true),
                Err(StoreError::ConditionFailed) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::ConditionFailed)
    }
}

impl<B: Backend + ?Sized> PushSubscriptions for B {}

//! Backchannel authentication requests (OpenID CIBA): each is a device authorization under
//! its `auth_req_id`'s hash ([`super::DeviceGrants`] polls, settles and spends it); the person
//! asked has a list of their pending ones, written in the same transaction, which their app
//! reads.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::typed::Versioned;
use super::{Backend, Cond, Key, Kind, Outcome, Record, StoreError, Typed, Write};
use crate::clock::Timestamp;
use crate::domain::ciba::MAX_PENDING;
use crate::domain::device_grant::{self, DeviceAuthorization, DeviceGrantStatus};

/// One pending request in an identity's list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Pending {
    /// The `auth_req_id`'s hash (the request's key).
    hash: String,
    /// When the request expires (Unix s): the list forgets it then.
    expires_at: i64,
}

/// An identity's pending backchannel requests, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct PendingList {
    requests: Vec<Pending>,
}

/// A backchannel request as its person's app reads it.
#[derive(Debug, Clone)]
pub struct FoundBackchannel {
    /// The `auth_req_id`'s hash: what the app names it by.
    pub hash: String,
    /// The request.
    pub request: Versioned<DeviceAuthorization>,
}

/// Backchannel authentication requests and each identity's list of pending ones.
#[async_trait]
pub trait Backchannels: Backend {
    /// Stores a new request (its record outlives it by `device_grant::RECORD_GRACE_SECS`, so a
    /// late poll learns `expired_token`) and adds it to its person's list (expired entries
    /// dropped, the oldest past [`MAX_PENDING`]), all or nothing; a request whose hint named
    /// nobody goes to a list of its own that nothing reads, at the same cost.
    /// [`Outcome::Lost`]: the list changed meanwhile (another request for the same person);
    /// try again.
    async fn create_backchannel_request(
        &self,
        hash: &str,
        d: &DeviceAuthorization,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        let list_of = match d.backchannel.as_ref().and_then(|b| b.sub.as_ref()) {
            Some(sub) => sub.as_str().to_owned(),
            None => format!("nobody:{hash}"),
        };
        self.create_backchannel_request_listed(hash, d, &list_of, now)
            .await
    }

    /// [`Backchannels::create_backchannel_request`], the request listed under `list_of`: its
    /// person's `sub`, or for a hint that named nobody a key no identity has, kept per hint
    /// (the backchannel endpoint's `hint:<hash>`), so its list grows and is rewritten as a
    /// person's would be, at the same cost. Nothing reads such a list; it expires with its
    /// requests.
    async fn create_backchannel_request_listed(
        &self,
        hash: &str,
        d: &DeviceAuthorization,
        list_of: &str,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        let exp = Some(d.expires_at.secs() + device_grant::RECORD_GRACE_SECS);
        let mut writes = vec![Write::Put(
            Record::new(Key::new(Kind::DeviceCode, hash), d, exp)?,
            Cond::Absent,
        )];
        let old = self
            .read::<PendingList>(Kind::IdentityBackchannel, list_of, now)
            .await?;
        let mut list = old.as_ref().map(|o| o.value.clone()).unwrap_or_default();
        list.requests.retain(|p| p.expires_at > now.secs());
        list.requests.push(Pending {
            hash: hash.to_owned(),
            expires_at: d.expires_at.secs(),
        });
        let excess = list.requests.len().saturating_sub(MAX_PENDING);
        list.requests.drain(..excess);
        let until = list.requests.iter().map(|p| p.expires_at).max();
        let key = Key::new(Kind::IdentityBackchannel, list_of);
        writes.push(match old {
            Some(o) => Write::Put(
                Record {
                    expires_at: until,
                    ..o.record.next(&list)?
                },
                Cond::Version(o.record.version),
            ),
            None => Write::Put(Record::new(key, &list, until)?, Cond::Absent),
        });
        match self.transact(writes, now).await {
            Ok(()) => Ok(Outcome::Done),
            Err(StoreError::ConditionFailed) => Ok(Outcome::Lost),
            Err(e) => Err(e),
        }
    }

    /// `sub`'s pending requests, oldest first: live, undecided and asking `sub`.
    async fn pending_backchannel(
        &self,
        sub: &str,
        now: Timestamp,
    ) -> Result<Vec<FoundBackchannel>, StoreError> {
        let Some(list) = self
            .read::<PendingList>(Kind::IdentityBackchannel, sub, now)
            .await?
        else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for p in list.value.requests {
            if p.expires_at <= now.secs() {
                continue;
            }
            if let Some(found) = self.backchannel_request(sub, &p.hash, now).await? {
                out.push(found);
            }
        }
        Ok(out)
    }

    /// The request under `hash` if it is live, undecided and asks `sub`.
    async fn backchannel_request(
        &self,
        sub: &str,
        hash: &str,
        now: Timestamp,
    ) -> Result<Option<FoundBackchannel>, StoreError> {
        let Some(d) = self
            .read::<DeviceAuthorization>(Kind::DeviceCode, hash, now)
            .await?
        else {
            return Ok(None);
        };
        let v = &d.value;
        let asks = v
            .backchannel
            .as_ref()
            .is_some_and(|b| b.sub.as_ref().is_some_and(|s| s.as_str() == sub));
        Ok(
            (asks && !v.expired(now) && v.status == DeviceGrantStatus::Pending).then(|| {
                FoundBackchannel {
                    hash: hash.to_owned(),
                    request: d,
                }
            }),
        )
    }
}

impl<B: Backend + ?Sized> Backchannels for B {}

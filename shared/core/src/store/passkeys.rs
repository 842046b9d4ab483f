//! Passkeys (issue 26): each credential under its credential id (the login page's "Sign in
//! with a passkey" finds it by that id), the identity's list of them (`sub` -> credential ids),
//! and the server-issued WebAuthn challenges, each spent once by one conditional delete.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::flows::jti_write;
use super::identities::{creation_writes, why_not_created};
use super::typed::Versioned;
use super::{
    Backend, Cond, Key, Kind, NewIdentityError, Outcome, Record, StoreError, Typed, Write,
};
use crate::clock::Timestamp;
use crate::domain::identity::Identity;
use crate::domain::passkey::{Passkey, MAX_PASSKEYS};

/// An identity's passkeys, by credential id, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct PasskeyList {
    credentials: Vec<String>,
}

/// What adding a passkey came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewPasskey {
    /// The passkey was stored and listed under its identity.
    Added,
    /// A passkey with this credential id exists (the same registration sent again).
    Taken,
    /// The identity holds [`MAX_PASSKEYS`] already.
    TooMany,
    /// The identity changed meanwhile, or a `jti` was used: nothing was written.
    Conflict,
}

/// What removing a passkey came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// The passkey is gone from the store and from its identity's list.
    Removed,
    /// The identity has no passkey with this credential id.
    NotFound,
    /// It is the identity's last key (no other passkey, and its device key is retired).
    LastKey,
    /// The identity or its passkeys changed meanwhile, or a `jti` was used.
    Conflict,
}

fn list_key(sub: &str) -> Key {
    Key::new(Kind::IdentityPasskeys, sub)
}

fn identity_put(identity: &Identity, version: u64) -> Result<Write, StoreError> {
    let mut r = Record::new(Key::new(Kind::Identity, &identity.sub), identity, None)?;
    r.version = version + 1;
    Ok(Write::Put(r, Cond::Version(version)))
}

fn jti_writes(sub: &str, jtis: &[(String, i64)]) -> Result<Vec<Write>, StoreError> {
    jtis.iter()
        .map(|(jti, exp)| jti_write(sub, jti, *exp))
        .collect()
}

fn conflict_or<T>(r: Result<(), StoreError>, done: T, lost: T) -> Result<T, StoreError> {
    match r {
        Ok(()) => Ok(done),
        Err(StoreError::ConditionFailed) => Ok(lost),
        Err(e) => Err(e),
    }
}

#[async_trait]
/// Passkeys and WebAuthn challenges: single-use challenges, credentials by id and by identity.
pub trait Passkeys: Backend {
    /// Stores a server-issued WebAuthn challenge until `expires_at` (unix seconds).
    /// [`Outcome::Lost`]: a live challenge has this value (draw another).
    async fn issue_webauthn_challenge(
        &self,
        challenge: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        let r = Record::new(
            Key::new(Kind::WebauthnChallenge, challenge),
            &1,
            Some(expires_at),
        )?;
        conflict_or(
            self.put(r, Cond::Absent, now).await,
            Outcome::Done,
            Outcome::Lost,
        )
    }

    /// Spends the challenge: `true` for exactly one caller while it is live; `false` when it
    /// is unknown, expired or spent.
    async fn take_webauthn_challenge(
        &self,
        challenge: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        if challenge.is_empty() || challenge.len() > 128 {
            return Ok(false);
        }
        Ok(self
            .consume(&Key::new(Kind::WebauthnChallenge, challenge), now)
            .await?
            .is_some())
    }

    /// The passkey with this credential id (base64url), whoever holds it.
    async fn passkey(
        &self,
        credential_id: &str,
        now: Timestamp,
    ) -> Result<Option<Versioned<Passkey>>, StoreError> {
        if credential_id.is_empty() || credential_id.len() > 1400 {
            return Ok(None);
        }
        self.read(Kind::Passkey, credential_id, now).await
    }

    /// The identity's passkeys, oldest first.
    async fn passkeys_of(&self, sub: &str, now: Timestamp) -> Result<Vec<Passkey>, StoreError> {
        let Some(list) = self
            .read::<PasskeyList>(Kind::IdentityPasskeys, sub, now)
            .await?
        else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(list.value.credentials.len());
        for id in &list.value.credentials {
            if let Some(p) = self.read::<Passkey>(Kind::Passkey, id, now).await? {
                out.push(p.value);
            }
        }
        Ok(out)
    }

    /// Creates `identity` (its markers, its `jti`) with its first passkey, in one transaction.
    async fn create_identity_with_passkey(
        &self,
        identity: &Identity,
        passkey: &Passkey,
        jti: Option<(String, i64)>,
        now: Timestamp,
    ) -> Result<(), NewIdentityError> {
        let mut writes = creation_writes(identity, jti.as_ref())?;
        writes.push(Write::Put(
            Record::new(
                Key::new(Kind::Passkey, &passkey.credential_id),
                passkey,
                None,
            )?,
            Cond::Absent,
        ));
        let list = PasskeyList {
            credentials: vec![passkey.credential_id.clone()],
        };
        writes.push(Write::Put(
            Record::new(list_key(&identity.sub), &list, None)?,
            Cond::Absent,
        ));
        match self.transact(writes, now).await {
            Ok(()) => Ok(()),
            Err(StoreError::ConditionFailed) => {
                if self
                    .get(&Key::new(Kind::Passkey, &passkey.credential_id), now)
                    .await?
                    .is_some()
                {
                    return Err(NewIdentityError::Replay);
                }
                Err(why_not_created(self, identity, jti, now).await?)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Adds `passkey` to its identity, in one transaction with the identity's change
    /// `identity` (its version as read: the identity must not have changed; e.g. the device
    /// key retired by an upgrade) and the request ids `jtis` that asked for it.
    async fn add_passkey(
        &self,
        passkey: &Passkey,
        identity: (&Identity, u64),
        jtis: &[(String, i64)],
        now: Timestamp,
    ) -> Result<NewPasskey, StoreError> {
        let sub = identity.0.sub.as_str();
        let read = self
            .read::<PasskeyList>(Kind::IdentityPasskeys, sub, now)
            .await?;
        let mut list = read.as_ref().map(|v| v.value.clone()).unwrap_or_default();
        if list.credentials.contains(&passkey.credential_id) {
            return Ok(NewPasskey::Taken);
        }
        if list.credentials.len() >= MAX_PASSKEYS {
            return Ok(NewPasskey::TooMany);
        }
        list.credentials.push(passkey.credential_id.clone());
        let list_write = match &read {
            Some(v) => v.replace_with(&list)?,
            None => Write::Put(Record::new(list_key(sub), &list, None)?, Cond::Absent),
        };
        let mut writes = vec![
            Write::Put(
                Record::new(
                    Key::new(Kind::Passkey, &passkey.credential_id),
                    passkey,
                    None,
                )?,
                Cond::Absent,
            ),
            list_write,
            identity_put(identity.0, identity.1)?,
        ];
        writes.extend(jti_writes(sub, jtis)?);
        match self.transact(writes, now).await {
            Ok(()) => Ok(NewPasskey::Added),
            Err(StoreError::ConditionFailed) => {
                if self.passkey(&passkey.credential_id, now).await?.is_some() {
                    Ok(NewPasskey::Taken)
                } else {
                    Ok(NewPasskey::Conflict)
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Records a verified use of the passkey as `read`: its new counter, when and where.
    /// [`Outcome::Lost`]: it changed meanwhile (another use: the caller refuses this one, the
    /// counter would not grow twice).
    async fn passkey_used(
        &self,
        read: &Versioned<Passkey>,
        sign_count: u32,
        from: Option<String>,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        let next = Passkey {
            sign_count,
            last_used_at: Some(now),
            last_used_from: from,
            ..read.value.clone()
        };
        let w = read.replace_with(&next)?;
        conflict_or(
            self.transact(vec![w], now).await,
            Outcome::Done,
            Outcome::Lost,
        )
    }

    /// Removes the passkey `credential_id` of `identity` (as read at its version: its device
    /// key's state must not change meanwhile), spending `jtis`; never the last key.
    async fn remove_passkey(
        &self,
        identity: (&Identity, u64),
        credential_id: &str,
        jtis: &[(String, i64)],
        now: Timestamp,
    ) -> Result<Removal, StoreError> {
        let sub = identity.0.sub.as_str();
        let Some(read) = self
            .read::<PasskeyList>(Kind::IdentityPasskeys, sub, now)
            .await?
        else {
            return Ok(Removal::NotFound);
        };
        if !read.value.credentials.iter().any(|c| c == credential_id) {
            return Ok(Removal::NotFound);
        }
        let list = PasskeyList {
            credentials: read
                .value
                .credentials
                .iter()
                .filter(|c| *c != credential_id)
                .cloned()
                .collect(),
        };
        if list.credentials.is_empty() && identity.0.device_key_retired {
            return Ok(Removal::LastKey);
        }
        let mut writes = vec![
            Write::Delete(Key::new(Kind::Passkey, credential_id), Cond::Any),
            read.replace_with(&list)?,
            Write::Check(Key::new(Kind::Identity, sub), Cond::Version(identity.1)),
        ];
        writes.extend(jti_writes(sub, jtis)?);
        conflict_or(
            self.transact(writes, now).await,
            Removal::Removed,
            Removal::Conflict,
        )
    }

    /// Replaces the identity (e.g. its device key retired) if still at `version`, only while
    /// it keeps at least one passkey (its list as now, unchanged), spending `jtis`.
    /// `Ok(false)`: it has no passkey (nothing written). [`StoreError::ConditionFailed`]: the
    /// identity or its passkeys changed, or a `jti` was used.
    async fn update_identity_keeping_passkeys(
        &self,
        identity: &Identity,
        version: u64,
        jtis: &[(String, i64)],
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let Some(read) = self
            .read::<PasskeyList>(Kind::IdentityPasskeys, &identity.sub, now)
            .await?
        else {
            return Ok(false);
        };
        if read.value.credentials.is_empty() {
            return Ok(false);
        }
        let mut writes = vec![
            identity_put(identity, version)?,
            Write::Check(read.record.key.clone(), Cond::Version(read.record.version)),
        ];
        writes.extend(jti_writes(&identity.sub, jtis)?);
        self.transact(writes, now).await?;
        Ok(true)
    }

    /// Forgets every passkey of a deleted identity (best effort after the deletion: a
    /// passkey left behind names an identity that is gone, and is refused as such).
    async fn forget_passkeys(&self, sub: &str, now: Timestamp) -> Result<(), StoreError> {
        let Some(read) = self
            .read::<PasskeyList>(Kind::IdentityPasskeys, sub, now)
            .await?
        else {
            return Ok(());
        };
        for id in &read.value.credentials {
            self.delete(&Key::new(Kind::Passkey, id), Cond::Any, now)
                .await?;
        }
        self.delete(&read.record.key, Cond::Any, now).await
    }
}

impl<B: Backend + ?Sized> Passkeys for B {}

//! Device authorizations (RFC 8628): the record under the `device_code`'s hash, the user code
//! that finds it, the person's decision and the one conditional write that spends it.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::flows::{jti_write, new_grant_writes};
use super::typed::Versioned;
use super::{Backend, Cond, Key, Kind, Outcome, Record, StoreError, Typed, Write};
use crate::clock::Timestamp;
use crate::domain::device_grant::{self, DeviceAuthorization};
use crate::domain::grant::{Grant, RefreshRecord};
use crate::domain::login::{QrLogin, SsoSession};

fn outcome(r: Result<(), StoreError>) -> Result<Outcome, StoreError> {
    match r {
        Ok(()) => Ok(Outcome::Done),
        Err(StoreError::ConditionFailed) => Ok(Outcome::Lost),
        Err(e) => Err(e),
    }
}

/// The user code's record: which device code it stands for.
#[derive(Debug, Serialize, Deserialize)]
struct UserCodeRecord {
    device_code_hash: String,
}

/// A device authorization as read, with the hash it is stored under.
#[derive(Debug, Clone)]
pub struct FoundDeviceAuthorization {
    pub device_code_hash: String,
    pub authorization: Versioned<DeviceAuthorization>,
}

/// Device authorizations (RFC 8628), by device code and by user code.
#[async_trait]
pub trait DeviceGrants: Backend {
    /// Stores a new device authorization and its user code; their records outlive the code by
    /// `device_grant::RECORD_GRACE_SECS` (a late poll learns `expired_token`).
    /// [`Outcome::Lost`]: the user code (or, never in practice, the device code) is taken by a
    /// live authorization; draw another.
    async fn create_device_authorization(
        &self,
        device_code_hash: &str,
        d: &DeviceAuthorization,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        let exp = Some(d.expires_at.secs() + device_grant::RECORD_GRACE_SECS);
        let user = UserCodeRecord {
            device_code_hash: device_code_hash.to_owned(),
        };
        let writes = vec![
            Write::Put(
                Record::new(Key::new(Kind::DeviceCode, device_code_hash), d, exp)?,
                Cond::Absent,
            ),
            Write::Put(
                Record::new(Key::new(Kind::UserCode, &d.user_code), &user, exp)?,
                Cond::Absent,
            ),
        ];
        outcome(self.transact(writes, now).await)
    }

    /// The live device authorization under this device code hash.
    async fn device_authorization(
        &self,
        device_code_hash: &str,
        now: Timestamp,
    ) -> Result<Option<Versioned<DeviceAuthorization>>, StoreError> {
        self.read(Kind::DeviceCode, device_code_hash, now).await
    }

    /// The live device authorization a (normalized) user code stands for.
    async fn device_authorization_by_user_code(
        &self,
        user_code: &str,
        now: Timestamp,
    ) -> Result<Option<FoundDeviceAuthorization>, StoreError> {
        let Some(u) = self
            .read::<UserCodeRecord>(Kind::UserCode, user_code, now)
            .await?
        else {
            return Ok(None);
        };
        let hash = u.value.device_code_hash;
        Ok(self
            .device_authorization(&hash, now)
            .await?
            .filter(|d| d.value.user_code == user_code)
            .map(|authorization| FoundDeviceAuthorization {
                device_code_hash: hash,
                authorization,
            }))
    }

    /// Replaces the authorization with `next` (a poll's time, a grown interval) unless it
    /// changed since it was read.
    async fn update_device_authorization(
        &self,
        old: &Versioned<DeviceAuthorization>,
        next: &DeviceAuthorization,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        outcome(self.transact(vec![old.replace_with(next)?], now).await)
    }

    /// A person's decision on the phone for a QR login that stands for a device
    /// authorization: the login's new state, the authorization's, and the signed request's
    /// `jti`, in one transaction. [`Outcome::Lost`]: either changed meanwhile, or the `jti` was
    /// used.
    #[allow(clippy::too_many_arguments)]
    async fn record_device_decision(
        &self,
        login: (&Versioned<QrLogin>, &QrLogin),
        authorization: (&Versioned<DeviceAuthorization>, &DeviceAuthorization),
        sub: &str,
        jti: &str,
        jti_expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        let writes = vec![
            login.0.replace_with(login.1)?,
            authorization.0.replace_with(authorization.1)?,
            jti_write(sub, jti, jti_expires_at)?,
        ];
        outcome(self.transact(writes, now).await)
    }

    /// Spends the approved device code (one conditional delete at the version read, so of two
    /// polls only one gets tokens) and creates the session the tokens belong to (`sso`, with
    /// its record's expiry; no browser ever holds its cookie), the grant and its first refresh
    /// token, all or nothing. [`Outcome::Lost`]: spent (or changed) meanwhile.
    #[allow(clippy::too_many_arguments)]
    async fn redeem_device_code(
        &self,
        device_code_hash: &str,
        old: &Versioned<DeviceAuthorization>,
        sso: (&SsoSession, i64),
        grant: &Grant,
        refresh_hash: &str,
        refresh: &RefreshRecord,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        let mut writes = vec![
            Write::Delete(
                Key::new(Kind::DeviceCode, device_code_hash),
                Cond::Version(old.record.version),
            ),
            Write::Delete(Key::new(Kind::UserCode, &old.value.user_code), Cond::Any),
            Write::Put(
                Record::new(Key::new(Kind::Sso, &sso.0.sid), sso.0, Some(sso.1))?,
                Cond::Absent,
            ),
        ];
        writes.extend(new_grant_writes(grant, refresh_hash, refresh, expires_at)?);
        outcome(self.transact(writes, now).await)
    }
}

impl<B: Backend + ?Sized> DeviceGrants for B {}

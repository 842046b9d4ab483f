//! Identity storage: `name` and `service_id` are unique, enforced by marker records created in
//! the same transaction as the identity (never a check, then a write).

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Record, StoreError, Write};
use crate::clock::Timestamp;
use crate::domain::history::History;
use crate::domain::identity::{
    self, Activity, Identity, ListedSession, LoginActivity, StoredActivity,
};

/// Why an identity was not created. Nothing was written in any case.
#[derive(Debug, thiserror::Error)]
pub enum NewIdentityError {
    /// The name is held by another identity (or quarantined).
    #[error("name taken")]
    NameTaken,
    /// The drawn service_id is taken (draw again).
    #[error("service_id taken")]
    ServiceIdTaken,
    /// The request's jti was used already.
    #[error("jti already used")]
    Replay,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An identity's login history as read ([`IdentityStore::login_history`]), to add a login to
/// it without reading it again ([`IdentityStore::record_login_after`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoginHistory {
    /// The recent logins' times, the approved places and the listed sessions.
    pub history: History,
    /// The record it was read from (`None`: there was none).
    record: Option<Record>,
}

/// The login history record `r` as a decision reads it ([`History::parse`]).
pub(crate) fn history_of(r: &Record) -> Result<History, StoreError> {
    History::parse(&r.body).map_err(|e| StoreError::Corrupt(format!("{}: {e}", r.key.pk()).into()))
}

/// The write that adds `entry` to the history as `read` (parsed once, at the read).
fn login_write(
    key: &Key,
    read: &LoginHistory,
    (entry, session): (&LoginActivity, Option<&ListedSession>),
    now: Timestamp,
) -> Result<(Record, Cond), StoreError> {
    let corrupt = |e: serde_json::Error| StoreError::Corrupt(format!("{}: {e}", key.pk()).into());
    let next = read.history.with(entry, session, now).map_err(corrupt)?;
    // Kept while a session it lists may live, too (`sso_max` may be longer than the TTL).
    let listed = next.sessions_until.unwrap_or(0);
    let expires_at = Some((now.secs() + identity::RECENT_LOGINS_TTL_SECS).max(listed));
    let (version, cond) = match &read.record {
        Some(old) => (old.version + 1, Cond::Version(old.version)),
        None => (1, Cond::Absent),
    };
    let record = Record {
        key: key.clone(),
        body: next.body,
        version,
        expires_at,
    };
    Ok((record, cond))
}

/// A uniqueness marker. A deleted identity's `service_id` marker stays, naming nobody
/// (`sub` empty), so the `service_id` is never given to anyone else.
#[derive(serde::Serialize, serde::Deserialize)]
struct Marker {
    sub: String,
}

/// The writes that create `identity` with its markers and, if given, spend `(jti, expires_at)`.
pub(crate) fn creation_writes(
    identity: &Identity,
    jti: Option<&(String, i64)>,
) -> Result<Vec<Write>, StoreError> {
    let marker = Marker {
        sub: identity.sub.clone().into(),
    };
    let mut writes = vec![
        Write::Put(
            Record::new(Key::new(Kind::Identity, &identity.sub), identity, None)?,
            Cond::Absent,
        ),
        Write::Put(
            Record::new(Key::new(Kind::IdentityName, &identity.name), &marker, None)?,
            Cond::Absent,
        ),
        Write::Put(
            Record::new(
                Key::new(Kind::ServiceId, &identity.service_id),
                &marker,
                None,
            )?,
            Cond::Absent,
        ),
    ];
    if let Some((jti, exp)) = jti {
        writes.push(Write::Put(
            Record::new(Key::new(Kind::Jti, jti), &1, Some(*exp))?,
            Cond::Absent,
        ));
    }
    Ok(writes)
}

/// Which condition of [`creation_writes`] failed (the transaction wrote nothing).
pub(crate) async fn why_not_created<B: Backend + ?Sized>(
    store: &B,
    identity: &Identity,
    jti: Option<(String, i64)>,
    now: Timestamp,
) -> Result<NewIdentityError, StoreError> {
    if store
        .get(&Key::new(Kind::IdentityName, &identity.name), now)
        .await?
        .is_some()
    {
        return Ok(NewIdentityError::NameTaken);
    }
    if let Some((jti, _)) = jti {
        if store.get(&Key::new(Kind::Jti, &jti), now).await?.is_some() {
            return Ok(NewIdentityError::Replay);
        }
    }
    Ok(NewIdentityError::ServiceIdTaken)
}

/// Identities, their unique names and service ids, their recent logins and spent request ids.
#[async_trait]
pub trait IdentityStore: Send + Sync {
    /// Creates the identity with its markers and, if given, records `(jti, expires_at)` as used.
    async fn create_identity(
        &self,
        identity: &Identity,
        jti: Option<(String, i64)>,
        now: Timestamp,
    ) -> Result<(), NewIdentityError>;
    /// The live identity `sub`, with its version.
    async fn identity(
        &self,
        sub: &str,
        now: Timestamp,
    ) -> Result<Option<(Identity, u64)>, StoreError>;
    /// The live identity with this `service_id`.
    async fn identity_by_service_id(
        &self,
        service_id: &str,
        now: Timestamp,
    ) -> Result<Option<Identity>, StoreError>;
    /// The live identity with this unique name.
    async fn identity_by_name(
        &self,
        name: &str,
        now: Timestamp,
    ) -> Result<Option<Identity>, StoreError>;
    /// Replaces the identity if still at `version` (name and service_id never change).
    async fn update_identity(
        &self,
        identity: &Identity,
        version: u64,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Replaces the identity if still at `version` and spends the device-signed request ids
    /// `jtis` (`(jti, expires_at)`) that asked for it, in one transaction;
    /// [`StoreError::ConditionFailed`] when the identity changed or a `jti` was used.
    async fn update_identity_signed(
        &self,
        identity: &Identity,
        version: u64,
        jtis: &[(String, i64)],
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Every identity (operator listings).
    async fn identities(&self, now: Timestamp) -> Result<Vec<Identity>, StoreError>;
    /// Deletes the identity if still at `version`, in one transaction: its record, its recent
    /// logins and its list of sessions; its name is free again at `name_held_until` (unix
    /// seconds; `None`: at once), naming nobody meanwhile; its `service_id` stays reserved
    /// for good, naming nobody; the device-signed request ids `jtis` that asked for it are
    /// spent. [`StoreError::ConditionFailed`] when the identity changed or a `jti` was used.
    async fn delete_identity(
        &self,
        identity: &Identity,
        version: u64,
        jtis: &[(String, i64)],
        name_held_until: Option<i64>,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Whether `name` is taken: by an identity, or held after its identity was deleted.
    async fn name_taken(&self, name: &str, now: Timestamp) -> Result<bool, StoreError>;
    /// Adds a login to the identity's recent logins (newest first, bounded); an approved
    /// login's place joins the identity's places, and `session`, the SSO session it starts,
    /// its sessions ([`Activity::with`]).
    async fn record_login(
        &self,
        sub: &str,
        entry: LoginActivity,
        session: Option<&ListedSession>,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// The identity's recent logins, newest first.
    async fn recent_logins(
        &self,
        sub: &str,
        now: Timestamp,
    ) -> Result<Vec<LoginActivity>, StoreError>;
    /// The identity's recent logins and the places it approved logins from.
    async fn login_history(&self, sub: &str, now: Timestamp) -> Result<LoginHistory, StoreError>;
    /// [`IdentityStore::record_login`] on the history as `read` before: one conditional
    /// write, no read, unless the history changed meanwhile (then as `record_login`).
    async fn record_login_after(
        &self,
        sub: &str,
        entry: LoginActivity,
        session: Option<&ListedSession>,
        read: &LoginHistory,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Marks the recent login `id` of `sub` reported ("this wasn't me") and spends the
    /// device-signed request ids `jtis` that asked for it, in one transaction: the entry as
    /// marked, or `None` (nothing written) when the identity has no entry `id`. Reporting an
    /// entry again keeps its first time. [`StoreError::ConditionFailed`] when a `jti` was used.
    async fn report_login(
        &self,
        sub: &str,
        id: &str,
        jtis: &[(String, i64)],
        now: Timestamp,
    ) -> Result<Option<LoginActivity>, StoreError>;
    /// Spends device-signed request ids of a request that writes nothing else;
    /// [`StoreError::ConditionFailed`] when one was used.
    async fn spend_jtis(
        &self,
        sub: &str,
        jtis: &[(String, i64)],
        now: Timestamp,
    ) -> Result<(), StoreError>;
}

#[async_trait]
impl<B: Backend + ?Sized> IdentityStore for B {
    async fn create_identity(
        &self,
        identity: &Identity,
        jti: Option<(String, i64)>,
        now: Timestamp,
    ) -> Result<(), NewIdentityError> {
        let writes = creation_writes(identity, jti.as_ref())?;
        match self.transact(writes, now).await {
            Ok(()) => Ok(()),
            Err(StoreError::ConditionFailed) => {
                Err(why_not_created(self, identity, jti, now).await?)
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn identity(
        &self,
        sub: &str,
        now: Timestamp,
    ) -> Result<Option<(Identity, u64)>, StoreError> {
        match self.get(&Key::new(Kind::Identity, sub), now).await? {
            Some(r) => Ok(Some((r.value()?, r.version))),
            None => Ok(None),
        }
    }

    async fn identity_by_service_id(
        &self,
        service_id: &str,
        now: Timestamp,
    ) -> Result<Option<Identity>, StoreError> {
        by_marker(self, Kind::ServiceId, service_id, now).await
    }

    async fn identity_by_name(
        &self,
        name: &str,
        now: Timestamp,
    ) -> Result<Option<Identity>, StoreError> {
        by_marker(self, Kind::IdentityName, name, now).await
    }

    async fn update_identity(
        &self,
        identity: &Identity,
        version: u64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.update_identity_signed(identity, version, &[], now)
            .await
    }

    async fn update_identity_signed(
        &self,
        identity: &Identity,
        version: u64,
        jtis: &[(String, i64)],
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut r = Record::new(Key::new(Kind::Identity, &identity.sub), identity, None)?;
        r.version = version + 1;
        if jtis.is_empty() {
            return self.put(r, Cond::Version(version), now).await;
        }
        let mut writes = vec![super::Write::Put(r, Cond::Version(version))];
        for (jti, exp) in jtis {
            writes.push(super::flows::jti_write(&identity.sub, jti, *exp)?);
        }
        self.transact(writes, now).await
    }

    async fn identities(&self, now: Timestamp) -> Result<Vec<Identity>, StoreError> {
        self.list(Kind::Identity, now)
            .await?
            .iter()
            .map(Record::value)
            .collect()
    }

    async fn delete_identity(
        &self,
        identity: &Identity,
        version: u64,
        jtis: &[(String, i64)],
        name_held_until: Option<i64>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.transact(deletion(identity, version, jtis, name_held_until)?, now)
            .await
    }

    async fn name_taken(&self, name: &str, now: Timestamp) -> Result<bool, StoreError> {
        Ok(self
            .get(&Key::new(Kind::IdentityName, name), now)
            .await?
            .is_some())
    }

    async fn record_login(
        &self,
        sub: &str,
        entry: LoginActivity,
        session: Option<&ListedSession>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let key = Key::new(Kind::IdentityActivity, sub);
        for _ in 0..3 {
            let read = self.login_history(sub, now).await?;
            let (record, cond) = login_write(&key, &read, (&entry, session), now)?;
            match self.put(record, cond, now).await {
                Err(StoreError::ConditionFailed) => continue,
                done => return done,
            }
        }
        Err(StoreError::Unavailable(
            "the recent logins kept changing".into(),
        ))
    }

    async fn recent_logins(
        &self,
        sub: &str,
        now: Timestamp,
    ) -> Result<Vec<LoginActivity>, StoreError> {
        match self
            .get(&Key::new(Kind::IdentityActivity, sub), now)
            .await?
        {
            Some(r) => Ok(Activity::from(r.value::<StoredActivity>()?).logins),
            None => Ok(Vec::new()),
        }
    }

    async fn login_history(&self, sub: &str, now: Timestamp) -> Result<LoginHistory, StoreError> {
        match self
            .get(&Key::new(Kind::IdentityActivity, sub), now)
            .await?
        {
            Some(r) => Ok(LoginHistory {
                history: history_of(&r)?,
                record: Some(r),
            }),
            None => Ok(LoginHistory::default()),
        }
    }

    async fn record_login_after(
        &self,
        sub: &str,
        entry: LoginActivity,
        session: Option<&ListedSession>,
        read: &LoginHistory,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let key = Key::new(Kind::IdentityActivity, sub);
        let (record, cond) = login_write(&key, read, (&entry, session), now)?;
        match self.put(record, cond, now).await {
            Err(StoreError::ConditionFailed) => self.record_login(sub, entry, session, now).await,
            done => done,
        }
    }

    async fn report_login(
        &self,
        sub: &str,
        id: &str,
        jtis: &[(String, i64)],
        now: Timestamp,
    ) -> Result<Option<LoginActivity>, StoreError> {
        let key = Key::new(Kind::IdentityActivity, sub);
        for _ in 0..3 {
            let Some(old) = self.get(&key, now).await? else {
                return Ok(None);
            };
            let mut activity: Activity = old.value::<StoredActivity>()?.into();
            let Some((logins, entry)) = identity::with_reported(&activity.logins, id, now) else {
                return Ok(None);
            };
            activity.logins = logins;
            let mut writes = vec![Write::Put(old.next(&activity)?, Cond::Version(old.version))];
            for (jti, exp) in jtis {
                writes.push(super::flows::jti_write(sub, jti, *exp)?);
            }
            match self.transact(writes, now).await {
                Ok(()) => return Ok(Some(entry)),
                Err(StoreError::ConditionFailed) => {
                    for (jti, _) in jtis {
                        if self
                            .get(&super::flows::jti_key(sub, jti), now)
                            .await?
                            .is_some()
                        {
                            return Err(StoreError::ConditionFailed);
                        }
                    }
                    // The list changed meanwhile (a new login): read it again.
                    continue;
                }
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Unavailable(
            "the recent logins kept changing".into(),
        ))
    }

    async fn spend_jtis(
        &self,
        sub: &str,
        jtis: &[(String, i64)],
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let writes = jtis
            .iter()
            .map(|(jti, exp)| super::flows::jti_write(sub, jti, *exp))
            .collect::<Result<Vec<_>, _>>()?;
        self.transact(writes, now).await
    }
}

/// Writes of [`IdentityStore::delete_identity`].
fn deletion(
    identity: &Identity,
    version: u64,
    jtis: &[(String, i64)],
    name_held_until: Option<i64>,
) -> Result<Vec<Write>, StoreError> {
    let sub = identity.sub.as_str();
    let name_key = Key::new(Kind::IdentityName, &identity.name);
    // A held name names nobody and expires by itself; creation treats it as absent then.
    let name = match name_held_until {
        Some(until) => Write::Put(
            Record::new(name_key, &Marker { sub: String::new() }, Some(until))?,
            Cond::Any,
        ),
        None => Write::Delete(name_key, Cond::Any),
    };
    let mut writes = vec![
        Write::Delete(Key::new(Kind::Identity, sub), Cond::Version(version)),
        name,
        Write::Put(
            Record::new(
                Key::new(Kind::ServiceId, &identity.service_id),
                &Marker { sub: String::new() },
                None,
            )?,
            Cond::Any,
        ),
        Write::Delete(Key::new(Kind::IdentitySessions, sub), Cond::Any),
        Write::Delete(Key::new(Kind::IdentityActivity, sub), Cond::Any),
        Write::Delete(Key::new(Kind::IdentityBackchannel, sub), Cond::Any),
        Write::Delete(Key::new(Kind::IdentityPush, sub), Cond::Any),
    ];
    for (jti, exp) in jtis {
        writes.push(super::flows::jti_write(sub, jti, *exp)?);
    }
    Ok(writes)
}

async fn by_marker<B: Backend + ?Sized>(
    s: &B,
    kind: Kind,
    id: &str,
    now: Timestamp,
) -> Result<Option<Identity>, StoreError> {
    let Some(m) = s.get(&Key::new(kind, id), now).await? else {
        return Ok(None);
    };
    let m: Marker = m.value()?;
    if m.sub.is_empty() {
        return Ok(None);
    }
    Ok(s.identity(&m.sub, now).await?.map(|(i, _)| i))
}

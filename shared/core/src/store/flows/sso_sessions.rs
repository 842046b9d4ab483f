//! The SSO sessions repository: sessions, the identities' lists of them, and remembered
//! consents.

use async_trait::async_trait;

use crate::clock::Timestamp;
use crate::domain::login::{Consent, SsoSession};
use crate::protocol::ClientId;
use crate::store::typed::Versioned;
use crate::store::{Backend, Cond, Key, Kind, Record, StoreError, Typed};

/// At most this many SSO sessions are remembered per identity (the newest).
pub(crate) const SESSIONS_PER_IDENTITY: usize = crate::domain::identity::LISTED_SESSIONS;

/// SSO sessions, the identities' lists of them, and remembered consents.
#[async_trait]
pub trait SsoSessions: Backend {
    /// The live SSO session `sid`, with its record.
    async fn sso_session(
        &self,
        sid: &str,
        now: Timestamp,
    ) -> Result<Option<Versioned<SsoSession>>, StoreError> {
        self.read::<SsoSession>(Kind::Sso, sid, now).await
    }

    /// Records that `client_id` took part in the SSO session `sid` (who back-channel logout
    /// tells when it ends); a lost race is retried.
    async fn add_session_client(
        &self,
        sid: &str,
        client_id: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.modify(Kind::Sso, sid, now, |s: &SsoSession| {
            (!s.clients.iter().any(|c| c == client_id)).then(|| {
                let mut next = s.clone();
                next.clients.push(ClientId::new(client_id));
                next
            })
        })
        .await
    }

    /// Ends the SSO session `sid` (nothing to do if it ended already).
    async fn end_sso_session(&self, sid: &str, now: Timestamp) -> Result<(), StoreError> {
        self.delete(&Key::new(Kind::Sso, sid), Cond::Any, now).await
    }

    /// Adds `sid` to the identity's list of recent SSO sessions (the newest
    /// `SESSIONS_PER_IDENTITY`), kept until `expires_at`; a lost race is retried.
    async fn remember_identity_session(
        &self,
        sub: &str,
        sid: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        for _ in 0..3 {
            let result = match self
                .read::<Vec<String>>(Kind::IdentitySessions, sub, now)
                .await?
            {
                Some(list) => {
                    let mut next = list.value.clone();
                    next.retain(|s| s != sid);
                    next.push(sid.to_owned());
                    let skip = next.len().saturating_sub(SESSIONS_PER_IDENTITY);
                    next.drain(..skip);
                    let mut rec = list.record.next(&next)?;
                    rec.expires_at = Some(expires_at);
                    self.put(rec, Cond::Version(list.record.version), now).await
                }
                None => {
                    self.create(
                        Kind::IdentitySessions,
                        sub,
                        &vec![sid],
                        Some(expires_at),
                        now,
                    )
                    .await
                }
            };
            match result {
                Ok(()) => return Ok(()),
                Err(StoreError::ConditionFailed) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Unavailable(
            "the session list kept changing".into(),
        ))
    }

    /// The identity's recent SSO session ids: those its list holds (sessions started
    /// otherwise than by a QR login: a device code, an SSO session before issue 41) and those
    /// its recent logins list ([`Activity::sessions`]: its approved QR logins').
    ///
    /// [`Activity::sessions`]: crate::domain::identity::Activity::sessions
    async fn identity_sessions(
        &self,
        sub: &str,
        now: Timestamp,
    ) -> Result<Vec<String>, StoreError> {
        let mut sids = self
            .read::<Vec<String>>(Kind::IdentitySessions, sub, now)
            .await?
            .map(|l| l.value)
            .unwrap_or_default();
        // Read as a decision reads it (`History`): the sessions it lists are found even in
        // a record whose older entries no longer read as whole logins, as they are written.
        if let Some(r) = self
            .get(&Key::new(Kind::IdentityActivity, sub), now)
            .await?
        {
            for sid in crate::store::identities::history_of(&r)?.live_sessions(now) {
                if !sids.iter().any(|s| s == sid) {
                    sids.push(sid.to_owned());
                }
            }
        }
        Ok(sids)
    }

    /// Forgets the identity's list of sessions (after ending them).
    async fn forget_identity_sessions(&self, sub: &str, now: Timestamp) -> Result<(), StoreError> {
        self.delete(&Key::new(Kind::IdentitySessions, sub), Cond::Any, now)
            .await
    }

    /// The consent `sub` gave `client_id`, if remembered.
    async fn consent(
        &self,
        sub: &str,
        client_id: &str,
        now: Timestamp,
    ) -> Result<Option<Consent>, StoreError> {
        Ok(self
            .read::<Consent>(Kind::Consent, &Consent::key(sub, client_id), now)
            .await?
            .map(|c| c.value))
    }

    /// Remembers the consent `sub` gave `client_id`, over any earlier one (as allowing a
    /// consent page does): a delegation approved on the phone (OpenID CIBA).
    async fn remember_consent(
        &self,
        sub: &str,
        client_id: &str,
        consent: &Consent,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let r = Record::new(
            Key::new(Kind::Consent, Consent::key(sub, client_id)),
            consent,
            None,
        )?;
        self.put(r, Cond::Any, now).await
    }

    /// Forgets the consent `sub` gave `client_id` (a delegation withdrawn in the app).
    async fn forget_consent(
        &self,
        sub: &str,
        client_id: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.delete(
            &Key::new(Kind::Consent, Consent::key(sub, client_id)),
            Cond::Any,
            now,
        )
        .await
    }

    /// Forgets every consent `sub` gave (one per registered client).
    async fn forget_consents(&self, sub: &str, now: Timestamp) -> Result<(), StoreError> {
        for c in crate::store::ClientStore::clients(self, now).await? {
            self.delete(
                &Key::new(Kind::Consent, Consent::key(sub, &c.client_id)),
                Cond::Any,
                now,
            )
            .await?;
        }
        Ok(())
    }
}

impl<B: Backend + ?Sized> SsoSessions for B {}

//! The QR logins repository: the authorization page's state, the phone's decision and the
//! code a login ends with.

use async_trait::async_trait;

use super::{jti_key, jti_record, outcome, Outcome};
use crate::clock::Timestamp;
use crate::domain::login::{self, AuthCode, Consent, QrLogin, SsoSession};
use crate::protocol::CodeHash;
use crate::protocol::QrLoginId;
use crate::store::typed::Versioned;
use crate::store::{Backend, Cond, Key, Kind, Record, StoreError, Typed, Write};

/// A login ends with a code: everything [`QrLogins::issue_code`] writes in one transaction.
#[derive(Debug)]
pub struct CodeIssue<'a> {
    /// The QR login to mark completed (none when an SSO session and a remembered consent
    /// answered the authorization request at once).
    pub login: Option<&'a Versioned<QrLogin>>,
    /// A new SSO session to start, with the instant its record expires.
    pub new_sso: Option<(&'a SsoSession, i64)>,
    /// A consent to remember, for `(sub, client_id)`.
    pub consent: Option<(&'a str, &'a str, &'a Consent)>,
    /// The code's hash, what it stands for, and when it expires.
    pub code_hash: &'a CodeHash,
    pub code: &'a AuthCode,
    pub code_expires_at: i64,
}

/// The QR logins (the authorization page's state), their decisions and the codes they end
/// with.
#[async_trait]
pub trait QrLogins: Backend {
    /// Stores a new QR login; its record outlives the login by [`login::RECORD_GRACE_SECS`]
    /// so the page can still learn "expired".
    async fn create_qr_login(&self, l: &QrLogin, now: Timestamp) -> Result<(), StoreError> {
        let record_expiry = l.expires_at.secs() + login::RECORD_GRACE_SECS;
        self.create(Kind::Login, &l.id, l, Some(record_expiry), now)
            .await
    }

    /// The live QR login `id`, with its record.
    async fn qr_login(
        &self,
        id: &str,
        now: Timestamp,
    ) -> Result<Option<Versioned<QrLogin>>, StoreError> {
        // The id is the record's key; the body leaves it out (see [`QrLogin::id`]).
        let login = self.read::<QrLogin>(Kind::Login, id, now).await?;
        Ok(login.map(|mut l| {
            l.value.id = QrLoginId::new(id);
            l
        }))
    }

    /// Replaces the QR login with `next` unless it changed since it was read.
    async fn update_qr_login(
        &self,
        old: &Versioned<QrLogin>,
        next: &QrLogin,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        outcome(self.replace(old, next, now).await)
    }

    /// Records the phone's decision and spends the JWS's `jti` ([`Self::jti_used`]):
    /// [`Outcome::Lost`] when the `jti` was used or the login changed meanwhile. Two
    /// conditional writes, not a transaction: the `jti` first (a replay loses there), then the
    /// login on the version read; when the login's write does not land, the `jti` is given
    /// back (the request is bound to this login, which a replay now finds decided), so a loss
    /// reads as it did in one transaction.
    async fn record_decision(
        &self,
        old: &Versioned<QrLogin>,
        next: &QrLogin,
        sub: &str,
        jti: &str,
        jti_expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        match self
            .put(jti_record(sub, jti, jti_expires_at)?, Cond::Absent, now)
            .await
        {
            Ok(()) => {}
            Err(StoreError::ConditionFailed) => return Ok(Outcome::Lost),
            Err(e) => return Err(e),
        }
        let written = outcome(
            self.put(decided(old, next)?, Cond::Version(old.record.version), now)
                .await,
        );
        if !matches!(written, Ok(Outcome::Done)) {
            undo(self, &jti_key(sub, jti), now).await;
        }
        written
    }

    /// Whether `sub` has used the device-signed request id `jti` (a replay).
    async fn jti_used(&self, sub: &str, jti: &str, now: Timestamp) -> Result<bool, StoreError> {
        Ok(self.get(&jti_key(sub, jti), now).await?.is_some())
    }

    /// Ends a login with a code: stores the code, starts the SSO session (new random keys,
    /// unknown until the answer hands them out) and remembers the consent, then marks the QR
    /// login completed by one conditional write; or, when the session is the one the login
    /// starts ([`login::sid_of_login`]), by that session's write, conditional on its absence,
    /// and a read of the login that finds it unchanged (the login stays `Approved`: a second
    /// completion loses on the session). [`Outcome::Lost`] when the login was completed or
    /// changed by someone else meanwhile; then, as when a write fails, what was written for it
    /// is deleted again (a consent too: at worst the person is asked again).
    async fn issue_code(
        &self,
        issue: CodeIssue<'_>,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        let code_key = Key::new(Kind::Code, issue.code_hash);
        let code = Record::new(code_key.clone(), issue.code, Some(issue.code_expires_at))?;
        let sso = match issue.new_sso {
            Some((s, exp)) => Some(Record::new(Key::new(Kind::Sso, &s.sid), s, Some(exp))?),
            None => None,
        };
        let consent = match issue.consent {
            Some((sub, client_id, c)) => Some(Record::new(
                Key::new(Kind::Consent, Consent::key(sub, client_id)),
                c,
                None,
            )?),
            None => None,
        };
        let sso_key = sso.as_ref().map(|r| r.key.clone());
        let consent_key = consent.as_ref().map(|r| r.key.clone());
        let put = |r: Option<Record>, cond| async move {
            match r {
                Some(r) => self.put(r, cond, now).await,
                None => Ok(()),
            }
        };
        // The session a QR login starts (its `sid` from the login) completes the login: its
        // write, conditional on its absence, goes first and alone, so a second completion (a
        // form sent twice) writes nothing else, and the login is not written (issue 41: one
        // write less per login). A denial or a report that wrote the login since it was read
        // wins: the login is read again once the session is there (a report closes the login
        // before it ends the session, so one of the two sees the other).
        let guarded = issue.login.filter(|l| started_by(issue.new_sso, l));
        let mut sso = sso;
        if let Some(r) = sso.take_if(|_| guarded.is_some()) {
            match self.put(r, Cond::Absent, now).await {
                Ok(()) => {}
                Err(StoreError::ConditionFailed) => return Ok(Outcome::Lost),
                Err(e) => return Err(e),
            }
        }
        let reread = async {
            match guarded {
                Some(l) => still_as_read(self, l, now).await.map(Some),
                None => Ok(None),
            }
        };
        let (code_written, sso_written, consent_written, reread) = tokio::join!(
            self.put(code, Cond::Absent, now),
            put(sso, Cond::Absent),
            put(consent, Cond::Any),
            reread,
        );
        let consent_landed = consent_written.is_ok();
        // A login's session has its `sid` from the login (`SsoSession::for_login`): a racing
        // completion's session is the same record, not undone by the one that lost to it
        // (written first and alone above, it landed when this point is reached).
        let sso_landed = sso_written.is_ok();
        let undo_all = || async {
            undo(self, &code_key, now).await;
            if let Some(k) = sso_key.as_ref().filter(|_| sso_landed) {
                undo(self, k, now).await;
            }
            if let Some(k) = consent_key.as_ref().filter(|_| consent_landed) {
                if let Err(e) = self.delete(k, Cond::Any, now).await {
                    tracing::debug!(error = %e, "undoing a consent failed");
                }
            }
        };
        let mut done = code_written
            .and(sso_written)
            .and(consent_written)
            .map(|()| Outcome::Done);
        if done.is_ok() {
            done = match (reread, issue.login) {
                (Ok(Some(o)), _) => Ok(o),
                (Err(e), _) => Err(e),
                (Ok(None), Some(l)) => {
                    let Write::Put(record, cond) = completed(l, now)? else {
                        return Err(StoreError::Corrupt("a completion is a put".into()));
                    };
                    outcome(self.put(record, cond, now).await)
                }
                (Ok(None), None) => done,
            };
        }
        if !matches!(done, Ok(Outcome::Done)) {
            undo_all().await;
        }
        match done {
            Err(StoreError::ConditionFailed) => Ok(Outcome::Lost),
            other => other,
        }
    }

    /// Ends a login without a code (denied on the phone or the consent page): one conditional
    /// write.
    async fn close_qr_login(
        &self,
        old: &Versioned<QrLogin>,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        let Write::Put(record, cond) = completed(old, now)? else {
            return Err(StoreError::Corrupt("a completion is a put".into()));
        };
        outcome(self.put(record, cond, now).await)
    }
}

/// Whether `new_sso` is the session QR login `l` starts ([`login::sid_of_login`]): then its
/// write, conditional on its absence, completes the login once, and the login is not written.
fn started_by(new_sso: Option<(&SsoSession, i64)>, l: &Versioned<QrLogin>) -> bool {
    new_sso.is_some_and(|(s, _)| s.sid == login::sid_of_login(&l.value.id))
}

/// [`Outcome::Done`] when QR login `l` is as it was read (read again, consistently).
async fn still_as_read<B: Backend + ?Sized>(
    store: &B,
    l: &Versioned<QrLogin>,
    now: Timestamp,
) -> Result<Outcome, StoreError> {
    Ok(match store.qr_login(&l.value.id, now).await? {
        Some(read) if read.record.version == l.record.version => Outcome::Done,
        _ => Outcome::Lost,
    })
}

/// Deletes a record written for a spend that did not land (best effort: nobody knows its key,
/// and it expires).
async fn undo<B: Backend + ?Sized>(store: &B, key: &Key, now: Timestamp) {
    if let Err(e) = store.delete(key, Cond::Version(1), now).await {
        tracing::debug!(error = %e, key = %key.pk(), "undoing a write failed (it expires)");
    }
}

/// The record of QR login `old` decided (`next`): it lives [`login::COMPLETED_GRACE_SECS`]
/// past the login's end, not the full grace a pending login keeps (an approved login is not
/// written again when it completes: issue 41; with the full grace, approved logins would be
/// most of the embedded store, as completed ones were before the grace was cut).
fn decided(old: &Versioned<QrLogin>, next: &QrLogin) -> Result<Record, StoreError> {
    let mut record = old.record.next(next)?;
    let end = next.expires_at.secs() + login::COMPLETED_GRACE_SECS;
    record.expires_at = Some(record.expires_at.map_or(end, |e| e.min(end)));
    Ok(record)
}

/// The write that marks a QR login completed; its record then lives
/// [`login::COMPLETED_GRACE_SECS`] more (never longer than it would have).
fn completed(l: &Versioned<QrLogin>, now: Timestamp) -> Result<Write, StoreError> {
    let mut done = l.value.clone();
    done.status = login::LoginStatus::Completed;
    let mut record = l.record.next(&done)?;
    let end = now.secs() + login::COMPLETED_GRACE_SECS;
    record.expires_at = Some(record.expires_at.map_or(end, |e| e.min(end)));
    Ok(Write::Put(record, Cond::Version(l.record.version)))
}

impl<B: Backend + ?Sized> QrLogins for B {}

//! Repositories of the login and token flows, with intent-named methods. This is the only
//! place above the adapters that builds records, keys, versions and conditional writes; the
//! use cases above say what happens ("redeem this code", "record this decision") and get back
//! what came of it.
//!
//! Every single-use thing is spent by one conditional write, never read-then-delete. On the
//! login path that write stands alone, not in a transaction (DynamoDB bills a transaction's
//! writes twice): what it pays for (a code, an SSO session) is written first under new random
//! keys that nobody knows until the spend succeeds and the answer hands them out; a spend that
//! loses or fails deletes them again (best effort: unreachable anyway, they expire; a
//! remembered consent written with them is deleted too). The code exchange writes nothing
//! first: the grant and its first refresh token ARE the write that spends the code (they
//! become the code's record, [`Codes::redeem_code`]).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::typed::Versioned;
use super::{Backend, Cond, Key, Kind, Record, StoreError, Typed, Write};
use crate::clock::Timestamp;
use crate::domain::grant::{Grant, RefreshRecord};
use crate::domain::login::{self, AuthCode, Consent, QrLogin, SsoSession};
use crate::protocol::{ClientId, QrLoginId};
use crate::protocol::{CodeHash, GrantId};

/// What came of a single-use or compare-and-swap write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Written.
    Done,
    /// Someone else got there first (the code was redeemed, the login decided, the refresh
    /// token rotated); nothing was written.
    Lost,
}

fn outcome(r: Result<(), StoreError>) -> Result<Outcome, StoreError> {
    match r {
        Ok(()) => Ok(Outcome::Done),
        Err(StoreError::ConditionFailed) => Ok(Outcome::Lost),
        Err(e) => Err(e),
    }
}

/// What a redeemed code's record becomes, so a second redemption revokes the first one's
/// grant (docs/requirements.md T3). It replaces the code in its own record (one write where a
/// delete and a second record were two: the code exchange is the store's busiest write).
/// Records of kind `code_used` written before that change are still read.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CodeUsed {
    grant_id: GrantId,
}

/// What a redeemed code's record becomes since issue 27's third cut: the grant itself and its
/// refresh token, so the code exchange is ONE conditional write (it was three: the grant, the
/// refresh token, the code turned into [`CodeUsed`]). The grant's id is [`code_grant_id`] of
/// the code's hash, so the grant is found by its id in one read; its refresh tokens carry that
/// id (`domain::grant::refresh_token_locator`) and are recognised by their hashes kept here.
///
/// Two shapes. With `family` (issue 27's fourth cut, every code exchange since): `refresh` is
/// the CURRENT token's hash and `previous` the one before it (the grace period after a
/// rotation), and `family` the hash of the key every token of the grant carries, which
/// recognises any earlier token presented again (a reuse); a rotation is one conditional
/// write of this record, no token has a record of its own. Without `family` (written by the
/// third cut): `refresh` is the grant's FIRST token, kept so presenting it again after a
/// rotation is still seen as a reuse; rotations write the grant back here and their refresh
/// tokens as records of their own.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CodeGranted {
    grant: Grant,
    /// The SHA-256 of the grant's current refresh token (with `family`), or of its first one.
    refresh: String,
    /// That token's generation.
    refresh_generation: u64,
    /// The hash of the token before the current one (with `family`, after a rotation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous: Option<String>,
    /// The hash of the family key (`domain::grant::family_hash`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    family: Option<String>,
}

/// Equal hashes, compared in constant time.
fn same_hash(a: &str, b: &str) -> bool {
    aws_lc_rs::constant_time::verify_slices_are_equal(a.as_bytes(), b.as_bytes()).is_ok()
}

/// Puts `record`, a code's record keeping grant `grant` with `refresh_hash` as its current
/// refresh token, on the condition that the stored record is still at `version` (the code
/// exchange). [`Outcome::Lost`]: it changed meanwhile.
///
/// A put whose reply was lost is the caller's own: DynamoDB's SDK retries a put whose answer
/// did not arrive, and the retry of a put that landed fails its condition. So on a failed
/// condition only, the record is read once, and taken as this write if it is at the next
/// version and keeps `refresh_hash`, 256 random bits nobody else's write can hold.
async fn put_code_record<B: Backend + ?Sized>(
    s: &B,
    record: Record,
    version: u64,
    grant: &GrantId,
    refresh_hash: &str,
    now: Timestamp,
) -> Result<Outcome, StoreError> {
    let key = record.key.clone();
    match s.put(record, Cond::Version(version), now).await {
        Err(StoreError::ConditionFailed) => {
            let ours = match s.get(&key, now).await? {
                Some(rec) if rec.version == version + 1 => match CodeRecord::of(&rec)? {
                    CodeRecord::Granted(g) => {
                        g.grant.id == *grant && same_hash(&g.refresh, refresh_hash)
                    }
                    _ => false,
                },
                _ => false,
            };
            Ok(if ours { Outcome::Done } else { Outcome::Lost })
        }
        other => outcome(other),
    }
}

/// A code's record: the code while pending, the grant it became once redeemed.
enum CodeRecord {
    Pending(Box<AuthCode>),
    /// Redeemed before issue 27's third cut: the grant's id only (the grant has its record).
    Used(CodeUsed),
    Granted(Box<CodeGranted>),
}

impl CodeRecord {
    fn of(rec: &Record) -> Result<Self, StoreError> {
        // The shapes are disjoint (each of the two redeemed ones denies unknown fields, and has
        // none of a code's). The shape its first field names is tried first, as written here:
        // a failed attempt costs an error's allocations, on the busiest reads there are.
        let body = rec.body.as_str();
        if body.starts_with(r#"{"grant":"#) {
            if let Ok(granted) = serde_json::from_str::<CodeGranted>(body) {
                return Ok(Self::Granted(Box::new(granted)));
            }
        } else if !body.starts_with(r#"{"grant_id":"#) {
            if let Ok(code) = serde_json::from_str::<AuthCode>(body) {
                return Ok(Self::Pending(Box::new(code)));
            }
        }
        if let Ok(used) = rec.value::<CodeUsed>() {
            return Ok(Self::Used(used));
        }
        if let Ok(granted) = rec.value::<CodeGranted>() {
            return Ok(Self::Granted(Box::new(granted)));
        }
        rec.value().map(|c| Self::Pending(Box::new(c)))
    }
}

/// The prefix of a grant id that names the code the grant was redeemed from (never in a
/// random id: those are base64url).
const CODE_GRANT_PREFIX: &str = "c.";

/// The id of the grant the code with this hash is redeemed as: its record is the code's.
pub(crate) fn code_grant_id(code_hash: &CodeHash) -> GrantId {
    GrantId::new(format!("{CODE_GRANT_PREFIX}{}", code_hash.as_str()))
}

/// The key of the record that holds the grant `id`: the code's, for a grant redeemed from a
/// code since issue 27's third cut; the grant's own otherwise.
fn grant_key(id: &GrantId) -> Key {
    match id.as_str().strip_prefix(CODE_GRANT_PREFIX) {
        Some(code_hash) => Key::new(Kind::Code, code_hash),
        None => Key::new(Kind::Grant, id),
    }
}

/// The grant a record at [`grant_key`] holds, if it holds one.
fn grant_of(rec: &Record) -> Result<Option<Grant>, StoreError> {
    if rec.key.kind != Kind::Code {
        return rec.value().map(Some);
    }
    Ok(match CodeRecord::of(rec)? {
        CodeRecord::Granted(g) => Some(g.grant),
        _ => None,
    })
}

/// The record at [`grant_key`] with its grant replaced by `next`, living until `expires_at`
/// (a code's record keeps its refresh tokens' hashes).
fn grant_replaced(
    old: &Record,
    next: &Grant,
    expires_at: Option<i64>,
) -> Result<Record, StoreError> {
    let mut record = if old.key.kind == Kind::Code {
        let CodeRecord::Granted(g) = CodeRecord::of(old)? else {
            return Err(StoreError::Corrupt(
                format!("{} holds no grant", old.key.pk()).into(),
            ));
        };
        old.next(&CodeGranted {
            grant: next.clone(),
            ..*g
        })?
    } else {
        old.next(next)?
    };
    if expires_at.is_some() {
        record.expires_at = expires_at;
    }
    Ok(record)
}

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
        let written = outcome(self.replace(old, next, now).await);
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
    /// login completed by one conditional write. [`Outcome::Lost`] when the login was completed
    /// by someone else meanwhile; then, as when a write fails, what was written for it is
    /// deleted again (a consent too: at worst the person is asked again).
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
        let (code_written, sso_written, consent_written) = tokio::join!(
            self.put(code, Cond::Absent, now),
            put(sso, Cond::Absent),
            put(consent, Cond::Any),
        );
        let consent_landed = consent_written.is_ok();
        let undo_all = || async {
            undo(self, &code_key, now).await;
            if let Some(k) = &sso_key {
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
        if let (Ok(_), Some(l)) = (&done, issue.login) {
            let Write::Put(record, cond) = completed(l, now)? else {
                return Err(StoreError::Corrupt("a completion is a put".into()));
            };
            done = outcome(self.put(record, cond, now).await);
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

/// Deletes a record written for a spend that did not land (best effort: nobody knows its key,
/// and it expires).
async fn undo<B: Backend + ?Sized>(store: &B, key: &Key, now: Timestamp) {
    if let Err(e) = store.delete(key, Cond::Version(1), now).await {
        tracing::debug!(error = %e, key = %key.pk(), "undoing a write failed (it expires)");
    }
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

pub(crate) fn jti_key(sub: &str, jti: &str) -> Key {
    Key::new(Kind::Jti, format!("{sub}:{jti}"))
}

/// The record that spends a device-signed request id: created once, kept until the JWS would
/// have expired.
fn jti_record(sub: &str, jti: &str, expires_at: i64) -> Result<Record, StoreError> {
    Record::new(jti_key(sub, jti), &1, Some(expires_at))
}

/// [`jti_record`] as a transaction's write.
pub(crate) fn jti_write(sub: &str, jti: &str, expires_at: i64) -> Result<Write, StoreError> {
    Ok(Write::Put(jti_record(sub, jti, expires_at)?, Cond::Absent))
}

/// The writes that create a grant and its first refresh token (a code redeemed, a device code
/// redeemed), both new, both kept until `expires_at`.
pub(crate) fn new_grant_writes(
    grant: &Grant,
    refresh_hash: &str,
    refresh: &RefreshRecord,
    expires_at: i64,
) -> Result<[Write; 2], StoreError> {
    Ok([
        Write::Put(
            Record::new(Key::new(Kind::Grant, &grant.id), grant, Some(expires_at))?,
            Cond::Absent,
        ),
        Write::Put(
            Record::new(
                Key::new(Kind::Refresh, refresh_hash),
                refresh,
                Some(expires_at),
            )?,
            Cond::Absent,
        ),
    ])
}

/// A live code, read for its checks before it is redeemed.
#[derive(Debug, Clone)]
pub struct PendingCode {
    pub code: AuthCode,
    hash: CodeHash,
    version: u64,
    expires_at: Option<i64>,
}

impl PendingCode {
    /// When the code's record expires.
    pub fn expires_at(&self) -> Option<i64> {
        self.expires_at
    }

    /// The id of the grant this code is redeemed as ([`code_grant_id`]).
    pub fn grant_id(&self) -> GrantId {
        code_grant_id(&self.hash)
    }
}

/// Authorization codes and the grants they turn into.
#[async_trait]
pub trait Codes: Backend {
    /// The live code with this hash.
    async fn pending_code(
        &self,
        code_hash: &CodeHash,
        now: Timestamp,
    ) -> Result<Option<PendingCode>, StoreError> {
        let Some(rec) = self.get(&Key::new(Kind::Code, code_hash), now).await? else {
            return Ok(None);
        };
        Ok(match CodeRecord::of(&rec)? {
            CodeRecord::Pending(code) => Some(PendingCode {
                code: *code,
                hash: code_hash.clone(),
                version: rec.version,
                expires_at: rec.expires_at,
            }),
            CodeRecord::Used(_) | CodeRecord::Granted(_) => None,
        })
    }

    /// Burns a code presented wrongly (it may be known to an attacker); best effort.
    async fn burn_code(&self, c: &PendingCode, now: Timestamp) {
        let key = Key::new(Kind::Code, &c.hash);
        if let Err(e) = self.delete(&key, Cond::Version(c.version), now).await {
            tracing::debug!(error = %e, "burning a code failed (it expires anyway)");
        }
    }

    /// Redeems the code: the grant (whose id must be `PendingCode::grant_id`) and its first
    /// refresh token (`refresh_hash`, generation 1) with its family key's hash (`family`,
    /// `domain::grant::family_hash`) become the code's record, by one conditional write that
    /// spends the code and stores them (issue 27), kept until `expires_at`.
    /// [`Outcome::Lost`]: redeemed already.
    async fn redeem_code(
        &self,
        c: &PendingCode,
        grant: &Grant,
        refresh_hash: &str,
        family: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        if grant.id != c.grant_id() {
            return Err(StoreError::Corrupt(
                format!("a code is redeemed as {}, not {}", c.grant_id(), grant.id).into(),
            ));
        }
        let granted = CodeGranted {
            grant: grant.clone(),
            refresh: refresh_hash.to_owned(),
            refresh_generation: grant.generation,
            previous: None,
            family: Some(family.to_owned()),
        };
        let mut spent = Record::new(Key::new(Kind::Code, &c.hash), &granted, Some(expires_at))?;
        spent.version = c.version + 1;
        // Read on a failed condition only (a replayed code), so that a lost answer does not
        // revoke the grant just written.
        put_code_record(self, spent, c.version, &grant.id, refresh_hash, now).await
    }

    /// The grant a redeemed code became, if it was redeemed (and that grant may still live).
    async fn redeemed_as(
        &self,
        code_hash: &CodeHash,
        now: Timestamp,
    ) -> Result<Option<GrantId>, StoreError> {
        if let Some(rec) = self.get(&Key::new(Kind::Code, code_hash), now).await? {
            match CodeRecord::of(&rec)? {
                CodeRecord::Used(u) => return Ok(Some(u.grant_id)),
                CodeRecord::Granted(g) => return Ok(Some(g.grant.id)),
                CodeRecord::Pending(_) => {}
            }
        }
        Ok(self
            .read::<CodeUsed>(Kind::CodeUsed, code_hash, now)
            .await?
            .map(|u| u.value.grant_id))
    }
}

impl<B: Backend + ?Sized> Codes for B {}

/// What a grant's record says of a refresh token.
enum Kept {
    /// It keeps the token: the token's record, and the grant.
    Found(RefreshRecord, Box<Grant>),
    /// It keeps its family's tokens, and this is none of them.
    Absent,
    /// Not here: tokens of this grant (if it is one) have records of their own.
    Elsewhere,
}

/// Whether the record at [`grant_key`] of `id` keeps the refresh token with this `hash`, or
/// one of a family whose key hashes to `family` ([`Grants::find_refresh_token`]).
fn kept_token(
    rec: &Record,
    id: &GrantId,
    hash: &str,
    family: Option<&str>,
) -> Result<Kept, StoreError> {
    let CodeRecord::Granted(g) = CodeRecord::of(rec)? else {
        return Ok(Kept::Elsewhere);
    };
    let g = *g;
    if g.grant.id != *id {
        return Ok(Kept::Elsewhere);
    }
    let generation = if same_hash(&g.refresh, hash) {
        g.refresh_generation
    } else if g.family.is_none() {
        // The third cut's shape: only the first token is kept here.
        return Ok(Kept::Elsewhere);
    } else if g.previous.as_deref().is_some_and(|p| same_hash(p, hash)) {
        g.refresh_generation.saturating_sub(1)
    } else if g
        .family
        .as_deref()
        .zip(family)
        .is_some_and(|(kept, presented)| same_hash(kept, presented))
    {
        crate::domain::grant::EARLIER_GENERATION
    } else {
        // A family's tokens have no records of their own.
        return Ok(Kept::Absent);
    };
    let r = RefreshRecord {
        grant_id: g.grant.id.clone(),
        client_id: g.grant.client_id.clone(),
        generation,
    };
    Ok(Kept::Found(r, Box::new(g.grant)))
}

/// Grants (token families), their refresh tokens, and revoked stateless tokens.
#[async_trait]
pub trait Grants: Backend {
    /// The live grant `id`, with its record.
    async fn grant(
        &self,
        id: &GrantId,
        now: Timestamp,
    ) -> Result<Option<Versioned<Grant>>, StoreError> {
        let Some(record) = self.get(&grant_key(id), now).await? else {
            return Ok(None);
        };
        Ok(grant_of(&record)?.map(|value| Versioned { value, record }))
    }

    /// The refresh token with this hash (a token kept in its own record).
    async fn refresh_token(
        &self,
        hash: &str,
        now: Timestamp,
    ) -> Result<Option<RefreshRecord>, StoreError> {
        self.find_refresh_token(hash, None, None, now).await
    }

    /// The refresh token with this hash, `grant` the grant it says keeps it and `family` the
    /// hash of the family key it carries (`domain::grant::RefreshLocator`). A grant from a code
    /// exchange keeps its tokens in its record (one read): there the token counts when its
    /// hash is the current one's or the one before (generations as kept), or when its family
    /// key's hash is the grant's (`domain::grant::EARLIER_GENERATION`: an earlier token,
    /// presented again). Any other is looked up by its hash, in a record of its own.
    async fn find_refresh_token(
        &self,
        hash: &str,
        grant: Option<&GrantId>,
        family: Option<&str>,
        now: Timestamp,
    ) -> Result<Option<RefreshRecord>, StoreError> {
        Ok(self
            .refresh_token_with_grant(hash, grant, family, now)
            .await?
            .map(|(r, _)| r))
    }

    /// [`Self::find_refresh_token`], with the grant's record when it keeps the token (then
    /// read once for both, `None` otherwise).
    async fn refresh_token_with_grant(
        &self,
        hash: &str,
        grant: Option<&GrantId>,
        family: Option<&str>,
        now: Timestamp,
    ) -> Result<Option<(RefreshRecord, Option<Versioned<Grant>>)>, StoreError> {
        if let Some(id) = grant.filter(|id| grant_key(id).kind == Kind::Code) {
            if let Some(record) = self.get(&grant_key(id), now).await? {
                match kept_token(&record, id, hash, family)? {
                    Kept::Found(r, value) => {
                        let value = *value;
                        return Ok(Some((r, Some(Versioned { value, record }))));
                    }
                    Kept::Absent => return Ok(None),
                    Kept::Elsewhere => {}
                }
            }
        }
        Ok(self
            .read::<RefreshRecord>(Kind::Refresh, hash, now)
            .await?
            .map(|r| (r.value, None)))
    }

    /// Rotates the grant to `next` (its next generation) with the new refresh token
    /// (`refresh_hash`), living until `expires_at`. A grant whose record keeps its family
    /// (every code exchange's since issue 27) is ONE conditional write of that record (a
    /// transaction of one item, so that a retry after a lost reply is idempotent), which
    /// then keeps the new token as the current one and the current one as the one before; the
    /// new token must carry the grant's id and family key
    /// (`domain::grant::new_refresh_token`). Any other grant is written back with the new
    /// token in a record of its own (`refresh`), in one transaction. [`Outcome::Lost`]: the
    /// grant changed meanwhile (a concurrent rotation or a revocation).
    async fn rotate_grant(
        &self,
        old: &Versioned<Grant>,
        next: &Grant,
        refresh_hash: &str,
        refresh: &RefreshRecord,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        if old.record.key.kind == Kind::Code {
            // What the record keeps besides the grant (read without decoding the grant again).
            #[derive(Deserialize)]
            struct Keeps {
                refresh: String,
                family: Option<String>,
            }
            let keeps = old.record.value::<Keeps>()?;
            if keeps.family.is_some() {
                let mut record = old.record.next(&CodeGranted {
                    grant: next.clone(),
                    refresh: refresh_hash.to_owned(),
                    refresh_generation: next.generation,
                    previous: Some(keeps.refresh),
                    family: keeps.family,
                })?;
                record.expires_at = Some(expires_at);
                // One write, sent as a transaction of one: DynamoDB answers the SDK's retry of
                // a committed transaction as committed (its idempotency token), so a reply
                // lost on the way cannot lose the new refresh token (a plain put's retry would
                // fail its condition). The embedded store commits either the same way.
                let write = Write::Put(record, Cond::Version(old.record.version));
                return outcome(self.transact(vec![write], now).await);
            }
        }
        let grant_record = grant_replaced(&old.record, next, Some(expires_at))?;
        let writes = vec![
            Write::Put(grant_record, Cond::Version(old.record.version)),
            Write::Put(
                Record::new(
                    Key::new(Kind::Refresh, refresh_hash),
                    refresh,
                    Some(expires_at),
                )?,
                Cond::Absent,
            ),
        ];
        outcome(self.transact(writes, now).await)
    }

    /// Revokes a grant (every token issued from it). Idempotent; a concurrent change is
    /// retried.
    async fn revoke_grant(&self, id: &GrantId, now: Timestamp) -> Result<(), StoreError> {
        for _ in 0..3 {
            let Some(old) = self.grant(id, now).await? else {
                return Ok(());
            };
            if old.value.revoked {
                return Ok(());
            }
            let revoked = Grant {
                revoked: true,
                ..old.value.clone()
            };
            let record = grant_replaced(&old.record, &revoked, None)?;
            match self
                .put(record, Cond::Version(old.record.version), now)
                .await
            {
                Err(StoreError::ConditionFailed) => continue,
                done => return done,
            }
        }
        Err(StoreError::Unavailable(
            format!("{} kept changing", grant_key(id).pk()).into(),
        ))
    }

    /// Marks a stateless token's grant revoked until `expires_at` (when the token would have
    /// expired anyway).
    async fn mark_token_revoked(
        &self,
        grant_id: &GrantId,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let marker = Record::new(Key::new(Kind::Revoked, grant_id), &1, Some(expires_at))?;
        self.put(marker, Cond::Any, now).await
    }

    /// Revokes every grant of the SSO session `sid`, offline ones included (which outlive
    /// their session), until `expires_at` (when the last of them would have expired): one
    /// marker, read by [`Self::session_grants_revoked`] (issue 24, "this wasn't me").
    async fn revoke_session_grants(
        &self,
        sid: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let marker = Record::new(
            Key::new(Kind::Revoked, format!("sid:{sid}")),
            &1,
            Some(expires_at),
        )?;
        self.put(marker, Cond::Any, now).await
    }

    /// Whether the grants of the SSO session `sid` were revoked.
    async fn session_grants_revoked(&self, sid: &str, now: Timestamp) -> Result<bool, StoreError> {
        Ok(self
            .get(&Key::new(Kind::Revoked, format!("sid:{sid}")), now)
            .await?
            .is_some())
    }

    /// Whether a stateless token's grant was revoked.
    async fn token_revoked(&self, grant_id: &GrantId, now: Timestamp) -> Result<bool, StoreError> {
        Ok(self
            .get(&Key::new(Kind::Revoked, grant_id), now)
            .await?
            .is_some())
    }
}

impl<B: Backend + ?Sized> Grants for B {}

/// At most this many SSO sessions are remembered per identity (the newest).
pub(crate) const SESSIONS_PER_IDENTITY: usize = 32;

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

    /// The identity's recent SSO session ids.
    async fn identity_sessions(
        &self,
        sub: &str,
        now: Timestamp,
    ) -> Result<Vec<String>, StoreError> {
        Ok(self
            .read::<Vec<String>>(Kind::IdentitySessions, sub, now)
            .await?
            .map(|l| l.value)
            .unwrap_or_default())
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

    /// Forgets every consent `sub` gave (one per registered client).
    async fn forget_consents(&self, sub: &str, now: Timestamp) -> Result<(), StoreError> {
        for c in super::ClientStore::clients(self, now).await? {
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

/// Rate-limit counters.
#[async_trait]
pub trait Counters: Backend {
    /// Counts one event under `name` in the window `window` (which ends at `expires_at`,
    /// Unix s) and returns the count so far.
    async fn count_event(
        &self,
        name: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        self.incr(&Key::new(Kind::Rate, name), expires_at, now)
            .await
    }
}

impl<B: Backend + ?Sized> Counters for B {}

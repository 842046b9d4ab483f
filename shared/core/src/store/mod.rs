//! Storage: a small record primitive that each adapter implements, and the capability traits
//! (one per kind of thing stored) that the domain and the handlers use.
//!
//! The design is one table of records keyed by `kind#id`, which maps one to one onto a
//! DynamoDB single-table design and onto one SQLite table. Every adapter must:
//!
//! * check expiry on every read (DynamoDB TTL deletes lag by days): an expired record is absent;
//! * make conditional writes atomic: [`Cond::Absent`] creates, [`Cond::Version`] is optimistic
//!   concurrency for state transitions;
//! * consume single-use records ([`Backend::consume`]) by one conditional delete that returns the
//!   old record: never read-then-delete;
//! * apply a [`Backend::transact`] all or nothing.
//!
//! The adapter test suite (`suite`, built for tests and the `test-support` feature) holds every adapter to these rules.

pub(crate) mod backchannel;
pub(crate) mod clients;
pub(crate) mod device_grants;
pub(crate) mod dpop;
pub mod events;
pub(crate) mod eventual;
#[cfg(any(test, feature = "test-support"))]
pub mod faulty;
pub(crate) mod flows;
pub(crate) mod identities;
pub(crate) mod key_sets;
#[cfg(any(test, feature = "test-support"))]
pub mod memory;
pub mod origins;
pub(crate) mod passkeys;
pub(crate) mod photos;
pub mod push_subscriptions;
pub(crate) mod pushed;
pub mod read_only;
pub(crate) mod registration;
#[cfg(any(test, feature = "test-support"))]
pub mod suite;
pub mod typed;

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::clock::Timestamp;

pub use backchannel::Backchannels;
pub use clients::ClientStore;
pub use device_grants::DeviceGrants;
pub use dpop::DpopProofs;
pub use events::{EventQuery, EventStore, StoredEvent};
pub use eventual::Eventual;
pub use flows::{Codes, Counters, Grants, Outcome, QrLogins, SsoSessions};
pub use identities::{IdentityStore, LoginHistory, NewIdentityError};
pub use key_sets::KeySets;
pub use passkeys::{NewPasskey, Passkeys, Removal};
pub use photos::PhotoStore;
pub use push_subscriptions::PushSubscriptions;
pub use pushed::PushedRequests;
pub use registration::InitialAccessTokens;
pub use typed::Typed;

/// What a record is; the prefix of its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A registered client.
    Client,
    /// An identity.
    Identity,
    /// Uniqueness marker: `name` -> `sub`.
    IdentityName,
    /// Uniqueness marker: `service_id` -> `sub`.
    ServiceId,
    /// A login session (the QR page's state).
    Login,
    /// A JWS `jti` the service has accepted (replay protection).
    Jti,
    /// An SSO session.
    Sso,
    /// A remembered consent: `sub:client_id`.
    Consent,
    /// An authorization code, keyed by its hash.
    Code,
    /// A rate-limit counter.
    Rate,
    /// A grant: the family of tokens issued from one code or client-credentials request.
    Grant,
    /// A refresh token, keyed by its hash.
    Refresh,
    /// A redeemed code's hash -> its grant (to revoke on a second redemption).
    CodeUsed,
    /// A revoked stateless token (client credentials), until it would have expired.
    Revoked,
    /// A signing key held in the table (KMS and KMS-envelope modes).
    SigningKey,
    /// An identity's recent SSO sessions (`sub` -> sids), to end them when it is disabled.
    IdentitySessions,
    /// An identity's recent logins (`sub` -> the last few decisions), for its app.
    IdentityActivity,
    /// An initial access token for dynamic client registration (RFC 7591 §3), keyed by its
    /// hash: the uses it has left, until it expires.
    InitialAccessToken,
    /// A device authorization (RFC 8628), keyed by its `device_code`'s hash.
    DeviceCode,
    /// A user code (RFC 8628) -> its device code's hash.
    UserCode,
    /// A passkey (WebAuthn credential), keyed by its credential id (base64url).
    Passkey,
    /// An identity's passkeys: `sub` -> their credential ids.
    IdentityPasskeys,
    /// A server-issued WebAuthn challenge, until it is used once or expires.
    WebauthnChallenge,
    /// A pushed authorization request (RFC 9126), keyed by its `request_uri`'s hash, until
    /// it is used once or expires.
    PushedRequest,
    /// A client fetched from its metadata document (an `https` `client_id`), keyed by its
    /// URL, until it is fetched again or its flows are over.
    ClientDocument,
    /// A browser origin of a fetched metadata document's client (its redirect URIs'
    /// origins), until the document's record expires: CORS for clients nobody registered.
    DocumentOrigin,
    /// An identity's pending backchannel authentication requests (OpenID CIBA): `sub` ->
    /// their `auth_req_id` hashes.
    IdentityBackchannel,
    /// An identity's push subscriptions (Web Push, and other kinds behind the same port).
    IdentityPush,
    /// Used by the adapter test suite.
    Test,
}

impl Kind {
    /// The key prefix.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Client => "client",
            Kind::Identity => "identity",
            Kind::IdentityName => "name",
            Kind::ServiceId => "service_id",
            Kind::Login => "login",
            Kind::Jti => "jti",
            Kind::Sso => "sso",
            Kind::Consent => "consent",
            Kind::Code => "code",
            Kind::Rate => "rate",
            Kind::Grant => "grant",
            Kind::Refresh => "refresh",
            Kind::CodeUsed => "code_used",
            Kind::Revoked => "revoked",
            Kind::SigningKey => "signing_key",
            Kind::IdentitySessions => "identity_sessions",
            Kind::IdentityActivity => "identity_activity",
            Kind::InitialAccessToken => "initial_access_token",
            Kind::DeviceCode => "device_code",
            Kind::UserCode => "user_code",
            Kind::Passkey => "passkey",
            Kind::IdentityPasskeys => "identity_passkeys",
            Kind::WebauthnChallenge => "webauthn_challenge",
            Kind::PushedRequest => "par",
            Kind::ClientDocument => "client_document",
            Kind::DocumentOrigin => "document_origin",
            Kind::IdentityBackchannel => "identity_backchannel",
            Kind::IdentityPush => "identity_push",
            Kind::Test => "test",
        }
    }
}

/// A record's key: `kind#id`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// What the record is.
    pub kind: Kind,
    /// Its id within its kind.
    pub id: String,
}

impl Key {
    /// The key of record `id` of `kind`.
    pub fn new(kind: Kind, id: impl Into<String>) -> Self {
        Self {
            kind,
            id: id.into(),
        }
    }
    /// The storage key, `kind#id`.
    pub fn pk(&self) -> String {
        format!("{}#{}", self.kind.as_str(), self.id)
    }
}

/// One stored record: a JSON body, a version for optimistic concurrency, and an optional expiry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The record's key.
    pub key: Key,
    /// JSON text of the typed value.
    pub body: String,
    /// Starts at 1; each conditional update writes `version + 1`.
    pub version: u64,
    /// Unix seconds; at or after this instant the record reads as absent.
    pub expires_at: Option<i64>,
}

impl Record {
    /// A first version of `value` under `key`, expiring at `expires_at` (Unix seconds) when given.
    pub fn new<T: Serialize>(
        key: Key,
        value: &T,
        expires_at: Option<i64>,
    ) -> Result<Self, StoreError> {
        let body = serde_json::to_string(value).map_err(|e| StoreError::Corrupt(Box::new(e)))?;
        Ok(Self {
            key,
            body,
            version: 1,
            expires_at,
        })
    }

    /// The body, read as a `T`.
    pub fn value<T: DeserializeOwned>(&self) -> Result<T, StoreError> {
        serde_json::from_str(&self.body)
            .map_err(|e| StoreError::Corrupt(format!("{}: {e}", self.key.pk()).into()))
    }

    /// The same record with a new body and the next version.
    pub fn next<T: Serialize>(&self, value: &T) -> Result<Self, StoreError> {
        let mut r = Record::new(self.key.clone(), value, self.expires_at)?;
        r.version = self.version + 1;
        Ok(r)
    }

    /// Whether the record has not expired at `now`.
    pub fn is_live(&self, now: Timestamp) -> bool {
        self.expires_at.is_none_or(|e| now.secs() < e)
    }
}

/// The condition a write needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cond {
    /// Write regardless.
    Any,
    /// No live record has this key (an expired one counts as absent and is overwritten).
    Absent,
    /// A live record with exactly this version exists.
    Version(u64),
}

/// One write of a transaction.
#[derive(Debug, Clone)]
pub enum Write {
    /// Writes the record, if the condition holds.
    Put(Record, Cond),
    /// Deletes the record, if the condition holds.
    Delete(Key, Cond),
    /// Write nothing, but fail the transaction unless the condition holds.
    Check(Key, Cond),
}

/// The storage layer's errors.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A condition of a conditional write did not hold; nothing was written.
    #[error("condition failed")]
    ConditionFailed,
    /// The store could not be reached or failed; retry later (503).
    #[error("store unavailable: {0}")]
    Unavailable(#[source] crate::Cause),
    /// A stored value could not be decoded or encoded.
    #[error("corrupt record: {0}")]
    Corrupt(#[source] crate::Cause),
}

/// The record primitive each adapter implements.
#[async_trait]
pub trait Backend: Send + Sync {
    /// The live record under `key`, if any.
    async fn get(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError>;
    /// [`Backend::get`] as a read that may not yet see the last writes (DynamoDB's eventually
    /// consistent read, at half a strongly consistent read's price); expiry is checked as in
    /// `get`. Only for reads whose staleness costs nothing: a conditional write on the
    /// record's version or a later consistent read decides (see [`Eventual`]). Stores whose
    /// every read is consistent read with `get`.
    async fn get_eventual(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.get(key, now).await
    }
    /// Writes `record` if `cond` holds, else [`StoreError::ConditionFailed`].
    async fn put(&self, record: Record, cond: Cond, now: Timestamp) -> Result<(), StoreError>;
    /// Deletes `key` if `cond` holds (with [`Cond::Any`], deleting nothing is fine).
    async fn delete(&self, key: &Key, cond: Cond, now: Timestamp) -> Result<(), StoreError>;
    /// Atomically removes the live record under `key` and returns it; `None` when there was no
    /// live record. Of concurrent callers exactly one gets `Some`.
    async fn consume(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError>;
    /// Applies every write or none (at most 25, DynamoDB's limit of 100 is not needed).
    async fn transact(&self, writes: Vec<Write>, now: Timestamp) -> Result<(), StoreError>;
    /// Every live record of a kind (operator listings; not for request paths).
    async fn list(&self, kind: Kind, now: Timestamp) -> Result<Vec<Record>, StoreError>;
    /// Atomically adds one to the counter under `key` and returns the new count. A counter that
    /// does not exist or has expired starts again at 1 and lives until `expires_at` (Unix s).
    async fn incr(&self, key: &Key, expires_at: i64, now: Timestamp) -> Result<u64, StoreError>;
    /// Deletes records that expired (reads ignore them already); returns how many. Stores that
    /// expire records themselves (DynamoDB TTL) have nothing to do.
    async fn purge_expired(&self, _now: Timestamp) -> Result<usize, StoreError> {
        Ok(0)
    }
}

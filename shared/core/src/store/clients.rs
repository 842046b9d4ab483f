//! Client storage, over any [`Backend`].

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Outcome, Record, StoreError};
use crate::clock::Timestamp;
use crate::domain::client::Client;
use crate::domain::client_document::{is_document_id, ClientDocument};

/// Reading and writing registered clients.
#[async_trait]
pub trait ClientStore: Send + Sync {
    /// Creates the client; [`StoreError::ConditionFailed`] when the id is taken.
    async fn create_client(&self, client: &Client, now: Timestamp) -> Result<(), StoreError>;
    /// The client and its version: a registered one, else one fetched from its metadata
    /// document while the store keeps it ([`ClientStore::keep_client_document`]).
    async fn client(
        &self,
        client_id: &str,
        now: Timestamp,
    ) -> Result<Option<(Client, u64)>, StoreError>;
    /// Replaces the client if it is still at `version`.
    async fn update_client(
        &self,
        client: &Client,
        version: u64,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// `true` when a client was deleted.
    async fn delete_client(&self, client_id: &str, now: Timestamp) -> Result<bool, StoreError>;
    /// Deletes the client if it is still at `version` (read by the caller); another change
    /// since is `ConditionFailed`.
    async fn delete_client_at(
        &self,
        client_id: &str,
        version: u64,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// A client fetched from its metadata document, while its record lives.
    async fn client_document(
        &self,
        client_id: &str,
        now: Timestamp,
    ) -> Result<Option<ClientDocument>, StoreError>;
    /// Whether a kept metadata document's client allows browser `origin` (CORS).
    async fn document_origin(&self, origin: &str, now: Timestamp) -> Result<bool, StoreError>;
    /// Keeps a client fetched from its metadata document until `expires_at`, replacing what
    /// was kept, and its browser origins ([`ClientStore::document_origin`]) as long.
    async fn keep_client_document(
        &self,
        doc: &ClientDocument,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Every registered client.
    async fn clients(&self, now: Timestamp) -> Result<Vec<Client>, StoreError>;
    /// Spends a client assertion's `jti` (RFC 7523 §3: accepted once) by one conditional
    /// write that lasts until the assertion expires: [`Outcome::Lost`] when it was used.
    async fn spend_assertion(
        &self,
        client_id: &str,
        jti: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError>;
}

fn key(client_id: &str) -> Key {
    Key::new(Kind::Client, client_id)
}

#[async_trait]
impl<B: Backend + ?Sized> ClientStore for B {
    async fn create_client(&self, client: &Client, now: Timestamp) -> Result<(), StoreError> {
        self.put(
            Record::new(key(&client.client_id), client, None)?,
            Cond::Absent,
            now,
        )
        .await
    }

    async fn client(
        &self,
        client_id: &str,
        now: Timestamp,
    ) -> Result<Option<(Client, u64)>, StoreError> {
        match self.get(&key(client_id), now).await? {
            Some(r) => Ok(Some((r.value()?, r.version))),
            None if is_document_id(client_id) => {
                let doc = Key::new(Kind::ClientDocument, client_id);
                match self.get(&doc, now).await? {
                    Some(r) => Ok(Some((r.value::<ClientDocument>()?.client, r.version))),
                    None => Ok(None),
                }
            }
            None => Ok(None),
        }
    }

    async fn client_document(
        &self,
        client_id: &str,
        now: Timestamp,
    ) -> Result<Option<ClientDocument>, StoreError> {
        match self
            .get(&Key::new(Kind::ClientDocument, client_id), now)
            .await?
        {
            Some(r) => Ok(Some(r.value()?)),
            None => Ok(None),
        }
    }

    async fn keep_client_document(
        &self,
        doc: &ClientDocument,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let key = Key::new(Kind::ClientDocument, doc.client.client_id.as_str());
        self.put(Record::new(key, doc, Some(expires_at))?, Cond::Any, now)
            .await?;
        for o in doc.client.allowed_origins().iter().take(8) {
            let key = Key::new(Kind::DocumentOrigin, o.as_str());
            self.put(Record::new(key, &true, Some(expires_at))?, Cond::Any, now)
                .await?;
        }
        Ok(())
    }

    async fn document_origin(&self, origin: &str, now: Timestamp) -> Result<bool, StoreError> {
        if origin.len() > 512 {
            return Ok(false);
        }
        Ok(self
            .get(&Key::new(Kind::DocumentOrigin, origin), now)
            .await?
            .is_some())
    }

    async fn update_client(
        &self,
        client: &Client,
        version: u64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut r = Record::new(key(&client.client_id), client, None)?;
        r.version = version + 1;
        self.put(r, Cond::Version(version), now).await
    }

    async fn delete_client(&self, client_id: &str, now: Timestamp) -> Result<bool, StoreError> {
        match self.get(&key(client_id), now).await? {
            Some(r) => match self.delete(&r.key, Cond::Version(r.version), now).await {
                Ok(()) => Ok(true),
                Err(StoreError::ConditionFailed) => Ok(false),
                Err(e) => Err(e),
            },
            None => Ok(false),
        }
    }

    async fn delete_client_at(
        &self,
        client_id: &str,
        version: u64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.delete(&key(client_id), Cond::Version(version), now)
            .await
    }

    async fn spend_assertion(
        &self,
        client_id: &str,
        jti: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        // Its own key space beside the app's jtis (`jti#client:<id>:<jti>`).
        let key = Key::new(Kind::Jti, format!("client:{client_id}:{jti}"));
        match self
            .put(Record::new(key, &1, Some(expires_at))?, Cond::Absent, now)
            .await
        {
            Ok(()) => Ok(Outcome::Done),
            Err(StoreError::ConditionFailed) => Ok(Outcome::Lost),
            Err(e) => Err(e),
        }
    }

    async fn clients(&self, now: Timestamp) -> Result<Vec<Client>, StoreError> {
        self.list(Kind::Client, now)
            .await?
            .iter()
            .map(Record::value)
            .collect()
    }
}

//! Hosted profile photos: bytes under a name (`{sub}/{content hash}`), in the data dir
//! (`scanid-sqlite`), an S3 bucket (`scanid-aws`) or memory (tests). A photo is written once
//! and never changes (its name is its content); it is served only while its owner's record
//! names it (`usecase::app::photo::hosted_photo`), and everything under an owner's name goes
//! when the owner is deleted ([`PhotoStore::delete_photos_of`]).

use async_trait::async_trait;

use super::StoreError;

/// Hosted profile photos, by object name (S3 on AWS, files locally).
#[async_trait]
pub trait PhotoStore: Send + Sync {
    /// Stores `bytes` under `name` (writing the same name again writes the same bytes).
    async fn put_photo(
        &self,
        name: &str,
        bytes: &[u8],
        content_type: &str,
    ) -> Result<(), StoreError>;
    /// The photo under `name`, if any.
    async fn photo(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// Removes the photo under `name` (nothing there is fine).
    async fn delete_photo(&self, name: &str) -> Result<(), StoreError>;
    /// Removes every photo of `owner` (every name under `{owner}/`), also those no record
    /// names; none is fine.
    async fn delete_photos_of(&self, owner: &str) -> Result<(), StoreError>;
}

/// Photos in memory (the crate's own tests).
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct MemoryPhotos(std::sync::Mutex<std::collections::HashMap<String, Vec<u8>>>);

#[cfg(test)]
#[async_trait]
impl PhotoStore for MemoryPhotos {
    async fn put_photo(&self, name: &str, bytes: &[u8], _: &str) -> Result<(), StoreError> {
        self.0
            .lock()
            .map_err(|_| StoreError::Unavailable("poisoned".into()))?
            .insert(name.to_owned(), bytes.to_vec());
        Ok(())
    }
    async fn photo(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .0
            .lock()
            .map_err(|_| StoreError::Unavailable("poisoned".into()))?
            .get(name)
            .cloned())
    }
    async fn delete_photo(&self, name: &str) -> Result<(), StoreError> {
        self.0
            .lock()
            .map_err(|_| StoreError::Unavailable("poisoned".into()))?
            .remove(name);
        Ok(())
    }
    async fn delete_photos_of(&self, owner: &str) -> Result<(), StoreError> {
        let prefix = format!("{owner}/");
        self.0
            .lock()
            .map_err(|_| StoreError::Unavailable("poisoned".into()))?
            .retain(|name, _| !name.starts_with(&prefix));
        Ok(())
    }
}

//! Hosted profile photos: bytes under a name (`{sub}/{content hash}`), in the data dir
//! (`scanid-sqlite`), an S3 bucket (`scanid-aws`) or memory (tests). A photo is written once
//! and never changes (its name is its content), so it is served with an immutable cache
//! header.

use async_trait::async_trait;

use super::StoreError;

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
}

/// Photos in memory (tests).
#[cfg(any(test, feature = "test-support"))]
#[derive(Debug, Default)]
pub struct MemoryPhotos(std::sync::Mutex<std::collections::HashMap<String, Vec<u8>>>);

#[cfg(any(test, feature = "test-support"))]
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
}

//! Hosted photos of the embedded store: one file per photo under `{data dir}/photos/`, at
//! `{sub}/{content hash}`, written to a temporary file and renamed into place.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use scanid_core::store::{PhotoStore, StoreError};

/// Photos in the data dir.
#[derive(Debug, Clone)]
pub struct DirPhotos {
    root: PathBuf,
}

impl DirPhotos {
    /// Photos under `{data_dir}/photos`.
    pub fn new(data_dir: &Path) -> Self {
        Self {
            root: data_dir.join("photos"),
        }
    }

    /// The file of `name`: only `{uuid}/{hex}` names, so nothing leaves the photo directory.
    fn path(&self, name: &str) -> Result<PathBuf, StoreError> {
        let ok = name.split('/').count() == 2
            && name
                .split('/')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'));
        if !ok {
            return Err(StoreError::Corrupt(format!("photo name {name:?}").into()));
        }
        Ok(self.root.join(name))
    }
}

fn unavailable(e: std::io::Error) -> StoreError {
    StoreError::Unavailable(Box::new(e))
}

#[async_trait]
impl PhotoStore for DirPhotos {
    async fn put_photo(&self, name: &str, bytes: &[u8], _: &str) -> Result<(), StoreError> {
        let path = self.path(name)?;
        let bytes = bytes.to_vec();
        tokio::task::spawn_blocking(move || {
            let dir = path
                .parent()
                .ok_or_else(|| std::io::Error::other("no parent"))?;
            std::fs::create_dir_all(dir)?;
            let tmp = dir.join(format!(
                ".{}.tmp",
                path.file_name().and_then(|n| n.to_str()).unwrap_or("photo")
            ));
            std::fs::write(&tmp, &bytes)?;
            std::fs::rename(&tmp, &path)
        })
        .await
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?
        .map_err(unavailable)
    }

    async fn photo(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.path(name)?;
        tokio::task::spawn_blocking(move || match std::fs::read(&path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(unavailable(e)),
        })
        .await
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?
    }

    async fn delete_photo(&self, name: &str) -> Result<(), StoreError> {
        let path = self.path(name)?;
        tokio::task::spawn_blocking(move || {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(unavailable(e)),
            }
            // The owner's directory goes with its last photo.
            if let Some(dir) = path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
            Ok(())
        })
        .await
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?
    }

    async fn delete_photos_of(&self, owner: &str) -> Result<(), StoreError> {
        // The owner's directory, named as a photo's first part is (so never outside).
        let dir = self
            .path(&format!("{owner}/0"))?
            .parent()
            .map(Path::to_path_buf)
            .ok_or_else(|| StoreError::Corrupt(format!("photo owner {owner:?}").into()))?;
        tokio::task::spawn_blocking(move || match std::fs::remove_dir_all(&dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(unavailable(e)),
        })
        .await
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    scanid_core::photo_suite!(async {
        let dir = tempfile::tempdir().unwrap();
        (DirPhotos::new(dir.path()), dir)
    });

    #[tokio::test]
    async fn names_never_leave_the_photo_directory() {
        let dir = tempfile::tempdir().unwrap();
        let p = DirPhotos::new(dir.path());
        for bad in ["../x/y", "a/../../b", "/etc/passwd", "a/b/c", "a", "a/.."] {
            assert!(p.photo(bad).await.is_err(), "{bad}");
            assert!(p.put_photo(bad, b"x", "image/png").await.is_err(), "{bad}");
        }
        for bad in ["..", "", "a/b", "/", "../photos"] {
            assert!(p.delete_photos_of(bad).await.is_err(), "{bad}");
        }
        assert!(dir.path().exists());
    }
}

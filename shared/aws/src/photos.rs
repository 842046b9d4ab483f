//! Hosted photos in an S3 bucket (`SCANID_PHOTO_BUCKET`), one object per photo at
//! `{sub}/{content hash}`, stored with the content type told by its magic bytes. Only the
//! Lambda functions that handle photos link this client (`scanid_lambda::run_photos`).

use async_trait::async_trait;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{Delete, ObjectIdentifier};
use scanid_core::store::{PhotoStore, StoreError};

/// Photos in one S3 bucket.
#[derive(Debug, Clone)]
pub struct S3Photos {
    client: aws_sdk_s3::Client,
    bucket: String,
}

fn unavailable(e: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::Unavailable(Box::new(e))
}

impl S3Photos {
    /// The bucket `bucket`, with the SDK configuration every function shares (path-style
    /// addressing where an endpoint is set: the emulator).
    pub fn from_config(config: &crate::SdkConfig, bucket: &str) -> Self {
        let mut b = aws_sdk_s3::config::Builder::from(config);
        if config.endpoint_url().is_some() {
            b = b.force_path_style(true);
        }
        Self {
            client: aws_sdk_s3::Client::from_conf(b.build()),
            bucket: bucket.to_owned(),
        }
    }

    /// Creates the bucket (`scanid aws init`); one that exists already is fine.
    pub async fn create_bucket(&self) -> Result<(), StoreError> {
        match self
            .client
            .create_bucket()
            .bucket(&self.bucket)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) => {
                let exists = e.as_service_error().is_some_and(|s| {
                    s.is_bucket_already_owned_by_you() || s.is_bucket_already_exists()
                });
                if exists {
                    Ok(())
                } else {
                    Err(unavailable(aws_sdk_s3::Error::from(e)))
                }
            }
        }
    }
}

#[async_trait]
impl PhotoStore for S3Photos {
    async fn put_photo(
        &self,
        name: &str,
        bytes: &[u8],
        content_type: &str,
    ) -> Result<(), StoreError> {
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(name)
            .content_type(content_type)
            .cache_control(scanid_core::domain::photo::CACHE_CONTROL)
            .body(ByteStream::from(bytes.to_vec()))
            .send()
            .await
            .map_err(|e| unavailable(aws_sdk_s3::Error::from(e)))?;
        Ok(())
    }

    async fn photo(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(name)
            .send()
            .await
        {
            Ok(out) => {
                let data = out.body.collect().await.map_err(unavailable)?;
                Ok(Some(data.into_bytes().to_vec()))
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => Ok(None),
            Err(e) => Err(unavailable(aws_sdk_s3::Error::from(e))),
        }
    }

    async fn delete_photos_of(&self, owner: &str) -> Result<(), StoreError> {
        // Listed a page (up to 1000) at a time and deleted in one request per page; the
        // upload limit keeps an owner far below the pages allowed here.
        let prefix = format!("{owner}/");
        for _ in 0..64 {
            let page = self
                .client
                .list_objects_v2()
                .bucket(&self.bucket)
                .prefix(&prefix)
                .send()
                .await
                .map_err(|e| unavailable(aws_sdk_s3::Error::from(e)))?;
            let keys = page
                .contents()
                .iter()
                .filter_map(|o| o.key())
                .map(|k| {
                    ObjectIdentifier::builder()
                        .key(k)
                        .build()
                        .map_err(unavailable)
                })
                .collect::<Result<Vec<_>, _>>()?;
            if keys.is_empty() {
                return Ok(());
            }
            let out = self
                .client
                .delete_objects()
                .bucket(&self.bucket)
                .delete(
                    Delete::builder()
                        .set_objects(Some(keys))
                        .quiet(true)
                        .build()
                        .map_err(unavailable)?,
                )
                .send()
                .await
                .map_err(|e| unavailable(aws_sdk_s3::Error::from(e)))?;
            if !out.errors().is_empty() {
                return Err(StoreError::Unavailable(
                    format!("{} photos not deleted", out.errors().len()).into(),
                ));
            }
        }
        Err(StoreError::Unavailable(
            "an owner's photos outlasted every page deleted".into(),
        ))
    }

    async fn delete_photo(&self, name: &str) -> Result<(), StoreError> {
        self.client
            .delete_object()
            .bucket(&self.bucket)
            .key(name)
            .send()
            .await
            .map_err(|e| unavailable(aws_sdk_s3::Error::from(e)))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh bucket on the emulator (`SCANID_TEST_AWS_ENDPOINT`).
    async fn bucket() -> S3Photos {
        let config = crate::emulator(&crate::dynamo::testing::endpoint()).await;
        let p = S3Photos::from_config(
            &config,
            &format!("scanid-photos-{}", uuid::Uuid::new_v4().simple()),
        );
        p.create_bucket().await.unwrap();
        p.create_bucket().await.unwrap();
        p
    }

    scanid_core::photo_suite!(async { (bucket().await, ()) });
}

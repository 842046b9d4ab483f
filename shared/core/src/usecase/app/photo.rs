//! The profile photo the service hosts (app protocol §4): an upload signed by one of the
//! identity's keys, and the photo served to whoever asks by its name.

use crate::context::Context;
use crate::domain::identity::Identity;
use crate::domain::photo;
use crate::domain::ratelimit::Limit;
use crate::protocol::app_request::{self, AppRequest, PhotoUpload};
use crate::protocol::Subject;
use crate::service::app_error::{invalid, AppError};
use crate::service::limits;
use crate::service::photos::forget_replaced_photo;
use crate::service::signed_request::{commit, signed_by_identity};
use crate::store::IdentityStore;

/// A photo upload of identity `sub`, signed by its device key (`upload` carries the image's
/// SHA-256 as `sha256`, base64url): counted against the identity's hourly upload limit, the
/// photo is checked (JPEG, PNG or WebP by its magic bytes, at most 1 MB, bounded
/// dimensions), becomes the profile photo in the commit that spends the `jti`, and only then
/// is stored under its content hash.
///
/// Stored after the commit (issue 25.2), so a refused upload (a spent `jti`, a changed or
/// deleted identity, a bad image, the limit) never writes a byte. A crash between the commit
/// and the store leaves a record naming a photo that is not there: served as 404 like any
/// missing photo, mended by the app's next upload; never an object that no record names. An
/// object written after its identity was deleted is removed here (see `usecase::app::erase`).
pub async fn upload_photo(
    ctx: &Context,
    sub: &str,
    upload: &str,
    image: &[u8],
) -> Result<Identity, AppError> {
    let now = ctx.clock.now();
    let (ident, version, v) = signed_by_identity(ctx, sub, upload, PhotoUpload::TYP, now).await?;
    let photos = ctx.photos.as_ref().ok_or(AppError::NoPhotos)?;
    limits::within(ctx, Limit::PhotoUpload, &ident.sub, now).await?;
    let format = photo::check(image).map_err(invalid)?;
    let hash = photo::content_hash(image);
    let signed: PhotoUpload = app_request::read(&v.claims).map_err(invalid)?;
    let signed_hash = signed.sha256;
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, image);
    if signed_hash
        != base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            digest.as_ref(),
        )
    {
        return Err(invalid("sha256 does not match the image"));
    }
    let name = photo::object_name(&ident.sub, &hash);
    let mut next = ident.clone();
    next.profile_photo = Some(photo::url(&ctx.settings.public_url, &ident.sub, &hash));
    let next = commit(ctx, next, version, &[(v.jti, v.exp)], now).await?;
    let stored = photos.put_photo(&name, image, format.content_type()).await;
    // Deleted meanwhile (after its photos were removed): this one goes too. A failed read
    // here does not fail the accepted upload (the object is then left, never served, only
    // if the deletion's second pass ran before this store).
    if stored.is_ok() && matches!(ctx.store.identity(&ident.sub, now).await, Ok(None)) {
        if let Err(e) = photos.delete_photos_of(&ident.sub).await {
            tracing::error!(error = %e, "removing a deleted identity's photos");
        }
        return Err(AppError::UnknownIdentity);
    }
    // The old photo is no longer current once committed, whether or not the new one stored.
    forget_replaced_photo(ctx, &ident, &next).await;
    stored.map_err(|e| {
        tracing::error!(error = %e, "storing a photo");
        AppError::PhotosUnavailable
    })?;
    Ok(next)
}

/// A hosted photo, by owner and content hash: its bytes and their format (told again by the
/// magic bytes, never by anything stored beside them). `None` unless it is the current photo
/// of a live identity: not a replaced one, nor one of a disabled or deleted identity, nor an
/// object no record names (issue 25.2); all these are the same 404 as an unknown name.
pub async fn hosted_photo(
    ctx: &Context,
    sub: &str,
    hash: &str,
) -> Result<Option<(Vec<u8>, photo::Format)>, AppError> {
    let photos = ctx.photos.as_ref().ok_or(AppError::NoPhotos)?;
    if Subject::parse_identity(sub).is_err() || !photo::is_content_hash(hash) {
        return Ok(None);
    }
    let name = photo::object_name(sub, hash);
    let current = match ctx.store.identity(sub, ctx.clock.now()).await? {
        Some((i, _)) if !i.disabled => i
            .profile_photo
            .as_deref()
            .and_then(|u| photo::own_object(&i.sub, u)),
        _ => None,
    };
    if current.as_deref() != Some(name.as_str()) {
        return Ok(None);
    }
    let bytes = photos.photo(&name).await.map_err(|e| {
        tracing::error!(error = %e, "reading a photo");
        AppError::PhotosUnavailable
    })?;
    Ok(bytes.and_then(|b| photo::sniff(&b).map(|f| (b, f))))
}

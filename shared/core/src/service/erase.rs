//! Deleting an identity, as its app, the operator's CLI and the admin API do: everything of it
//! goes, its sessions end with back-channel logout.

use crate::audit::{Audit, Event};
use crate::context::Context;
use crate::domain::identity::Identity;
use crate::domain::photo;
use crate::service::app_error::AppError;
use crate::service::sessions::end_sessions_of;
use crate::store::{IdentityStore, Passkeys, SsoSessions};

/// Deletes an identity (its device asked, or an operator, `source`): its SSO sessions end
/// (its clients are told by back-channel logout), its remembered consents go, then one
/// transaction removes the identity and frees its name, so its tokens are dead and the
/// directory answers 404. Its `service_id` stays reserved; the audit line keeps the `sub`.
pub async fn erase(
    ctx: &Context,
    ident: &Identity,
    version: u64,
    jtis: &[(String, i64)],
    source: &str,
) -> Result<(), AppError> {
    let now = ctx.clock.now();
    let ended = end_sessions_of(ctx, &ident.sub, now).await?;
    ctx.store.forget_consents(&ident.sub, now).await?;
    // Its hosted photos go first, every object under its name (also one no record names):
    // should the store fail here, the identity is still there to delete again.
    match &ctx.photos {
        Some(photos) => photos.delete_photos_of(&ident.sub).await.map_err(|e| {
            tracing::error!(error = %e, "removing a deleted identity's photos");
            AppError::PhotosUnavailable
        })?,
        // A hosted photo, and no photo store to remove it from (an operator command without
        // the bucket): refused, rather than leave it behind.
        None if ident
            .profile_photo
            .as_deref()
            .and_then(|u| photo::own_object(&ident.sub, u))
            .is_some() =>
        {
            return Err(AppError::NoPhotos)
        }
        None => {}
    }
    let quarantine = ctx.settings.lifetimes.name_quarantine;
    let name_held_until = (quarantine > 0).then(|| now.secs() + quarantine);
    ctx.store
        .delete_identity(ident, version, jtis, name_held_until, now)
        .await
        .map_err(AppError::from_signed_write)?;
    // And once more now that the record is gone: an upload committed before the deletion
    // may have stored its object after the first pass (an upload that stores later sees
    // the record gone and removes it itself). Best effort: the identity is deleted.
    if let Some(photos) = &ctx.photos {
        if let Err(e) = photos.delete_photos_of(&ident.sub).await {
            tracing::error!(error = %e, "removing a deleted identity's photos");
        }
    }
    // Its passkeys go too (best effort: one left behind names an identity that is gone, and
    // is refused as such).
    if let Err(e) = ctx.store.forget_passkeys(ident.sub.as_str(), now).await {
        tracing::error!(error = %e, "removing a deleted identity's passkeys");
    }
    tracing::info!(sessions = ended, "identity deleted");
    Audit::new(Event::IdentityDeleted)
        .subject(&ident.sub)
        .source(source)
        .emit();
    Ok(())
}

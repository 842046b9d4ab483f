//! The public directory (spec 4.6-4.8): a live identity's public profile, by subject or by
//! service identifier, and where its avatar is. Unknown, malformed, oversized and disabled
//! all read as absent (docs/requirements.md DIR2).

use crate::domain::identity::{self, Identity, PublicProfile};
use crate::domain::photo;
use crate::protocol::Subject;
use crate::store::{IdentityStore, StoreError};
use crate::Context;

/// The live identity with subject `sub` (a UUID in its 36-character form), if any.
async fn live_by_sub(ctx: &Context, sub: &str) -> Result<Option<Identity>, StoreError> {
    let Ok(sub) = Subject::parse_identity(sub) else {
        return Ok(None);
    };
    let found = ctx.store.identity(&sub, ctx.clock.now()).await?;
    Ok(found.map(|(i, _)| i).filter(|i| !i.disabled))
}

/// `GET /v1/directory/{sub}`: the public profile of a live identity.
pub async fn profile_by_sub(ctx: &Context, sub: &str) -> Result<Option<PublicProfile>, StoreError> {
    Ok(live_by_sub(ctx, sub).await?.map(|i| i.public_profile()))
}

/// `GET /v1/directory/profile/{service_id}`: the public profile of a live identity.
pub async fn profile_by_service_id(
    ctx: &Context,
    service_id: &str,
) -> Result<Option<PublicProfile>, StoreError> {
    if !identity::is_service_id(service_id) {
        return Ok(None);
    }
    let found = ctx
        .store
        .identity_by_service_id(service_id, ctx.clock.now())
        .await?;
    Ok(found.filter(|i| !i.disabled).map(|i| i.public_profile()))
}

/// What `GET /v1/directory/{sub}/avatar` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Avatar {
    /// No live identity with that subject.
    NoIdentity,
    /// The identity has no photo, or one no longer valid under the current settings.
    NoPhoto,
    /// Its photo's URL: one of the allowed photo hosts, or a photo hosted here (DIR1,
    /// validated when it was written and again now).
    At(String),
}

/// `GET /v1/directory/{sub}/avatar`: where the live identity's photo is.
pub async fn avatar(ctx: &Context, sub: &str) -> Result<Avatar, StoreError> {
    let Some(i) = live_by_sub(ctx, sub).await? else {
        return Ok(Avatar::NoIdentity);
    };
    Ok(i.profile_photo
        .filter(|p| {
            identity::validate_photo_url(p, &ctx.settings.photo_hosts).is_ok()
                || photo::hosted_object(&ctx.settings.public_url, p).is_some()
        })
        .map_or(Avatar::NoPhoto, Avatar::At))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::IdentityStore;
    use crate::testing::{Builder, TestEnv};

    async fn set_alice(env: &TestEnv, change: impl FnOnce(&mut Identity)) {
        let (mut i, v) = env
            .store
            .identity(&env.alice.sub, env.now())
            .await
            .unwrap()
            .unwrap();
        change(&mut i);
        env.store.update_identity(&i, v, env.now()).await.unwrap();
    }

    #[tokio::test]
    async fn only_a_live_identity_has_a_public_profile() {
        let env = Builder::new().build().await;
        let (sub, sid) = (env.alice.sub.to_string(), env.alice.service_id.clone());
        let profile = Some(env.alice.public_profile());
        assert_eq!(profile_by_sub(&env.ctx, &sub).await.unwrap(), profile);
        assert_eq!(
            profile_by_service_id(&env.ctx, &sid).await.unwrap(),
            profile
        );
        // Malformed, unknown or oversized: absent, as an unknown one.
        for bad in [
            "",
            "not-a-uuid",
            &sub.to_uppercase().replace('-', ""),
            &"a".repeat(5000),
            "00000000-0000-4000-8000-000000000000",
        ] {
            assert_eq!(profile_by_sub(&env.ctx, bad).await.unwrap(), None, "{bad}");
            assert_eq!(
                profile_by_service_id(&env.ctx, bad).await.unwrap(),
                None,
                "{bad}"
            );
            assert_eq!(
                avatar(&env.ctx, bad).await.unwrap(),
                Avatar::NoIdentity,
                "{bad}"
            );
        }
        // Disabled: absent.
        set_alice(&env, |i| i.disabled = true).await;
        assert_eq!(profile_by_sub(&env.ctx, &sub).await.unwrap(), None);
        assert_eq!(profile_by_service_id(&env.ctx, &sid).await.unwrap(), None);
        assert_eq!(avatar(&env.ctx, &sub).await.unwrap(), Avatar::NoIdentity);
    }

    #[tokio::test]
    async fn an_avatar_is_a_photo_url_valid_under_the_current_settings() {
        let env = Builder::new()
            .setting(|r| r.photo_hosts = Some("photos.example".into()))
            .build()
            .await;
        let sub = env.alice.sub.to_string();
        set_alice(&env, |i| i.profile_photo = None).await;
        assert_eq!(avatar(&env.ctx, &sub).await.unwrap(), Avatar::NoPhoto);
        let allowed = "https://photos.example/a.png".to_owned();
        set_alice(&env, |i| i.profile_photo = Some(allowed.clone())).await;
        assert_eq!(avatar(&env.ctx, &sub).await.unwrap(), Avatar::At(allowed));
        // Written when its host was allowed, no longer allowed now: not redirected to.
        set_alice(&env, |i| {
            i.profile_photo = Some("https://elsewhere.example/a.png".into())
        })
        .await;
        assert_eq!(avatar(&env.ctx, &sub).await.unwrap(), Avatar::NoPhoto);
    }
}

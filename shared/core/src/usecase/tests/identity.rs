//! The identity's own data through its app (`usecase::app`): profile changes, photos, and
//! deletion.

use super::*;

#[tokio::test]
async fn a_profile_change_moves_updated_at_and_userinfo_says_so() {
    let env = env().await;
    assert_eq!(env.alice.updated_at(), T0, "set at registration");
    env.advance(90);
    let update = env.phone.sign(
        &env.ctx,
        "profile+jwt",
        json!({ "sub": env.alice.sub, "display_name": "Alice B" }),
    );
    let next = app::update_profile(&env.ctx, &env.alice.sub, &update)
        .await
        .unwrap();
    assert_eq!(next.updated_at(), T0.plus_secs(90));
    assert_eq!(next.created_at, T0);
    // What a relying party sees (OIDC Core 5.1: seconds since the epoch).
    let done = env.login(&env.shop_auth(&[])).await;
    let t = env.exchange_shop(&done.code).await.unwrap();
    let live = resource::live_access_token(&env.ctx, &t.access_token, env.now())
        .await
        .unwrap()
        .expect("live");
    let u =
        serde_json::to_value(resource::userinfo(&live, live.identity.as_ref().unwrap())).unwrap();
    assert_eq!(u["updated_at"], json!(T0.plus_secs(90).secs()));
    assert_eq!(u["name"], "Alice B");
}

#[tokio::test]
async fn deleting_an_identity_kills_its_tokens_and_session_and_frees_its_name_after_its_quarantine()
{
    use crate::store::IdentityStore;
    let env = env().await;
    let logged_in = env.login(&env.shop_auth(&[])).await;
    let issued = env.exchange_shop(&logged_in.code).await.unwrap();
    let refresh = issued.refresh_token.clone().unwrap();
    assert_eq!(
        introspect_as_shop(&env, &issued.access_token).await["active"],
        true
    );
    // The login is among the recent logins.
    let activity = env
        .phone
        .sign(&env.ctx, "activity+jwt", json!({ "sub": env.alice.sub }));
    let logins = app::recent_logins(&env.ctx, &env.alice.sub, &activity)
        .await
        .unwrap();
    assert_eq!(logins.len(), 1);
    assert_eq!(logins[0].client_name, "Shop");
    assert_eq!(logins[0].at, T0);

    // Another key deletes nothing.
    let mallory = Device::generate();
    let forged = mallory.sign(&env.ctx, "deletion+jwt", json!({ "sub": env.alice.sub }));
    let r = app::delete_identity(&env.ctx, &env.alice.sub, &forged, &env.source()).await;
    assert!(matches!(r, Err(AppError::Invalid(_))), "{r:?}");

    let deletion = env
        .phone
        .sign(&env.ctx, "deletion+jwt", json!({ "sub": env.alice.sub }));
    app::delete_identity(&env.ctx, &env.alice.sub, &deletion, &env.source())
        .await
        .unwrap();
    assert!(env
        .store
        .identity(&env.alice.sub, env.now())
        .await
        .unwrap()
        .is_none());
    assert_eq!(
        introspect_as_shop(&env, &issued.access_token).await["active"],
        false
    );
    invalid_grant(env.refresh_shop(&refresh).await);
    assert!(env
        .store
        .sso_session(&logged_in.sid, env.now())
        .await
        .unwrap()
        .is_none());
    assert!(env
        .store
        .consent(&env.alice.sub, SHOP, env.now())
        .await
        .unwrap()
        .is_none());
    // The name is held for the quarantine (30 days by default), then free.
    let quarantine = env.ctx.settings.lifetimes.name_quarantine;
    assert_eq!(quarantine, 30 * 24 * 3600);
    assert!(!app::name_available(&env.ctx, "alice", &env.source())
        .await
        .unwrap());
    env.advance(quarantine - 1);
    assert!(!app::name_available(&env.ctx, "alice", &env.source())
        .await
        .unwrap());
    env.advance(1);
    assert!(app::name_available(&env.ctx, "alice", &env.source())
        .await
        .unwrap());
    let again = app::delete_identity(&env.ctx, &env.alice.sub, &deletion, &env.source()).await;
    assert!(matches!(again, Err(AppError::UnknownIdentity)), "{again:?}");
}

#[tokio::test]
async fn a_photo_upload_signs_its_hash_and_replaces_the_old_photo() {
    use crate::domain::photo;
    use crate::store::photos::MemoryPhotos;
    use crate::store::PhotoStore;
    let mut env = env().await;
    let png = test_png;
    let sha = sha_of;
    let upload = photo_upload;
    let first = png(64);
    // No photo store: this deployment hosts no photos.
    let r = app::upload_photo(
        &env.ctx,
        &env.alice.sub,
        &upload(&env, &sha(&first)),
        &first,
    )
    .await;
    assert!(matches!(r, Err(AppError::NoPhotos)), "{r:?}");
    let photos = std::sync::Arc::new(MemoryPhotos::default());
    env.ctx.photos = Some(photos.clone());
    // The signed hash must be the image's.
    let r = app::upload_photo(&env.ctx, &env.alice.sub, &upload(&env, &sha(b"x")), &first).await;
    assert!(matches!(r, Err(AppError::Invalid(_))), "{r:?}");
    let ident = app::upload_photo(
        &env.ctx,
        &env.alice.sub,
        &upload(&env, &sha(&first)),
        &first,
    )
    .await
    .unwrap();
    let url = ident.profile_photo.clone().unwrap();
    let first_name = photo::object_name(&env.alice.sub, &photo::content_hash(&first));
    assert_eq!(
        url,
        format!("{}/v1/photos/{first_name}", env.ctx.settings.public_url)
    );
    let (bytes, format) = app::hosted_photo(&env.ctx, &env.alice.sub, &photo::content_hash(&first))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((bytes, format), (first.clone(), photo::Format::Png));
    // A new photo replaces it; the old object is gone.
    let second = png(32);
    app::upload_photo(
        &env.ctx,
        &env.alice.sub,
        &upload(&env, &sha(&second)),
        &second,
    )
    .await
    .unwrap();
    assert_eq!(photos.photo(&first_name).await.unwrap(), None);
    assert_eq!(
        app::hosted_photo(&env.ctx, &env.alice.sub, &photo::content_hash(&first))
            .await
            .unwrap(),
        None,
        "a replaced photo is not served"
    );
}

/// A complete `w` × `w` PNG.
fn test_png(w: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, w);
    e.set_color(png::ColorType::Grayscale);
    let mut wr = e.write_header().unwrap();
    wr.write_image_data(&vec![0; (w * w) as usize]).unwrap();
    wr.finish().unwrap();
    out
}

fn sha_of(b: &[u8]) -> String {
    base64::Engine::encode(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, b).as_ref(),
    )
}

/// Alice's signed upload of an image whose SHA-256 is `hash`.
fn photo_upload(env: &TestEnv, hash: &str) -> String {
    env.phone.sign(
        &env.ctx,
        "photo+jwt",
        json!({ "sub": env.alice.sub, "sha256": hash }),
    )
}

/// Photos in memory whose writes fail while `fail` is set, or that delete alice (as a
/// concurrent deletion would) before each write when `delete_first` names her.
#[derive(Default)]
struct FlakyPhotos {
    inner: crate::store::photos::MemoryPhotos,
    fail: std::sync::atomic::AtomicBool,
    delete_first:
        std::sync::Mutex<Option<(std::sync::Arc<crate::store::memory::MemoryStore>, String)>>,
}

#[async_trait::async_trait]
impl crate::store::PhotoStore for FlakyPhotos {
    async fn put_photo(
        &self,
        name: &str,
        bytes: &[u8],
        t: &str,
    ) -> Result<(), crate::store::StoreError> {
        if self.fail.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(crate::store::StoreError::Unavailable("injected".into()));
        }
        let victim = self.delete_first.lock().unwrap().clone();
        if let Some((store, sub)) = victim {
            use crate::store::IdentityStore;
            let (i, v) = store.identity(&sub, T0).await.unwrap().unwrap();
            store.delete_identity(&i, v, &[], None, T0).await.unwrap();
        }
        self.inner.put_photo(name, bytes, t).await
    }
    async fn photo(&self, name: &str) -> Result<Option<Vec<u8>>, crate::store::StoreError> {
        self.inner.photo(name).await
    }
    async fn delete_photo(&self, name: &str) -> Result<(), crate::store::StoreError> {
        self.inner.delete_photo(name).await
    }
    async fn delete_photos_of(&self, owner: &str) -> Result<(), crate::store::StoreError> {
        self.inner.delete_photos_of(owner).await
    }
}

/// Issue 25.2: nothing of a refused upload is stored; only a live identity's current photo
/// is served; a crash (a failed store) after the commit leaves a record naming a missing
/// photo, served as 404 and mended by the next upload; an upload whose identity is deleted
/// between its commit and its store removes its object; deletion removes every object.
#[tokio::test]
async fn refused_uploads_store_nothing_and_only_a_live_identitys_current_photo_is_served() {
    use crate::domain::photo;
    use crate::store::{IdentityStore, PhotoStore};
    let mut env = env().await;
    let photos = std::sync::Arc::new(FlakyPhotos::default());
    env.ctx.photos = Some(photos.clone());
    let sub = env.alice.sub.clone();
    async fn hosted(env: &TestEnv, img: &[u8]) -> Option<(Vec<u8>, photo::Format)> {
        app::hosted_photo(&env.ctx, &env.alice.sub, &photo::content_hash(img))
            .await
            .unwrap()
    }
    let stored = |img: &[u8]| {
        let name = photo::object_name(&sub, &photo::content_hash(img));
        let photos = photos.clone();
        async move { photos.photo(&name).await.unwrap().is_some() }
    };
    let first = test_png(16);
    let jws = env.phone.sign(
        &env.ctx,
        "photo+jwt",
        json!({ "sub": sub, "sha256": sha_of(&first), "jti": "photo-1" }),
    );
    app::upload_photo(&env.ctx, &sub, &jws, &first)
        .await
        .unwrap();
    assert!(hosted(&env, &first).await.is_some());
    // A replay of a spent jti signing other bytes: 409, nothing stored.
    let other = test_png(17);
    let replay = env.phone.sign(
        &env.ctx,
        "photo+jwt",
        json!({ "sub": sub, "sha256": sha_of(&other), "jti": "photo-1" }),
    );
    let r = app::upload_photo(&env.ctx, &sub, &replay, &other).await;
    assert!(matches!(r, Err(AppError::Conflict(_))), "{r:?}");
    assert!(!stored(&other).await, "a refused upload was stored");
    // An object no record names (put there by hand) is not served.
    photos
        .put_photo(
            &photo::object_name(&sub, &photo::content_hash(&other)),
            &other,
            "image/png",
        )
        .await
        .unwrap();
    assert_eq!(hosted(&env, &other).await, None);
    // Disabled: not served.
    let (mut i, v) = env.store.identity(&sub, env.now()).await.unwrap().unwrap();
    i.disabled = true;
    env.store.update_identity(&i, v, env.now()).await.unwrap();
    assert_eq!(hosted(&env, &first).await, None);
    let (mut i, v) = env.store.identity(&sub, env.now()).await.unwrap().unwrap();
    i.disabled = false;
    env.store.update_identity(&i, v, env.now()).await.unwrap();
    assert!(hosted(&env, &first).await.is_some());
    // The store fails after the commit (as a crash would leave it): the record names a photo
    // that is not there, served as 404; the next upload mends it.
    let second = test_png(18);
    photos.fail.store(true, std::sync::atomic::Ordering::SeqCst);
    let r = app::upload_photo(
        &env.ctx,
        &sub,
        &photo_upload(&env, &sha_of(&second)),
        &second,
    )
    .await;
    assert!(matches!(r, Err(AppError::PhotosUnavailable)), "{r:?}");
    assert_eq!(hosted(&env, &second).await, None);
    assert!(
        !stored(&first).await,
        "the replaced photo is removed all the same"
    );
    photos
        .fail
        .store(false, std::sync::atomic::Ordering::SeqCst);
    app::upload_photo(
        &env.ctx,
        &sub,
        &photo_upload(&env, &sha_of(&second)),
        &second,
    )
    .await
    .unwrap();
    assert!(hosted(&env, &second).await.is_some());
    // Deleted between an upload's commit and its store: the object is removed.
    let third = test_png(19);
    *photos.delete_first.lock().unwrap() = Some((env.store.clone(), sub.to_string()));
    let r = app::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&third)), &third).await;
    assert!(matches!(r, Err(AppError::UnknownIdentity)), "{r:?}");
    for img in [&first, &other, &second, &third] {
        assert!(!stored(img).await, "left behind");
    }
}

/// Issue 25.2: deleting an identity removes every object under its name, also those no
/// record names.
#[tokio::test]
async fn deleting_an_identity_removes_all_its_photos() {
    use crate::domain::photo;
    use crate::store::photos::MemoryPhotos;
    use crate::store::PhotoStore;
    let mut env = env().await;
    let photos = std::sync::Arc::new(MemoryPhotos::default());
    env.ctx.photos = Some(photos.clone());
    let sub = env.alice.sub.clone();
    let img = test_png(16);
    app::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&img)), &img)
        .await
        .unwrap();
    let stray = photo::object_name(&sub, &photo::content_hash(b"stray"));
    photos
        .put_photo(&stray, b"stray", "image/png")
        .await
        .unwrap();
    let deletion = env
        .phone
        .sign(&env.ctx, "deletion+jwt", json!({ "sub": sub }));
    app::delete_identity(&env.ctx, &sub, &deletion, &env.source())
        .await
        .unwrap();
    assert_eq!(photos.photo(&stray).await.unwrap(), None);
    let current = photo::object_name(&sub, &photo::content_hash(&img));
    assert_eq!(photos.photo(&current).await.unwrap(), None);
}

/// Issue 25.2: uploads per identity and hour.
#[tokio::test]
async fn photo_uploads_are_limited_per_identity_and_hour() {
    use crate::store::photos::MemoryPhotos;
    let mut env = env().await;
    env.ctx.photos = Some(std::sync::Arc::new(MemoryPhotos::default()));
    let sub = env.alice.sub.clone();
    let max = env.ctx.settings.limits.photo_uploads_per_hour;
    assert_eq!(max, 10);
    for i in 0..max {
        let img = test_png(10 + u32::try_from(i).unwrap());
        app::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&img)), &img)
            .await
            .unwrap();
    }
    let img = test_png(8);
    let r = app::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&img)), &img).await;
    assert!(
        matches!(r, Err(AppError::RateLimited { retry_after: 3600 })),
        "{r:?}"
    );
    env.advance(3600);
    app::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&img)), &img)
        .await
        .unwrap();
}

//! The photo store suite.

/// Generates the photo store suite's tests for an adapter (`$factory` returns `(photos,
/// guard)`).
#[macro_export]
macro_rules! photo_suite {
    ($factory:expr) => {
        mod photo_suite {
            #[allow(unused_imports)]
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn photos_round_trip() {
                let (photos, _guard) = $factory.await;
                $crate::store::suite::photos_round_trip(&photos).await;
            }
        }
    };
}

pub async fn photos_round_trip<P: crate::store::PhotoStore>(p: &P) {
    let sub = uuid::Uuid::new_v4().to_string();
    let name = format!("{sub}/{}", crate::domain::photo::content_hash(b"one"));
    assert_eq!(p.photo(&name).await.unwrap(), None);
    p.put_photo(&name, b"\x89PNG one", "image/png")
        .await
        .unwrap();
    assert_eq!(
        p.photo(&name).await.unwrap().as_deref(),
        Some(&b"\x89PNG one"[..])
    );
    // Idempotent: the same name holds the same bytes.
    p.put_photo(&name, b"\x89PNG one", "image/png")
        .await
        .unwrap();
    let other = format!("{sub}/{}", crate::domain::photo::content_hash(b"two"));
    p.put_photo(&other, &[0u8; 70_000], "image/jpeg")
        .await
        .unwrap();
    assert_eq!(
        p.photo(&other).await.unwrap().map(|b| b.len()),
        Some(70_000)
    );
    p.delete_photo(&name).await.unwrap();
    assert_eq!(p.photo(&name).await.unwrap(), None);
    p.delete_photo(&name).await.unwrap();
    assert!(
        p.photo(&other).await.unwrap().is_some(),
        "only that one went"
    );
    // Everything of one owner goes, nobody else's.
    let neighbour = uuid::Uuid::new_v4().to_string();
    let theirs = format!("{neighbour}/{}", crate::domain::photo::content_hash(b"n"));
    p.put_photo(&theirs, b"\x89PNG n", "image/png")
        .await
        .unwrap();
    p.put_photo(&name, b"\x89PNG one", "image/png")
        .await
        .unwrap();
    p.delete_photos_of(&sub).await.unwrap();
    assert_eq!(p.photo(&name).await.unwrap(), None);
    assert_eq!(p.photo(&other).await.unwrap(), None);
    assert!(
        p.photo(&theirs).await.unwrap().is_some(),
        "not a neighbour's"
    );
    p.delete_photos_of(&sub).await.unwrap();
    // A prefix of another owner's name is not that owner.
    p.delete_photos_of(&neighbour[..8]).await.unwrap();
    assert!(p.photo(&theirs).await.unwrap().is_some());
}

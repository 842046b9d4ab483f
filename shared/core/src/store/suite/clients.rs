//! Clients, their registrations and initial access tokens.

use super::*;

pub async fn client_store_round_trip<B: Backend>(s: Arc<B>) {
    let client = Client {
        client_id: ClientId::new(id("client")),
        name: "Suite <App>".into(),
        client_type: ClientType::Confidential,
        secret_hash: Some("hash".into()),
        redirect_uris: vec![RedirectUri::new("https://rp.example/cb")],
        post_logout_redirect_uris: vec![],
        grant_types: vec![GrantType::AuthorizationCode, GrantType::RefreshToken],
        created_at: T0,
        token_alg: None,
        resource_server: false,
        web_origins: vec!["+".into()],
        backchannel_logout_uri: Some("https://rp.example/bcl".into()),
        ciba_notification_endpoint: None,
        registration: None,
        refuse_on: vec![],
        require_acr: None,
        require_pkce: true,
        disabled: true,
        admin_roles: vec![crate::domain::admin::AdminRole::ViewClients],
        jwks: None,
        // A client_secret_jwt client's sealed secret round-trips (and changes with a rotation).
        secret_jwt: Some(crate::domain::client_assertion::SecretJwt {
            sealed: Some("A256GCM.bm9uY2U.c2VhbGVk".into()),
            alg: Some("HS512".into()),
        }),
        require_par: false,
        require_signed_request_object: false,
        profile: None,
        refresh_rotation: Default::default(),
        dpop_bound_access_tokens: false,
    };
    s.create_client(&client, T0).await.unwrap();
    assert!(matches!(
        s.create_client(&client, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    let (got, version) = s.client(&client.client_id, T0).await.unwrap().unwrap();
    assert_eq!(got, client);
    let mut rotated = got.clone();
    rotated.secret_hash = Some("other".into());
    if let Some(j) = rotated.secret_jwt.as_mut() {
        j.sealed = Some("A256GCM.b3RoZXI.c2VhbGVkIGFnYWlu".into());
    }
    s.update_client(&rotated, version, T0).await.unwrap();
    assert!(matches!(
        s.update_client(&rotated, version, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    assert!(s.clients(T0).await.unwrap().iter().any(|c| c == &rotated));
    assert!(s.delete_client(&client.client_id, T0).await.unwrap());
    assert!(!s.delete_client(&client.client_id, T0).await.unwrap());
    assert_eq!(s.client(&client.client_id, T0).await.unwrap(), None);
    // Deleting at a version: only the version read, once.
    s.create_client(&client, T0).await.unwrap();
    let (_, read) = s.client(&client.client_id, T0).await.unwrap().unwrap();
    s.update_client(&rotated, read, T0).await.unwrap();
    assert!(matches!(
        s.delete_client_at(&client.client_id, read, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    s.delete_client_at(&client.client_id, read + 1, T0)
        .await
        .unwrap();
    assert_eq!(s.client(&client.client_id, T0).await.unwrap(), None);
    assert!(matches!(
        s.delete_client_at(&client.client_id, read + 1, T0).await,
        Err(StoreError::ConditionFailed)
    ));
}

pub async fn initial_access_tokens_are_spent_once_per_use_and_expire<B: Backend + 'static>(
    s: Arc<B>,
) {
    use crate::domain::registration::InitialAccessToken;
    let hash = id("iat");
    let exp = T0.secs() + 3600;
    let token = InitialAccessToken {
        uses_left: 3,
        created_at: T0,
    };
    assert!(!s.spend_initial_access_token(&hash, T0).await.unwrap());
    s.create_initial_access_token(&hash, &token, exp, T0)
        .await
        .unwrap();
    assert!(matches!(
        s.create_initial_access_token(&hash, &token, exp, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    assert_eq!(
        s.initial_access_token(&hash, T0).await.unwrap(),
        Some(token.clone())
    );
    // Ten concurrent registrations, three uses: exactly three succeed.
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let s = s.clone();
        let hash = hash.clone();
        tasks.push(tokio::spawn(async move {
            s.spend_initial_access_token(&hash, T0).await.unwrap()
        }));
    }
    let mut spent = 0;
    for t in tasks {
        spent += usize::from(t.await.unwrap());
    }
    assert_eq!(spent, 3, "one success per use");
    assert_eq!(s.initial_access_token(&hash, T0).await.unwrap(), None);
    assert!(!s.spend_initial_access_token(&hash, T0).await.unwrap());
    // Expiry is checked on every read, whatever uses are left.
    let other = id("iat");
    s.create_initial_access_token(&other, &token, exp, T0)
        .await
        .unwrap();
    assert!(s.spend_initial_access_token(&other, T0).await.unwrap());
    assert_eq!(
        s.initial_access_token(&other, T0.plus_secs(3600))
            .await
            .unwrap(),
        None
    );
    assert!(!s
        .spend_initial_access_token(&other, T0.plus_secs(3600))
        .await
        .unwrap());
    assert_eq!(
        s.initial_access_token(&other, T0)
            .await
            .unwrap()
            .map(|t| t.uses_left),
        Some(2)
    );
}

pub async fn a_self_registered_client_keeps_its_registration<B: Backend>(s: Arc<B>) {
    use crate::domain::client::{AuthMethod, Registration};
    let client = Client {
        client_id: ClientId::new(id("dyn")),
        name: "Registered".into(),
        client_type: ClientType::Public,
        secret_hash: None,
        redirect_uris: vec![RedirectUri::new("http://127.0.0.1/cb")],
        post_logout_redirect_uris: vec![],
        grant_types: vec![GrantType::AuthorizationCode, GrantType::RefreshToken],
        created_at: T0,
        token_alg: None,
        resource_server: false,
        web_origins: vec!["+".into()],
        backchannel_logout_uri: None,
        ciba_notification_endpoint: None,
        registration: Some(Registration {
            access_token_hash: "rat-hash".into(),
            token_endpoint_auth_method: AuthMethod::None,
        }),
        refuse_on: vec![crate::domain::risk::Flag::LocationMismatch],
        require_acr: Some(crate::domain::authn::Acr::UserVerified),
        require_pkce: false,
        disabled: false,
        admin_roles: vec![],
        jwks: None,
        secret_jwt: None,
        require_par: false,
        require_signed_request_object: false,
        profile: None,
        refresh_rotation: Default::default(),
        dpop_bound_access_tokens: false,
    };
    s.create_client(&client, T0).await.unwrap();
    let (got, version) = s.client(&client.client_id, T0).await.unwrap().unwrap();
    assert_eq!(got, client);
    let mut rotated = got;
    if let Some(r) = rotated.registration.as_mut() {
        r.access_token_hash = "next".into();
    }
    s.update_client(&rotated, version, T0).await.unwrap();
    assert!(matches!(
        s.update_client(&rotated, version, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    let listed = s.clients(T0).await.unwrap();
    let mine = listed
        .iter()
        .find(|c| c.client_id == client.client_id)
        .unwrap();
    assert_eq!(
        mine.registration
            .as_ref()
            .map(|r| r.access_token_hash.as_str()),
        Some("next")
    );
    assert!(s.delete_client(&client.client_id, T0).await.unwrap());
}

/// A client assertion's `jti` is spent once (even by 20 at a time), per client, until the
/// assertion expires (RFC 7523 §3).
pub async fn a_client_assertion_is_accepted_once<B: Backend + 'static>(s: Arc<B>) {
    use crate::store::{ClientStore, Outcome};
    let (client, jti) = (id("bank"), id("jti"));
    let exp = T0.secs() + 60;
    let tries: Vec<_> = (0..20)
        .map(|_| {
            let (s, client, jti) = (s.clone(), client.clone(), jti.clone());
            tokio::spawn(async move { s.spend_assertion(&client, &jti, exp, T0).await.unwrap() })
        })
        .collect();
    let mut won = 0;
    for t in tries {
        if t.await.unwrap() == Outcome::Done {
            won += 1;
        }
    }
    assert_eq!(won, 1, "exactly one of 20 concurrent uses");
    assert_eq!(
        s.spend_assertion(&id("other"), &jti, exp, T0)
            .await
            .unwrap(),
        Outcome::Done,
        "another client's jti space"
    );
    assert_eq!(
        s.spend_assertion(&client, &jti, exp, T0.plus_secs(30))
            .await
            .unwrap(),
        Outcome::Lost
    );
    assert_eq!(
        s.spend_assertion(&client, &jti, exp + 60, T0.plus_secs(60))
            .await
            .unwrap(),
        Outcome::Done,
        "once expired, the record is gone"
    );
}

/// A DPoP proof's `jti` is spent once (even by 20 at a time), per key, until it could no
/// longer be accepted (RFC 9449 §11.1).
pub async fn a_dpop_proof_is_accepted_once<B: Backend + 'static>(s: Arc<B>) {
    use crate::store::{DpopProofs, Outcome};
    let (jkt, jti) = (id("jkt"), id("jti"));
    let exp = T0.secs() + 70;
    let tries: Vec<_> = (0..20)
        .map(|_| {
            let (s, jkt, jti) = (s.clone(), jkt.clone(), jti.clone());
            tokio::spawn(async move { s.spend_dpop_proof(&jkt, &jti, exp, T0).await.unwrap() })
        })
        .collect();
    let mut won = 0;
    for t in tries {
        if t.await.unwrap() == Outcome::Done {
            won += 1;
        }
    }
    assert_eq!(won, 1, "exactly one of 20 concurrent uses");
    let spend = |k: String, at: Timestamp, until: i64| {
        let (s, jti) = (s.clone(), jti.clone());
        async move { s.spend_dpop_proof(&k, &jti, until, at).await.unwrap() }
    };
    assert_eq!(
        spend(id("other"), T0, exp).await,
        Outcome::Done,
        "another key's jti space"
    );
    assert_eq!(
        spend(jkt.clone(), T0.plus_secs(60), exp).await,
        Outcome::Lost
    );
    assert_eq!(
        spend(jkt.clone(), T0.plus_secs(71), exp + 71).await,
        Outcome::Done,
        "once expired, the record is gone"
    );
}

/// A client fetched from its metadata document (an `https` `client_id`) is kept with an
/// expiry, read back by `client()` like a registered one (the functions that do not fetch
/// find it), replaced by a later fetch, and gone once expired; never listed with the
/// registered clients.
pub async fn a_client_document_is_read_as_a_client_until_it_expires<B: Backend>(s: Arc<B>) {
    use crate::domain::client_document::{client_of, ClientDocument};
    let url = format!("https://{}.example/client.json", id("doc"));
    let body = serde_json::json!({
        "client_id": url,
        "client_name": "Suite MCP",
        "redirect_uris": ["http://127.0.0.1:4711/cb"],
    });
    let rng = crate::random::SeededRandom::new(7);
    let client = client_of(&url, body.to_string().as_bytes(), &[], false, T0, &rng).unwrap();
    assert_eq!(s.client(&url, T0).await.unwrap(), None);
    let doc = ClientDocument {
        client: client.clone(),
        fresh_until: T0.plus_secs(60),
        etag: Some("\"v1\"".into()),
        last_modified: None,
    };
    s.keep_client_document(&doc, T0.secs() + 600, T0)
        .await
        .unwrap();
    let (got, _) = s.client(&url, T0).await.unwrap().unwrap();
    assert_eq!(got, client);
    assert_eq!(
        s.client_document(&url, T0).await.unwrap(),
        Some(doc.clone())
    );
    // Its browser origin (the public client's `+`: its redirect URI's) is kept as long.
    assert!(s
        .document_origin("http://127.0.0.1:4711", T0)
        .await
        .unwrap());
    assert!(!s
        .document_origin("https://other.example", T0)
        .await
        .unwrap());
    let late = Timestamp::from_secs(T0.secs() + 601);
    assert!(!s
        .document_origin("http://127.0.0.1:4711", late)
        .await
        .unwrap());
    let mut renamed = doc.clone();
    renamed.client.name = "Renamed (x.example)".into();
    s.keep_client_document(&renamed, T0.secs() + 600, T0)
        .await
        .unwrap();
    assert_eq!(
        s.client(&url, T0).await.unwrap().unwrap().0.name,
        renamed.client.name
    );
    assert!(!s
        .clients(T0)
        .await
        .unwrap()
        .iter()
        .any(|c| c.client_id.as_str() == url));
    let later = T0.plus_secs(601);
    assert_eq!(s.client(&url, later).await.unwrap(), None);
    assert_eq!(s.client_document(&url, later).await.unwrap(), None);
}

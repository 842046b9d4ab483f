//! Client ID Metadata Documents at the authorization endpoint (`service::client_documents`):
//! an `https` `client_id` fetched through the context's fetcher and used as the client, kept
//! while fresh by its `Cache-Control`, fetched again when stale (keeping the consent's
//! reference time when unchanged), refused with its reason, and off or refused by the
//! operator's policy without a fetch.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::*;
use crate::client_jwks::{Fetched, JwksFetch, Validators};
use crate::reach::Reach;
use crate::store::ClientStore;

const DOC: &str = "https://mcp.example/client.json";
const CB: &str = "http://127.0.0.1:4711/cb";

/// Serves one document (or an error) and counts the fetches.
struct Served {
    body: Result<String, String>,
    cache_control: Option<&'static str>,
    fetches: AtomicUsize,
}

#[async_trait::async_trait]
impl JwksFetch for Served {
    async fn fetch(&self, uri: &str, _reach: Reach) -> Result<Vec<u8>, String> {
        Err(format!("{uri}: not a JWK Set"))
    }

    async fn fetch_document(
        &self,
        _: &str,
        _: Reach,
        max: usize,
        _: Validators<'_>,
    ) -> Result<Fetched, String> {
        assert_eq!(max, crate::domain::client_document::MAX_BYTES);
        self.fetches.fetch_add(1, Ordering::SeqCst);
        self.body.clone().map(|b| Fetched {
            body: b.into_bytes(),
            cache_control: self.cache_control.map(str::to_owned),
            ..Fetched::default()
        })
    }
}

fn served(body: Result<Value, &str>, cache_control: Option<&'static str>) -> Arc<Served> {
    Arc::new(Served {
        body: body.map(|b| b.to_string()).map_err(str::to_owned),
        cache_control,
        fetches: AtomicUsize::new(0),
    })
}

fn document() -> Value {
    json!({ "client_id": DOC, "client_name": "Agent", "redirect_uris": [CB] })
}

fn request(env: &TestEnv) -> crate::protocol::Params {
    env.spa_auth(&[("client_id", DOC), ("redirect_uri", CB)])
}

async fn with(
    served: Arc<Served>,
    change: impl FnOnce(&mut crate::config::RawSettings),
) -> TestEnv {
    let mut env = Builder::new().setting(change).build().await;
    env.ctx.jwks_fetch = served;
    env
}

#[tokio::test]
async fn a_document_is_the_client_kept_while_fresh_and_fetched_again_when_stale() {
    let doc = served(Ok(document()), Some("max-age=60"));
    let env = with(doc.clone(), |_| {}).await;
    let AuthorizeDecision::ShowQr {
        client_name, login, ..
    } = env.authorize(&request(&env), None).await
    else {
        panic!("expected the QR page");
    };
    assert_eq!(
        client_name, "Agent (mcp.example)",
        "the host beside the claimed name"
    );
    assert_eq!(login.request.client_id.as_str(), DOC);
    // The other functions (the phone's, the consent's) read it from the store.
    let (kept, _) = env.ctx.store.client(DOC, env.now()).await.unwrap().unwrap();
    assert_eq!(kept.redirect_uris[0].as_str(), CB);
    env.advance(59);
    env.show_qr(&request(&env)).await;
    assert_eq!(
        doc.fetches.load(Ordering::SeqCst),
        1,
        "fresh: not fetched again"
    );
    env.advance(1);
    env.show_qr(&request(&env)).await;
    assert_eq!(
        doc.fetches.load(Ordering::SeqCst),
        2,
        "stale: fetched again"
    );
    let (again, _) = env.ctx.store.client(DOC, env.now()).await.unwrap().unwrap();
    assert_eq!(
        again.created_at, kept.created_at,
        "unchanged: the same client"
    );
}

fn error_page(d: AuthorizeDecision) -> String {
    match d {
        AuthorizeDecision::ErrorPage(why) => why.to_string(),
        other => panic!("expected an error page, got {other:?}"),
    }
}

#[tokio::test]
async fn refused_documents_say_why_on_the_error_page() {
    let lying = json!({ "client_id": "https://other.example/c.json", "redirect_uris": [CB] });
    for (body, why) in [
        (Ok(lying), "is not its URL"),
        (
            Err("https://mcp.example/client.json: larger than 5120 bytes"),
            "larger than 5120",
        ),
        (
            Ok(json!({ "client_id": DOC, "redirect_uris": [CB], "client_secret": "s" })),
            "client_secret",
        ),
    ] {
        let env = with(served(body, None), |_| {}).await;
        let page = error_page(env.authorize(&request(&env), None).await);
        assert!(
            page.contains("client_id metadata document refused"),
            "{page}"
        );
        assert!(page.contains(why), "{page}");
    }
}

#[tokio::test]
async fn the_operator_turns_documents_off_or_refuses_a_host_without_a_fetch() {
    let doc = served(Ok(document()), None);
    let off = with(doc.clone(), |r| {
        r.client_id_metadata_documents = Some("false".into())
    })
    .await;
    assert!(error_page(off.authorize(&request(&off), None).await).contains("unknown client_id"));
    let refused = with(doc.clone(), |r| {
        r.client_document_refused_hosts = Some("example".into())
    })
    .await;
    let page = error_page(refused.authorize(&request(&refused), None).await);
    assert!(
        page.contains("refuses client documents from mcp.example"),
        "{page}"
    );
    let trusted = with(doc.clone(), |r| {
        r.client_document_trusted_hosts = Some("other.example".into())
    })
    .await;
    let page = error_page(trusted.authorize(&request(&trusted), None).await);
    assert!(page.contains("not among the operator's trusted"), "{page}");
    assert_eq!(doc.fetches.load(Ordering::SeqCst), 0);
    let d = crate::domain::discovery::openid_configuration(&off.ctx.settings, &[]);
    assert!(!d.client_id_metadata_document_supported);
}

#[tokio::test]
async fn a_host_is_fetched_at_most_the_login_rate_a_minute() {
    let failing = served(Err("https://mcp.example/client.json: answered 500"), None);
    let env = with(failing.clone(), |_| {}).await;
    for _ in 0..30 {
        let page = error_page(env.authorize(&request(&env), None).await);
        assert!(page.contains("answered 500"), "{page}");
    }
    let page = error_page(env.authorize(&request(&env), None).await);
    assert!(page.contains("fetched too often"), "{page}");
    assert_eq!(failing.fetches.load(Ordering::SeqCst), 30);
    env.advance(60);
    error_page(env.authorize(&request(&env), None).await);
    assert_eq!(failing.fetches.load(Ordering::SeqCst), 31, "a minute later");
}

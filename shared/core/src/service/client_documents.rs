//! The client a request names: a registered one, else (an `https` `client_id`, when the
//! operator allows them) the one its Client ID Metadata Document describes
//! ([`crate::domain::client_document`]), fetched through the context's fetcher with the SSRF
//! guards of a self-registered client's URIs ([`Reach::of`]: public addresses only, except in
//! local development), and kept in the store while fresh by its HTTP caching headers (so every
//! function, the QR page's, the phone's and the consent's too, reads it back while a login is
//! under way, without fetching), then revalidated with its `ETag` or `Last-Modified`. Only the functions that link the fetcher (authorization,
//! PAR, token and the other client-authenticating ones) fetch; the others read what the store
//! keeps.

use crate::audit::{Audit, Event};
use crate::client_jwks::Validators;
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::client::Client;
use crate::domain::client_document::{self, CacheHeaders, ClientDocument, FLOW_SECS, MAX_BYTES};
use crate::domain::ratelimit::{Counted, Limit};
use crate::protocol::ClientId;
use crate::reach::Reach;
use crate::service::limits;
use crate::store::{ClientStore, StoreError};

/// The client `id` names: `Ok(None)` when there is none (unknown, or a document when they
/// are off); `Err(why)` when its metadata document was refused (why, for the person and the
/// client developer). A disabled client is returned as it is (the caller refuses it).
pub async fn client(
    ctx: &Context,
    id: &str,
    now: Timestamp,
) -> Result<Result<Option<Client>, String>, StoreError> {
    if let Ok(cid) = ClientId::parse(id) {
        return Ok(Ok(ctx.store.client(&cid, now).await?.map(|(c, _)| c)));
    }
    let policy = &ctx.settings.client_documents;
    if !client_document::is_document_id(id) || !policy.enabled {
        return Ok(Ok(None));
    }
    let host = match client_document::check_url(id).and_then(|h| policy.allows(&h).map(|()| h)) {
        Ok(h) => h,
        Err(why) => return Ok(Err(refused(id, why))),
    };
    let kept = ctx.store.client_document(id, now).await?;
    if let Some(k) = kept.as_ref().filter(|k| k.fresh_until.secs() > now.secs()) {
        return Ok(Ok(Some(k.client.clone())));
    }
    // One host's documents are fetched at most the login rate a minute, whoever asks (a
    // failed fetch is not kept): scanid is no way to send a stream of requests to a server.
    let who = format!("client-document:{host}");
    let limits = &ctx.settings.limits;
    if let Counted::Limited { .. } =
        limits::count(ctx.store.as_ref(), limits, Limit::Login, &who, now).await?
    {
        return Ok(Err(refused(
            id,
            format!("{host}'s documents were fetched too often; try again in a minute"),
        )));
    }
    let local = ctx.settings.local_development();
    // A stale document kept with validators is fetched conditionally: a 304 keeps it.
    let validators = kept
        .as_ref()
        .map_or_else(Validators::default, |k| Validators {
            etag: k.etag.as_deref(),
            last_modified: k.last_modified.as_deref(),
        });
    let fetched = match ctx
        .jwks_fetch
        .fetch_document(id, Reach::of(local, true), MAX_BYTES, validators)
        .await
    {
        Ok(f) => f,
        Err(why) => return Ok(Err(refused(id, why))),
    };
    let client = match (fetched.not_modified, kept) {
        (true, Some(k)) => k.client,
        (_, kept) => match fetched_client(ctx, id, &fetched.body, kept, now).await {
            Ok(c) => c,
            Err(why) => return Ok(Err(refused(id, why))),
        },
    };
    let headers = CacheHeaders {
        cache_control: fetched.cache_control.as_deref(),
        expires: fetched.expires.as_deref(),
        date: fetched.date.as_deref(),
    };
    let fresh =
        client_document::freshness(headers, now, (policy.min_fresh_secs, policy.max_fresh_secs));
    let keep = |v: Option<String>| v.filter(|v| fresh.revalidate && v.len() <= 256);
    let doc = ClientDocument {
        client,
        fresh_until: now.plus_secs(fresh.secs),
        etag: keep(fetched.etag),
        last_modified: keep(fetched.last_modified),
    };
    ctx.store
        .keep_client_document(&doc, now.secs() + fresh.secs + FLOW_SECS, now)
        .await?;
    tracing::info!(
        client_id = id,
        host = %host,
        fresh = fresh.secs,
        not_modified = fetched.not_modified,
        "client metadata document fetched"
    );
    Ok(Ok(Some(doc.client)))
}

/// The client a fetched document describes, or why it is refused. The same document fetched
/// again is the same client: it keeps the time it was first seen, so the consents given to
/// it stay (a changed one is a new client to consent to).
async fn fetched_client(
    ctx: &Context,
    id: &str,
    body: &[u8],
    kept: Option<ClientDocument>,
    now: Timestamp,
) -> Result<Client, String> {
    let algs = ctx.keyring().await.algs();
    let local = ctx.settings.local_development();
    let client = client_document::client_of(id, body, &algs, local, now, ctx.random.as_ref())?;
    if let Some(k) = kept {
        let same = Client {
            created_at: k.client.created_at,
            ..client.clone()
        };
        if same == k.client {
            return Ok(same);
        }
    }
    Ok(client)
}

/// Audits a refused document and says why.
fn refused(id: &str, why: String) -> String {
    Audit::new(Event::ClientAuthFailed)
        .client(if id.len() <= 128 { id } else { "" })
        .outcome("refused")
        .emit();
    tracing::info!(client_id = id, reason = %why, "client metadata document refused");
    format!("client_id metadata document refused: {why}")
}

//! The mobile app's API (app protocol §1, §3, §4): sign-up, reading a scanned login session,
//! and approving or denying it. Every write is a JWS signed by the device key; its `jti` is
//! recorded in the same transaction as the write, so a replay is refused.

use serde::Deserialize;
use serde_json::json;

use crate::audit::{Audit, Event};
use crate::domain::app_jws;
use crate::domain::identity::{self, Registration};
use crate::domain::login::{DecideError, LoginSession};
use crate::domain::ratelimit::{self, Counted, Limit};
use crate::pages;
use crate::store::{
    Cond, IdentityStore, Key, Kind, NewIdentityError, Record, StoreError, Typed, Write,
};
use crate::App;
use crate::{
    check_realm, json, json_body, path_param, query_pairs, single, source, wants_json, HttpError,
    Request, Response,
};

fn invalid(e: impl std::fmt::Display) -> HttpError {
    HttpError::json(400, "invalid_request", e.to_string())
}

#[derive(Deserialize)]
struct SignupBody {
    registration: String,
}

/// `POST .../app/identities`: sign-up with proof of possession of the device key.
pub async fn signup(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let now = app.clock.now();
    let body: SignupBody = json_body(&req)?;
    let jws = app_jws::parse(&body.registration, "registration+jwt").map_err(invalid)?;
    let key = jws
        .str_claim("public_key")
        .ok_or_else(|| invalid("public_key: required"))?;
    let spki = identity::parse_public_key(key).map_err(invalid)?;
    let verified = jws
        .verify(&spki, &app.settings.issuer(), now)
        .map_err(invalid)?;
    let reg: Registration =
        serde_json::from_value(serde_json::Value::Object(verified.claims.clone()))
            .map_err(|_| invalid("registration claims must be strings"))?;
    let who = source(&req);
    if let Counted::Limited { retry_after } = ratelimit::count(
        app.store.as_ref(),
        &app.settings.limits,
        Limit::Signup,
        who.as_str(),
        now,
    )
    .await?
    {
        return Err(HttpError::RateLimited {
            html: false,
            retry_after,
        });
    }
    // A fresh service_id on the rare collision; name and jti conflicts are final.
    for _ in 0..3 {
        let ident =
            identity::new_identity(&reg, &app.settings.photo_hosts, now, app.random.as_ref())
                .map_err(invalid)?;
        match app
            .store
            .create_identity(
                &ident,
                Some((format!("reg:{}", verified.jti), verified.exp)),
                now,
            )
            .await
        {
            Ok(()) => {
                Audit::new(Event::IdentityCreated)
                    .subject(&ident.sub)
                    .source(who.as_str())
                    .emit();
                let mut out = serde_json::to_value(ident.public_profile())
                    .map_err(|_| HttpError::Internal)?;
                out["sub"] = json!(ident.sub);
                out["service_id"] = json!(ident.service_id);
                return Ok(json(201, &out));
            }
            Err(NewIdentityError::ServiceIdTaken) => continue,
            Err(NewIdentityError::NameTaken) => {
                return Err(HttpError::json(409, "name_taken", "this name is taken"))
            }
            Err(NewIdentityError::Replay) => return Err(invalid("jti was already used")),
            Err(NewIdentityError::Store(e)) => return Err(e.into()),
        }
    }
    Err(HttpError::Unavailable)
}

fn not_found() -> HttpError {
    HttpError::json(
        404,
        "not_found",
        "unknown or expired login session, or a wrong challenge",
    )
}

/// `GET .../app/scan?session=&challenge=`: what the app shows before approving (Q3). A
/// browser (no `Accept: application/json`) gets the "get the app" page instead.
pub async fn scan(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    if !wants_json(&req) {
        return Ok(get_the_app(app));
    }
    let now = app.clock.now();
    let pairs = query_pairs(&req);
    let (Some(id), Some(challenge)) = (single(&pairs, "session"), single(&pairs, "challenge"))
    else {
        return Err(not_found());
    };
    if id.len() > 64 || challenge.len() > 64 {
        return Err(not_found());
    }
    // Accept the scan (remember the challenge); retry if a concurrent scan won the write.
    for _ in 0..3 {
        let Some(s) = app
            .store
            .read::<LoginSession>(Kind::Login, &id, now)
            .await?
        else {
            return Err(not_found());
        };
        let mut next = s.value.clone();
        if !next.accept_scan(&challenge, now) {
            return Err(not_found());
        }
        match app.store.replace(&s, &next, now).await {
            Ok(()) => {}
            Err(StoreError::ConditionFailed) => continue,
            Err(e) => return Err(e.into()),
        }
        let client =
            crate::store::ClientStore::client(app.store.as_ref(), &next.request.client_id, now)
                .await?
                .map(|(c, _)| c)
                .ok_or_else(not_found)?;
        let host = url::Url::parse(&next.request.redirect_uri)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        return Ok(json(
            200,
            &json!({
                "session": next.id,
                "client": { "client_id": client.client_id, "name": client.name, "redirect_host": host },
                "scopes": next.request.scopes,
                "browser": { "ip": next.browser_ip, "user_agent": next.user_agent },
                "expires_at": next.expires_at.to_rfc3339_millis(),
            }),
        ));
    }
    Err(HttpError::Unavailable)
}

fn get_the_app(app: &App) -> Response {
    let (ios, android) = &app.settings.app_store_urls;
    pages::html(app.random.as_ref(), 200, "'none'", Vec::new(), |nonce| {
        askama::Template::render(&crate::views::AppLinkPage {
            nonce,
            ios,
            android,
        })
    })
}

#[derive(Deserialize)]
struct DecideBody {
    approval: String,
}

/// `POST .../app/login-sessions/{login_session_id}`: approve or deny, signed by the device key.
pub async fn decide(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let now = app.clock.now();
    let id = path_param(&req, "login_session_id")
        .filter(|i| i.len() <= 64)
        .ok_or_else(not_found)?;
    let body: DecideBody = json_body(&req)?;
    let jws = app_jws::parse(&body.approval, "approval+jwt").map_err(invalid)?;
    let sub = jws
        .str_claim("sub")
        .ok_or_else(|| invalid("sub: required"))?
        .to_owned();
    if sub.len() > 64 {
        return Err(not_found());
    }
    let who = source(&req);
    let ident = match app.store.identity(&sub, now).await? {
        Some((i, _)) if !i.disabled => i,
        _ => {
            unverified(app, &who, now).await?;
            return Err(HttpError::json(404, "not_found", "unknown identity"));
        }
    };
    let spki = identity::parse_public_key(&ident.public_key).map_err(|_| HttpError::Internal)?;
    let v = match jws.verify(&spki, &app.settings.issuer(), now) {
        Ok(v) => v,
        Err(e) => {
            unverified(app, &who, now).await?;
            return Err(invalid(e));
        }
    };
    // Only a decision the identity's own key signed counts against the identity: a
    // stranger naming a (public) sub must not be able to block its owner (SECURITY.md Q4).
    if let Counted::Limited { retry_after } = ratelimit::count(
        app.store.as_ref(),
        &app.settings.limits,
        Limit::Decision,
        &sub,
        now,
    )
    .await?
    {
        return Err(HttpError::RateLimited {
            html: false,
            retry_after,
        });
    }
    let claim = |n: &str| {
        v.claims
            .get(n)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    if claim("session").as_deref() != Some(id.as_str()) {
        return Err(invalid("session must name this login session"));
    }
    let challenge = claim("challenge").ok_or_else(|| invalid("challenge: required"))?;
    let approve = match claim("decision").as_deref() {
        Some("approve") => true,
        Some("deny") => false,
        _ => return Err(invalid("decision must be approve or deny")),
    };
    let Some(s) = app
        .store
        .read::<LoginSession>(Kind::Login, &id, now)
        .await?
    else {
        return Err(not_found());
    };
    let mut next = s.value.clone();
    match next.decide(&sub, &challenge, approve, now) {
        Ok(()) => {}
        Err(DecideError::NotFound) => return Err(not_found()),
        Err(DecideError::AlreadyDecided) => {
            return Err(HttpError::json(
                409,
                "already_decided",
                "this login session was decided already",
            ))
        }
    }
    let jti_key = Key::new(Kind::Jti, format!("{sub}:{}", v.jti));
    let writes = vec![
        s.replace_with(&next)?,
        Write::Put(Record::new(jti_key.clone(), &1, Some(v.exp))?, Cond::Absent),
    ];
    match app.store.transact(writes, now).await {
        Ok(()) => {
            Audit::new(if approve {
                Event::LoginApproved
            } else {
                Event::LoginDenied
            })
            .client(&next.request.client_id)
            .subject(&sub)
            .source(who.as_str())
            .outcome(if approve { "approved" } else { "denied" })
            .emit();
            Ok(json(
                200,
                &json!({ "status": if approve { "approved" } else { "denied" } }),
            ))
        }
        Err(StoreError::ConditionFailed) => {
            if app.store.get(&jti_key, now).await?.is_some() {
                Err(invalid("jti was already used"))
            } else {
                Err(HttpError::json(
                    409,
                    "already_decided",
                    "this login session was decided already",
                ))
            }
        }
        Err(e) => Err(e.into()),
    }
}

/// A signed app request that did not verify counts against its source: past the limit the
/// source gets 429 instead of 400.
async fn unverified(
    app: &App,
    who: &ratelimit::Source,
    now: crate::clock::Timestamp,
) -> Result<(), HttpError> {
    match ratelimit::count(
        app.store.as_ref(),
        &app.settings.limits,
        Limit::UnverifiedDecision,
        who.as_str(),
        now,
    )
    .await?
    {
        Counted::Allowed => Ok(()),
        Counted::Limited { retry_after } => Err(HttpError::RateLimited {
            html: false,
            retry_after,
        }),
    }
}

#[derive(Deserialize)]
struct UpdateBody {
    update: String,
}

/// The identity named in the path, if it exists and may act.
async fn acting_identity(
    app: &App,
    req: &Request,
    now: crate::clock::Timestamp,
) -> Result<(crate::domain::identity::Identity, u64), HttpError> {
    let sub = path_param(req, "sub")
        .filter(|s| s.len() <= 64)
        .ok_or_else(|| HttpError::json(404, "not_found", "unknown identity"))?;
    match app.store.identity(&sub, now).await? {
        Some((i, v)) if !i.disabled => Ok((i, v)),
        _ => Err(HttpError::json(404, "not_found", "unknown identity")),
    }
}

/// Writes the changed identity and records the `jti`s, in one transaction.
async fn commit_identity(
    app: &App,
    next: &crate::domain::identity::Identity,
    version: u64,
    jtis: &[(String, i64)],
    now: crate::clock::Timestamp,
) -> Result<Response, HttpError> {
    let mut record = Record::new(Key::new(Kind::Identity, &next.sub), next, None)?;
    record.version = version + 1;
    let mut writes = vec![Write::Put(record, Cond::Version(version))];
    for (jti, exp) in jtis {
        writes.push(Write::Put(
            Record::new(
                Key::new(Kind::Jti, format!("{}:{jti}", next.sub)),
                &1,
                Some(*exp),
            )?,
            Cond::Absent,
        ));
    }
    match app.store.transact(writes, now).await {
        Ok(()) => {
            let mut out =
                serde_json::to_value(next.public_profile()).map_err(|_| HttpError::Internal)?;
            out["sub"] = json!(next.sub);
            out["service_id"] = json!(next.service_id);
            Ok(json(200, &out))
        }
        Err(StoreError::ConditionFailed) => Err(HttpError::json(
            409,
            "conflict",
            "jti already used, or the identity changed meanwhile; sign a new request",
        )),
        Err(e) => Err(e.into()),
    }
}

/// Parses `jws` of type `typ`, finds the identity in the path, and verifies the JWS with its
/// device key; the JWS's `sub` must name that identity.
async fn signed_by_identity(
    app: &App,
    req: &Request,
    jws: &str,
    typ: &str,
    now: crate::clock::Timestamp,
) -> Result<(crate::domain::identity::Identity, u64, app_jws::Verified), HttpError> {
    let jws = app_jws::parse(jws, typ).map_err(invalid)?;
    let (ident, version) = acting_identity(app, req, now).await?;
    if jws.str_claim("sub") != Some(ident.sub.as_str()) {
        return Err(invalid("sub must name this identity"));
    }
    let spki = identity::parse_public_key(&ident.public_key).map_err(|_| HttpError::Internal)?;
    let v = jws
        .verify(&spki, &app.settings.issuer(), now)
        .map_err(invalid)?;
    Ok((ident, version, v))
}

/// `PATCH .../app/identities/{sub}`: a profile update signed by the device key.
pub async fn update_profile(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let now = app.clock.now();
    let body: UpdateBody = json_body(&req)?;
    let (ident, version, v) =
        signed_by_identity(app, &req, &body.update, "profile+jwt", now).await?;
    let next =
        identity::apply_update(&ident, &v.claims, &app.settings.photo_hosts).map_err(invalid)?;
    commit_identity(app, &next, version, &[(v.jti, v.exp)], now).await
}

#[derive(Deserialize)]
struct RotationBody {
    rotation: String,
}

/// `POST .../app/identities/{sub}/key`: device-key rotation. The request is signed by the old
/// key and carries the new key with a proof of possession signed by the new key.
pub async fn rotate_key(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let now = app.clock.now();
    let body: RotationBody = json_body(&req)?;
    let (ident, version, v) =
        signed_by_identity(app, &req, &body.rotation, "key-rotation+jwt", now).await?;
    let claim = |n: &str| {
        v.claims
            .get(n)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    let new_key = claim("public_key").ok_or_else(|| invalid("public_key: required"))?;
    let new_spki = identity::parse_public_key(&new_key).map_err(invalid)?;
    if new_key == ident.public_key {
        return Err(invalid(
            "public_key: the new key must differ from the old one",
        ));
    }
    let proof = app_jws::parse(
        &claim("proof").ok_or_else(|| invalid("proof: required"))?,
        "key-proof+jwt",
    )
    .map_err(invalid)?;
    if proof.str_claim("sub") != Some(ident.sub.as_str()) {
        return Err(invalid("proof: sub must name this identity"));
    }
    let p = proof
        .verify(&new_spki, &app.settings.issuer(), now)
        .map_err(invalid)?;
    // One jti, one request: the two JWS must not share one (each is recorded once).
    if p.jti == v.jti {
        return Err(HttpError::json(
            409,
            "conflict",
            "the rotation and its proof must carry different jti values",
        ));
    }
    let mut next = ident.clone();
    next.public_key = new_key;
    commit_identity(app, &next, version, &[(v.jti, v.exp), (p.jti, p.exp)], now).await
}

//! QR logins and the spends that end them.

use super::*;

/// The QR login record as the scan and the decision write it (issue 24): the whole value comes
/// back (the number, its choices, the scanner, a cancellation), and a scan written on a stale
/// version loses (a challenge is spent by one conditional write).
pub async fn a_scanned_qr_login_keeps_its_number_scanner_and_cancellation<B: Backend>(s: Arc<B>) {
    use crate::domain::authorize::AuthorizationRequest;
    use crate::domain::login::{CancelReason, QrLogin, Scanner, DEFAULT_CHALLENGE_TTL_SECS};
    use crate::random::SystemRandom;
    use crate::store::flows::{Outcome, QrLogins};

    let request = AuthorizationRequest {
        state: Some("s".into()),
        ..rp_request()
    };
    // Fresh ids per run: suites may share one DynamoDB table.
    let rng = SystemRandom::new();
    let login = QrLogin::new(
        300,
        request,
        "browser",
        "127.0.0.1".into(),
        "ua".into(),
        T0,
        &rng,
    );
    s.create_qr_login(&login, T0).await.unwrap();
    let stored = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    let alice = Scanner::Identity(Subject::new("alice"));
    let mut scanned = stored.value.clone();
    let c = scanned.current_challenge(T0);
    scanned
        .accept_scan(&c, &alice, DEFAULT_CHALLENGE_TTL_SECS, T0, &rng)
        .unwrap();
    assert_eq!(
        s.update_qr_login(&stored, &scanned, T0).await.unwrap(),
        Outcome::Done
    );
    let back = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    assert_eq!(back.value, scanned);
    assert_eq!(back.value.scanned_by, Some(alice));
    assert_eq!(back.value.number_choices().len(), 3);
    // Another scan of the same challenge, read before the first was written: it loses.
    let mut racing = stored.value.clone();
    racing
        .accept_scan(
            &c,
            &Scanner::Anonymous,
            DEFAULT_CHALLENGE_TTL_SECS,
            T0,
            &rng,
        )
        .unwrap();
    assert_eq!(
        s.update_qr_login(&stored, &racing, T0).await.unwrap(),
        Outcome::Lost
    );
    // A wrong number cancels it; the reason is stored.
    let n = i64::from(back.value.number.unwrap());
    let mut cancelled = back.value.clone();
    let wrong = if n == 10 { 11 } else { 10 };
    assert!(cancelled
        .decide(
            "alice",
            &c,
            (true, crate::domain::authn::Method::DeviceKey),
            Some(wrong),
            T0
        )
        .is_err());
    assert_eq!(
        s.update_qr_login(&back, &cancelled, T0).await.unwrap(),
        Outcome::Done
    );
    let end = s.qr_login(&login.id, T0).await.unwrap().unwrap().value;
    assert_eq!(end.cancel_reason(), Some(CancelReason::WrongNumber));
    assert_eq!(end, cancelled);
}

/// The login path spends each single-use thing by one conditional write of its own (no
/// transaction): what the spend pays for is written first under new keys, and a spend that
/// loses leaves none of it behind. A decision that loses gives its `jti` back (a loss reads
/// as it did in a transaction); a completion that loses leaves no code, SSO session or
/// consent; a redemption that loses leaves no grant or refresh token.
pub async fn a_spend_that_loses_leaves_nothing_behind<B: Backend>(s: Arc<B>) {
    use crate::domain::grant::{Grant, GrantKind};
    use crate::domain::login::{Consent, LoginStatus, QrLogin, SsoSession};
    use crate::random::SystemRandom;
    use crate::store::flows::{CodeIssue, Codes, Grants, Outcome, QrLogins, SsoSessions};

    let rng = SystemRandom::new();
    let request = rp_request();
    let login = QrLogin::new(300, request, "b", "127.0.0.1".into(), "ua".into(), T0, &rng);
    s.create_qr_login(&login, T0).await.unwrap();
    let read = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    let sub = id("sub");
    let jti_exp = T0.secs() + 120;

    // A decision: the jti is spent with it; a second one on the same version loses and
    // gives its own jti back.
    let mut next = read.value.clone();
    next.status = LoginStatus::Denied;
    let (j1, j2) = (id("jti"), id("jti"));
    let o = s.record_decision(&read, &next, &sub, &j1, jti_exp, T0);
    assert_eq!(o.await.unwrap(), Outcome::Done);
    assert!(s.jti_used(&sub, &j1, T0).await.unwrap());
    let o = s.record_decision(&read, &next, &sub, &j2, jti_exp, T0);
    assert_eq!(o.await.unwrap(), Outcome::Lost);
    assert!(
        !s.jti_used(&sub, &j2, T0).await.unwrap(),
        "the jti is given back"
    );
    // A spent jti makes a decision lose, the login unchanged.
    let decided = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    let o = s.record_decision(&decided, &next, &sub, &j1, jti_exp, T0);
    assert_eq!(o.await.unwrap(), Outcome::Lost);
    let still = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    assert_eq!(still.record.version, decided.record.version);

    // A completion on a stale version loses: no code, no SSO session, no consent.
    let code = rp_code(&sub);
    let (sso, _) = SsoSession::new(&sub, T0, T0, &rng);
    let consent = Consent {
        scopes: Scopes::from_stored(["openid"]),
        granted_at: T0,
        claims: Vec::new(),
        resources: Vec::new(),
        delegation: false,
    };
    let issue = |login, hash| CodeIssue {
        login,
        new_sso: Some((&sso, T0.secs() + 600)),
        consent: Some((&sub, "rp", &consent)),
        code_hash: hash,
        code: &code,
        code_expires_at: T0.secs() + 60,
    };
    let lost_hash = crate::protocol::CodeHash::new(id("code"));
    let o = s
        .issue_code(issue(Some(&read), &lost_hash), T0)
        .await
        .unwrap();
    assert_eq!(o, Outcome::Lost);
    assert!(s.pending_code(&lost_hash, T0).await.unwrap().is_none());
    assert!(s.sso_session(&sso.sid, T0).await.unwrap().is_none());
    assert!(s.consent(&sub, "rp", T0).await.unwrap().is_none());
    // On the version read: the code, the session and the consent are written, the login
    // completed; a second completion loses.
    let hash = crate::protocol::CodeHash::new(id("code"));
    let o = s
        .issue_code(issue(Some(&decided), &hash), T0)
        .await
        .unwrap();
    assert_eq!(o, Outcome::Done);
    let pending = s.pending_code(&hash, T0).await.unwrap().unwrap();
    assert_eq!(pending.code, code);
    assert!(s.sso_session(&sso.sid, T0).await.unwrap().is_some());
    assert_eq!(
        s.consent(&sub, "rp", T0).await.unwrap(),
        Some(consent.clone())
    );
    let done = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    assert_eq!(done.value.status, LoginStatus::Completed);
    let again = crate::protocol::CodeHash::new(id("code"));
    let o = s
        .issue_code(issue(Some(&decided), &again), T0)
        .await
        .unwrap();
    assert_eq!(o, Outcome::Lost);
    assert!(s.pending_code(&again, T0).await.unwrap().is_none());

    // Two redemptions of the code on the version read: the second leaves no grant and no
    // refresh token behind (the grant it would have written differs in its nonce).
    let grant = |nonce: &str| Grant {
        id: pending.grant_id(),
        kind: GrantKind::AuthorizationCode,
        client_id: ClientId::new("rp"),
        sub: Subject::new(sub.as_str()),
        sid: Some(SessionId::new("sid")),
        scopes: Scopes::from_stored(["openid"]),
        auth_time: T0,
        nonce: Some(nonce.to_owned()),
        claims: Default::default(),
        created_at: T0,
        offline: false,
        generation: 1,
        rotated_at: T0,
        revoked: false,
        alg: crate::keys::Alg::ES256,
        resources: Vec::new(),
        method: Default::default(),
    };
    let later = T0.secs() + 1800;
    let (g1, g2) = (grant("first"), grant("second"));
    let (r1, r2) = (id("rt"), id("rt"));
    let (f1, f2) = (id("family"), id("family"));
    let o = s.redeem_code(&pending, &g1, &r1, &f1, later, T0);
    assert_eq!(o.await.unwrap(), Outcome::Done);
    let o = s.redeem_code(&pending, &g2, &r2, &f2, later, T0);
    assert_eq!(o.await.unwrap(), Outcome::Lost);
    assert_eq!(s.grant(&g1.id, T0).await.unwrap().unwrap().value, g1);
    let found = |rt: String, family: String| {
        let (s, gid) = (s.clone(), g1.id.clone());
        async move {
            s.find_refresh_token(&rt, Some(&gid), Some(&family), T0)
                .await
                .unwrap()
        }
    };
    assert!(found(r1, f1).await.is_some());
    assert!(found(r2.clone(), f2).await.is_none());
    assert!(s.refresh_token(&r2, T0).await.unwrap().is_none());
    assert_eq!(s.redeemed_as(&hash, T0).await.unwrap(), Some(g1.id.clone()));
}

/// A QR login completed by the session it starts (issue 41): the session's write, first and
/// alone, completes it; the login is not written. A second completion loses and writes
/// nothing (the first one's consent stays); a login written after the completion read it (a
/// denial, a report's close) makes the completion lose, leaving nothing behind.
pub async fn a_login_completes_once_by_the_session_it_starts<B: Backend>(s: Arc<B>) {
    use crate::domain::authorize::AuthorizationRequest;
    use crate::domain::login::{sid_of_login, Consent, LoginStatus, QrLogin, SsoSession};
    use crate::random::SystemRandom;
    use crate::store::flows::{CodeIssue, Codes, Outcome, QrLogins, SsoSessions};

    let rng = SystemRandom::new();
    let request = rp_request();
    let sub = id("sub");
    let approved = |request: &AuthorizationRequest| {
        let mut l = QrLogin::new(
            300,
            request.clone(),
            "b",
            "127.0.0.1".into(),
            "ua".into(),
            T0,
            &rng,
        );
        l.status = LoginStatus::Approved {
            sub: Subject::new(sub.as_str()),
            auth_time: T0,
            approved_with: Default::default(),
        };
        l
    };
    let code = rp_code(&sub);
    let consent = |at| Consent {
        scopes: Scopes::from_stored(["openid"]),
        granted_at: at,
        claims: Vec::new(),
        resources: Vec::new(),
        delegation: false,
    };
    let (first, second) = (consent(T0), consent(T0.plus_secs(1)));

    let login = approved(&request);
    s.create_qr_login(&login, T0).await.unwrap();
    let read = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    let (sso, _) = SsoSession::for_login(&sub, &login.id, T0, T0, &rng);
    assert_eq!(sso.sid, sid_of_login(&login.id));
    let issue = |hash, consent| CodeIssue {
        login: Some(&read),
        new_sso: Some((&sso, T0.secs() + 600)),
        consent: Some((&sub, "rp", consent)),
        code_hash: hash,
        code: &code,
        code_expires_at: T0.secs() + 60,
    };
    let h1 = crate::protocol::CodeHash::new(id("code"));
    assert_eq!(
        s.issue_code(issue(&h1, &first), T0).await.unwrap(),
        Outcome::Done
    );
    assert!(s.pending_code(&h1, T0).await.unwrap().is_some());
    assert!(s.sso_session(&sso.sid, T0).await.unwrap().is_some());
    let after = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    assert_eq!(
        after.record.version, read.record.version,
        "the login is not written"
    );
    let h2 = crate::protocol::CodeHash::new(id("code"));
    assert_eq!(
        s.issue_code(issue(&h2, &second), T0).await.unwrap(),
        Outcome::Lost
    );
    assert!(s.pending_code(&h2, T0).await.unwrap().is_none());
    assert_eq!(
        s.consent(&sub, "rp", T0).await.unwrap(),
        Some(first.clone())
    );
    assert!(
        s.pending_code(&h1, T0).await.unwrap().is_some(),
        "the first code stays"
    );

    // Closed after the completion read it (a report): the completion loses, nothing stays.
    let other = approved(&request);
    s.create_qr_login(&other, T0).await.unwrap();
    let stale = s.qr_login(&other.id, T0).await.unwrap().unwrap();
    assert_eq!(s.close_qr_login(&stale, T0).await.unwrap(), Outcome::Done);
    let (sso, _) = SsoSession::for_login(&sub, &other.id, T0, T0, &rng);
    let h3 = crate::protocol::CodeHash::new(id("code"));
    let o = s
        .issue_code(
            CodeIssue {
                login: Some(&stale),
                new_sso: Some((&sso, T0.secs() + 600)),
                consent: None,
                code_hash: &h3,
                code: &code,
                code_expires_at: T0.secs() + 60,
            },
            T0,
        )
        .await
        .unwrap();
    assert_eq!(o, Outcome::Lost);
    assert!(s.pending_code(&h3, T0).await.unwrap().is_none());
    assert!(s.sso_session(&sso.sid, T0).await.unwrap().is_none());
}

/// The suite's authorization request of client `rp`.
pub(super) fn rp_request() -> crate::domain::authorize::AuthorizationRequest {
    use crate::domain::authorize::{AuthorizationRequest, Prompt, ResponseMode};
    AuthorizationRequest {
        client_id: ClientId::new("rp"),
        redirect_uri: RedirectUri::new("https://rp.example/cb"),
        response_mode: ResponseMode::Query,
        state: None,
        nonce: None,
        scopes: Scopes::from_stored(["openid"]),
        code_challenge: None,
        dpop_jkt: None,
        prompt: Prompt::default(),
        max_age: None,
        login_hint: None,
        ui_locales: None,
        resources: Vec::new(),
        claims: Default::default(),
    }
}

/// A code for `rp_request()`, issued to `sub`.
fn rp_code(sub: &str) -> crate::domain::login::AuthCode {
    crate::domain::login::AuthCode {
        client_id: ClientId::new("rp"),
        redirect_uri: RedirectUri::new("https://rp.example/cb"),
        scopes: Scopes::from_stored(["openid"]),
        nonce: None,
        claims: Default::default(),
        code_challenge: None,
        dpop_jkt: None,
        resources: Vec::new(),
        sub: Subject::new(sub),
        sid: SessionId::new("sid"),
        auth_time: T0,
        issued_at: T0,
        method: Default::default(),
    }
}

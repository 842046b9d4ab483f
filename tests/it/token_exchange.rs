//! Delegation by token exchange (RFC 8693) through the real `scanid serve`: an agent (a client
//! the operator allowed `--grant token_exchange`) the person allowed on its consent page
//! exchanges the person's access token for a narrower one naming it in `act`; chains nest
//! `act`; introspection shows it; the person lists and withdraws delegations with the app's
//! signed requests, and the agent's exchanged tokens die at once. Every refusal from outside
//! with RFC 8693's error.

use scanid_tests::{
    attr, auth_url, code_of, create_client, introspect, jwt_claims, open, params_of, post_form,
    pyjwt_verify, request, secret_of, Browser, Resp, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

const API: &str = "https://api.example/v1";
const TE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const AT: &str = "urn:ietf:params:oauth:token-type:access_token";

struct Env {
    s: TestServer,
    app: TestApp,
    secrets: std::collections::HashMap<&'static str, String>,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut secrets = std::collections::HashMap::new();
    for (id, extra) in [
        ("agent", &["--grant", "token_exchange"][..]),
        ("agent2", &["--grant", "token_exchange"][..]),
        ("shop", &[][..]),
    ] {
        let mut args = vec!["--name", id, "--client-id", id, "--redirect-uri", CB];
        args.extend_from_slice(extra);
        secrets.insert(id, secret_of(&create_client(d, &args)));
    }
    let api = create_client(
        d,
        &[
            "--name",
            "API",
            "--client-id",
            "api",
            "--resource-server",
            "--grant",
            "client_credentials",
        ],
    );
    secrets.insert("api", secret_of(&api));
    let s = TestServer::start(dir.path(), &["--resource", API]);
    let app = TestApp::enroll(&s, "delegator");
    Env {
        s,
        app,
        secrets,
        _dir: dir,
    }
}

impl Env {
    fn client(&self, id: &'static str) -> (&'static str, &str) {
        (id, self.secrets[id].as_str())
    }

    /// A QR login to `client` (scope `openid profile groups`, the API as resource): the
    /// consent page's text and the access token.
    fn login(&self, client: &'static str) -> (String, String) {
        let mut b = Browser::new();
        let url = auth_url(
            &self.s,
            &[
                ("client_id", client),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("scope", "openid profile groups"),
                ("state", "st"),
                ("resource", API),
            ],
        );
        let (_, payload) = open(&mut b, &url);
        assert_eq!(self.app.decide(&mut b, &payload, "approve").status, 200);
        let session = params_of(&payload)["session"].clone();
        let page = b.get(&format!(
            "{}/login-actions/consent?session={session}",
            self.s.issuer
        ));
        let html = page.text();
        let csrf = attr(&html, "name=\"csrf\"", "value").expect("a consent page");
        let r = b.post_form(
            &format!("{}/login-actions/consent", self.s.issuer),
            &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
        );
        let code = code_of(&r);
        let t = post_form(
            &self.s.oidc("token"),
            Some(self.client(client)),
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", CB),
            ],
        );
        assert_eq!(t.status, 200, "{}", t.text());
        // One resource granted: the access token is for it.
        (html, t.json()["access_token"].as_str().unwrap().to_owned())
    }

    fn exchange(&self, client: &'static str, subject: &str, extra: &[(&str, &str)]) -> Resp {
        let mut pairs = vec![
            ("grant_type", TE),
            ("subject_token", subject),
            ("subject_token_type", AT),
        ];
        pairs.extend_from_slice(extra);
        post_form(&self.s.oidc("token"), Some(self.client(client)), &pairs)
    }

    fn exchanged(&self, client: &'static str, subject: &str, extra: &[(&str, &str)]) -> String {
        let r = self.exchange(client, subject, extra);
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        assert_eq!(v["issued_token_type"], AT);
        assert_eq!(v["token_type"], "Bearer");
        assert!(
            v.get("refresh_token").is_none() && v.get("id_token").is_none(),
            "{v}"
        );
        v["access_token"].as_str().unwrap().to_owned()
    }

    /// The app's signed request at `.../app/identities/{sub}/{path}` with body `{what: jws}`.
    fn app_call(&self, path: &str, what: &str, extra: Value) -> Resp {
        let mut claims = self.app.request_claims();
        if let Value::Object(m) = extra {
            claims.as_object_mut().unwrap().extend(m);
        }
        let jws = TestApp::sign(&self.app.key, &format!("{what}+jwt"), &claims);
        request(
            "POST",
            &format!("{}/app/identities/{}/{path}", self.s.issuer, self.app.sub),
            &[("Content-Type", "application/json")],
            json!({ what: jws }).to_string().as_bytes(),
        )
    }
}

fn error_of(r: &Resp) -> String {
    assert_eq!(r.status, 400, "{}", r.text());
    r.json()["error"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn an_agent_the_person_allowed_acts_for_them_narrowed_and_named_in_act() {
    let e = env();
    let (page, token) = e.login("agent");
    assert!(
        page.contains("id=\"delegation\"") && page.contains("agent is an agent"),
        "the consent page says the agent may act for the person: {page}"
    );
    let t = e.exchanged("agent", &token, &[("scope", "groups"), ("resource", API)]);
    let c = jwt_claims(&t);
    assert_eq!(c["sub"], e.app.sub);
    assert_eq!(c["azp"], "agent");
    assert_eq!(c["aud"], API);
    assert_eq!(c["scope"], "groups");
    assert_eq!(c["act"], json!({ "sub": "agent" }));
    assert!(
        c["exp"].as_i64() <= jwt_claims(&token)["exp"].as_i64(),
        "never outlives the subject"
    );
    let v = pyjwt_verify(&e.s.oidc("certs"), &e.s.issuer, &t);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    // The resource server sees who acts; the agent may introspect its own token.
    let i = introspect(&e.s, e.client("api"), &t);
    assert_eq!(i["active"], true, "{i}");
    assert_eq!(i["act"], json!({ "sub": "agent" }));
    assert_eq!(i["client_id"], "agent");
    assert_eq!(introspect(&e.s, e.client("agent"), &t)["active"], true);
    assert_eq!(introspect(&e.s, e.client("shop"), &t)["active"], false);
    // The default: what both the token and the consent hold, for the subject token's
    // audience (here the API the login asked for).
    assert_eq!(jwt_claims(&token)["aud"], API);
    let d = jwt_claims(&e.exchanged("agent", &token, &[]));
    assert_eq!(d["aud"], API);
    assert_eq!(d["scope"], "openid profile groups");
}

#[test]
fn a_chain_nests_act_and_needs_every_agent_allowed() {
    let e = env();
    let (_, token) = e.login("agent");
    let handed = e.exchanged("agent", &token, &[("audience", "agent2")]);
    assert_eq!(jwt_claims(&handed)["aud"], "agent2");
    // The second agent was never allowed by the person.
    assert_eq!(
        error_of(&e.exchange("agent2", &handed, &[])),
        "invalid_request"
    );
    e.login("agent2");
    let t = e.exchanged(
        "agent2",
        &handed,
        &[("resource", API), ("scope", "profile")],
    );
    assert_eq!(
        jwt_claims(&t)["act"],
        json!({ "sub": "agent2", "act": { "sub": "agent" } })
    );
    assert_eq!(
        introspect(&e.s, e.client("api"), &t)["act"],
        json!({ "sub": "agent2", "act": { "sub": "agent" } })
    );
    // An audience that is not an agent.
    assert_eq!(
        error_of(&e.exchange("agent", &token, &[("audience", "shop")])),
        "invalid_target"
    );
}

#[test]
fn the_person_lists_and_withdraws_delegations_and_the_tokens_die() {
    let e = env();
    let (_, token) = e.login("agent");
    let (_, token2) = e.login("agent2");
    e.login("shop");
    let t = e.exchanged("agent", &token, &[("resource", API)]);
    let chained = e.exchanged(
        "agent2",
        &e.exchanged("agent", &token, &[("audience", "agent2")]),
        &[],
    );
    let t2 = e.exchanged("agent2", &token2, &[]);
    let list = e.app_call("delegations", "delegations", json!({}));
    assert_eq!(list.status, 200, "{}", list.text());
    let mut ids: Vec<String> = list.json()["delegations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["client_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    assert_eq!(
        ids,
        ["agent", "agent2"],
        "the shop is no agent: {}",
        list.text()
    );
    let w = e.app_call(
        "delegations/withdraw",
        "withdraw",
        json!({ "client_id": "agent" }),
    );
    assert_eq!(w.status, 200, "{}", w.text());
    assert_eq!(w.json()["status"], "withdrawn");
    assert_eq!(introspect(&e.s, e.client("api"), &t)["active"], false);
    assert_eq!(
        introspect(&e.s, e.client("api"), &chained)["active"],
        false,
        "agent is in its chain"
    );
    assert_eq!(
        introspect(&e.s, e.client("api"), &t2)["active"],
        true,
        "agent2 is untouched"
    );
    assert_eq!(
        error_of(&e.exchange("agent", &token, &[])),
        "invalid_request"
    );
    // The agent's own login tokens are not delegation: they live on.
    assert_eq!(introspect(&e.s, e.client("agent"), &token)["active"], true);
    // Withdrawing again changes nothing; a replayed request is refused.
    let again = e.app_call(
        "delegations/withdraw",
        "withdraw",
        json!({ "client_id": "agent" }),
    );
    assert_eq!(again.json()["status"], "none");
    let list = e.app_call("delegations", "delegations", json!({}));
    assert_eq!(list.json()["delegations"].as_array().unwrap().len(), 1);
}

#[test]
fn an_agent_revokes_its_exchanged_token_not_the_persons_grant() {
    let e = env();
    let (_, token) = e.login("agent");
    let t = e.exchanged("agent", &token, &[]);
    let r = post_form(
        &e.s.oidc("revoke"),
        Some(e.client("agent")),
        &[("token", &t)],
    );
    assert_eq!(r.status, 200);
    assert_eq!(introspect(&e.s, e.client("agent"), &t)["active"], false);
    assert_eq!(introspect(&e.s, e.client("agent"), &token)["active"], true);
}

#[test]
fn refusals_with_rfc_8693_errors() {
    let e = env();
    let (_, token) = e.login("agent");
    let (_, shop_token) = e.login("shop");
    // A client that is no agent.
    let r = e.exchange("shop", &shop_token, &[]);
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "unauthorized_client");
    // Another client's token, wider scope, a resource not allowed, both targets.
    assert_eq!(
        error_of(&e.exchange("agent", &shop_token, &[])),
        "invalid_request"
    );
    assert_eq!(
        error_of(&e.exchange("agent", &token, &[("scope", "openid address")])),
        "invalid_scope"
    );
    assert_eq!(
        error_of(&e.exchange("agent", &token, &[("resource", "https://other.example")])),
        "invalid_target"
    );
    assert_eq!(
        error_of(&e.exchange(
            "agent",
            &token,
            &[("resource", API), ("audience", "agent2")]
        )),
        "invalid_target"
    );
    // Bad input.
    assert_eq!(
        error_of(&e.exchange("agent", "not-a-token", &[])),
        "invalid_request"
    );
    let bare = |pairs: &[(&str, &str)]| {
        error_of(&post_form(
            &e.s.oidc("token"),
            Some(e.client("agent")),
            pairs,
        ))
    };
    assert_eq!(
        bare(&[("grant_type", TE), ("subject_token_type", AT)]),
        "invalid_request"
    );
    assert_eq!(
        bare(&[("grant_type", TE), ("subject_token", &token)]),
        "invalid_request"
    );
    assert_eq!(
        bare(&[
            ("grant_type", TE),
            ("subject_token", &token),
            ("subject_token_type", "urn:x")
        ]),
        "invalid_request"
    );
    assert_eq!(
        error_of(&e.exchange(
            "agent",
            &token,
            &[("actor_token", &token), ("actor_token_type", AT)]
        )),
        "invalid_request"
    );
    assert_eq!(
        error_of(&e.exchange(
            "agent",
            &token,
            &[(
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:refresh_token"
            )]
        )),
        "invalid_request"
    );
    // Without client authentication.
    let r = post_form(
        &e.s.oidc("token"),
        None,
        &[
            ("grant_type", TE),
            ("client_id", "agent"),
            ("subject_token", &token),
            ("subject_token_type", AT),
        ],
    );
    assert_eq!(r.status, 401, "{}", r.text());
}

#[test]
fn a_public_client_cannot_be_an_agent() {
    let dir = tempfile::tempdir().unwrap();
    let out = scanid_tests::scanid(&[
        "client",
        "create",
        "--data-dir",
        dir.path().to_str().unwrap(),
        "--name",
        "P",
        "--redirect-uri",
        CB,
        "--public",
        "--grant",
        "token_exchange",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be a public client"));
}

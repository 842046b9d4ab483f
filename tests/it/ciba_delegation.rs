//! A delegation asked through CIBA: an agent (a client allowed both CIBA and token exchange)
//! asks at the backchannel authentication endpoint, with the resource servers it means to act
//! at (RFC 8707 `resource`); a raw app-protocol phone sees that the request is a delegation
//! and where, and approves it; the approval is recorded as the agent's consent page's would
//! be, so the agent's token exchange (RFC 8693) then succeeds with `act`, in the token and in
//! introspection. A withdrawn, denied or expired request leaves the exchange refused. The
//! same scenario runs on DynamoDB in `aws`.

use scanid_tests::{
    create_client, introspect, jwt_claims, post_form, secret_of, TestApp, TestServer,
};
use serde_json::json;

use crate::ciba::{app_call, decide, poll, start, waiting};

/// The resource server the agent asks to act at.
pub const API: &str = "https://api.example/v1";
const TE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const AT: &str = "urn:ietf:params:oauth:token-type:access_token";

/// The agent's client flags: CIBA and token exchange.
pub const AGENT_FLAGS: &[&str] = &[
    "--name",
    "Travel agent",
    "--client-id",
    "ciba-agent",
    "--grant",
    "ciba",
    "--grant",
    "token_exchange",
];

/// The resource server's flags (it introspects).
pub const API_FLAGS: &[&str] = &[
    "--name",
    "API",
    "--client-id",
    "api",
    "--resource-server",
    "--grant",
    "client_credentials",
];

/// The server flags: the resource registered.
pub const SERVER_FLAGS: &[&str] = &["--resource", API];

fn exchange(s: &TestServer, agent: (&str, &str), subject: &str) -> scanid_tests::Resp {
    post_form(
        &s.oidc("token"),
        Some(agent),
        &[
            ("grant_type", TE),
            ("subject_token", subject),
            ("subject_token_type", AT),
            ("resource", API),
            ("scope", "profile"),
        ],
    )
}

fn error(r: &scanid_tests::Resp) -> String {
    assert_eq!(r.status, 400, "{}", r.text());
    r.json()["error"].as_str().unwrap_or_default().to_owned()
}

fn delegations(app: &TestApp) -> Vec<serde_json::Value> {
    let r = app_delegations(app, "delegations", "delegations", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["delegations"].as_array().unwrap().clone()
}

fn app_delegations(
    app: &TestApp,
    path: &str,
    what: &str,
    extra: serde_json::Value,
) -> scanid_tests::Resp {
    let mut claims = app.request_claims();
    if let serde_json::Value::Object(m) = extra {
        claims.as_object_mut().unwrap().extend(m);
    }
    let jws = TestApp::sign(&app.key, &format!("{what}+jwt"), &claims);
    scanid_tests::request(
        "POST",
        &format!("{}/app/identities/{}/{path}", app.issuer, app.sub),
        &[("Content-Type", "application/json")],
        json!({ what: jws }).to_string().as_bytes(),
    )
}

/// Asks as the agent for `hint`, the API as resource; the `auth_req_id`.
fn ask(s: &TestServer, agent: (&str, &str), hint: &str, expiry: &str) -> String {
    let r = start(
        s,
        agent,
        &[
            ("scope", "openid profile"),
            ("login_hint", hint),
            ("binding_message", "Trip 12: book flights"),
            ("resource", API),
            ("requested_expiry", expiry),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["auth_req_id"].as_str().unwrap().to_owned()
}

/// The whole scenario (`agent` and `api` are the two clients' credentials).
pub fn delegation_through_ciba(s: &TestServer, agent: (&str, &str), api: (&str, &str)) {
    let person = TestApp::enroll(s, "ciba-delegator");
    // A resource the operator did not register is refused at the request.
    let r = start(
        s,
        agent,
        &[
            ("scope", "openid"),
            ("login_hint", "ciba-delegator"),
            ("resource", "https://elsewhere.example/"),
        ],
    );
    assert_eq!(error(&r), "invalid_target");

    let id = ask(s, agent, "ciba-delegator", "300");
    let list = waiting(&person);
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(
        list[0]["delegation"], true,
        "the phone is told: {}",
        list[0]
    );
    assert_eq!(list[0]["resources"], json!([API]));
    assert_eq!(list[0]["client"]["name"], "Travel agent");
    let (opened, decided) = decide(&person, list[0]["id"].as_str().unwrap(), "approve");
    assert_eq!(opened["delegation"], true, "{opened}");
    assert_eq!(opened["resources"], json!([API]));
    assert_eq!(opened["scopes"], json!(["openid", "profile"]));
    assert_eq!(decided.status, 200, "{}", decided.text());
    let t = poll(s, agent, &id);
    assert_eq!(t.status, 200, "{}", t.text());
    let subject = t.json()["access_token"].as_str().unwrap().to_owned();

    // The approval is the delegation: the exchange succeeds, naming the agent.
    let x = exchange(s, agent, &subject);
    assert_eq!(x.status, 200, "{}", x.text());
    let exchanged = x.json()["access_token"].as_str().unwrap().to_owned();
    let c = jwt_claims(&exchanged);
    assert_eq!(c["sub"], person.sub.as_str());
    assert_eq!(c["aud"], API);
    assert_eq!(c["scope"], "profile");
    assert_eq!(c["act"], json!({ "sub": "ciba-agent" }));
    let i = introspect(s, api, &exchanged);
    assert_eq!(i["active"], true, "{i}");
    assert_eq!(i["act"], json!({ "sub": "ciba-agent" }));
    // The person sees it in the app as any delegation, with where it may act.
    let d = delegations(&person);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["client_id"], "ciba-agent");
    assert_eq!(d[0]["resources"], json!([API]));
    assert_eq!(d[0]["scopes"], json!(["openid", "profile"]));

    // Withdrawn in the app: the exchanged token dies, the exchange is refused.
    let w = app_delegations(
        &person,
        "delegations/withdraw",
        "withdraw",
        json!({ "client_id": "ciba-agent" }),
    );
    assert_eq!(w.json()["status"], "withdrawn", "{}", w.text());
    assert_eq!(introspect(s, api, &exchanged)["active"], false);
    assert_eq!(error(&exchange(s, agent, &subject)), "invalid_request");

    // Denied: nothing is recorded, the exchange stays refused.
    let id = ask(s, agent, "ciba-delegator", "300");
    let list = waiting(&person);
    let (_, decided) = decide(&person, list[0]["id"].as_str().unwrap(), "deny");
    assert_eq!(decided.status, 200, "{}", decided.text());
    assert_eq!(error(&poll(s, agent, &id)), "access_denied");
    assert!(delegations(&person).is_empty());
    assert_eq!(error(&exchange(s, agent, &subject)), "invalid_request");

    // Expired undecided: nothing either, and the phone can no longer approve it.
    let id = ask(s, agent, "ciba-delegator", "2");
    let list = waiting(&person);
    assert_eq!(list.len(), 1);
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert_eq!(error(&poll(s, agent, &id)), "expired_token");
    let late = app_call(
        &person,
        "/open",
        ("backchannel-open+jwt", "open"),
        json!({ "request": list[0]["id"] }),
    );
    assert_eq!(late.status, 404, "{}", late.text());
    assert!(delegations(&person).is_empty());
    assert_eq!(error(&exchange(s, agent, &subject)), "invalid_request");
}

#[test]
fn an_agent_asks_through_ciba_and_the_approval_is_its_delegation() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let agent = secret_of(&create_client(&data, AGENT_FLAGS));
    let api = secret_of(&create_client(&data, API_FLAGS));
    let s = TestServer::start(dir.path(), SERVER_FLAGS);
    delegation_through_ciba(&s, ("ciba-agent", &agent), ("api", &api));
}

#[test]
fn a_client_that_is_no_agent_names_no_resource() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let desk = secret_of(&create_client(&data, crate::ciba::CLIENT_FLAGS));
    let s = TestServer::start(dir.path(), SERVER_FLAGS);
    let plain = TestApp::enroll(&s, "ciba-plain");
    let r = start(
        &s,
        ("desk", &desk),
        &[
            ("scope", "openid"),
            ("login_hint", "ciba-plain"),
            ("resource", API),
        ],
    );
    assert_eq!(error(&r), "invalid_target");
    // Its requests are no delegation.
    let r = start(
        &s,
        ("desk", &desk),
        &[("scope", "openid"), ("login_hint", "ciba-plain")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let list = waiting(&plain);
    assert_eq!(list[0]["delegation"], false, "{}", list[0]);
}

//! The operator's side for the tests: the `scanid` command against one store, service
//! accounts, their tokens, and calls with a bearer token (the admin API's tests share these).

use std::path::Path;

use serde_json::Value;

use crate::{post_form, request, scanid_json, Resp, TestServer};

/// The operator's `scanid` command against one store: `flags` are `--data-dir DIR` or the
/// DynamoDB flags.
pub struct Operator {
    /// Added to every command.
    pub flags: Vec<String>,
}

impl Operator {
    /// The operator of the embedded store in `dir`.
    pub fn local(dir: &Path) -> Self {
        Self {
            flags: vec!["--data-dir".into(), dir.display().to_string()],
        }
    }

    /// The operator of a fresh DynamoDB table in the emulator (`scanid aws init`), its keys
    /// signing in `signing` mode (`kms` or `kms-envelope`) with a new KMS key.
    pub fn on_emulator(signing: &str) -> Self {
        crate::require_emulator();
        let table = format!("scanid-it-{}", uuid::Uuid::new_v4().simple());
        let out = scanid_json(&[
            "aws",
            "init",
            "--table",
            &table,
            "--signing",
            signing,
            "--create-kms-key",
        ]);
        let key_id = out["kms_key_id"].as_str().unwrap();
        Self {
            flags: [
                "--table",
                &table,
                "--signing",
                signing,
                "--kms-key-id",
                key_id,
            ]
            .map(str::to_owned)
            .to_vec(),
        }
    }

    /// The DynamoDB table (`--table`), if the store is one.
    pub fn table(&self) -> Option<&str> {
        let at = self.flags.iter().position(|f| f == "--table")?;
        self.flags.get(at + 1).map(String::as_str)
    }

    /// The flags, borrowed (to start a server on the same store).
    pub fn flag_strs(&self) -> Vec<&str> {
        self.flags.iter().map(String::as_str).collect()
    }

    /// `scanid {args} {flags}`: its JSON output (the command must succeed).
    pub fn run(&self, args: &[&str]) -> Value {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(self.flags.iter().map(String::as_str));
        scanid_json(&all)
    }

    /// A service account (`client_credentials`, no redirect URI) with admin `roles`: its secret.
    pub fn service_account(&self, id: &str, roles: &[&str]) -> String {
        let mut args = vec![
            "client",
            "create",
            "--name",
            id,
            "--client-id",
            id,
            "--client-credentials",
        ];
        for r in roles {
            args.extend(["--admin-role", r]);
        }
        self.run(&args)["client_secret"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

/// A `client_credentials` access token of `id` (HTTP Basic); the grant must succeed.
pub fn client_token(s: &TestServer, id: &str, secret: &str) -> String {
    let r = post_form(
        &s.oidc("token"),
        Some((id, secret)),
        &[("grant_type", "client_credentials")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["access_token"].as_str().unwrap().to_owned()
}

/// `method path` on `s` with an optional bearer `token` and an optional JSON `body`.
pub fn bearer_call(
    s: &TestServer,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> Resp {
    let body = body.map(Value::to_string);
    bearer_call_raw(s, method, path, token, body.as_deref().map(str::as_bytes))
}

/// [`bearer_call`] with a body of any bytes, sent as `application/json`.
pub fn bearer_call_raw(
    s: &TestServer,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
) -> Resp {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut h = vec![];
    if let Some(a) = &auth {
        h.push(("Authorization", a.as_str()));
    }
    if body.is_some() {
        h.push(("Content-Type", "application/json"));
    }
    request(method, &s.url(path), &h, body.unwrap_or(b""))
}

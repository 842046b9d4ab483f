//! Test helpers: spawn the real `scanid` binary (`serve` on port 0 with a fresh data dir, or
//! an operator command), HTTP through `reqwest::blocking` (no redirects followed, cookies kept
//! by [`Browser`]), raw bytes over a `TcpStream` for the requests a client library will not
//! send ([`raw_request`]), and the steps the tests share (client registration, the QR login,
//! token requests, racing requests).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(
    clippy::disallowed_methods,
    reason = "tests drive a real server from outside: they wait on it and read the wall clock"
)]

pub mod fault_proxy;
pub mod load;
pub mod operator;
pub use operator::{bearer_call, bearer_call_raw, client_token, Operator};

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::Duration;

/// The `scanid` binary: `$SCANID_BIN`, or `target/<profile>/scanid` next to this test.
pub fn scanid_bin() -> PathBuf {
    if let Ok(p) = std::env::var("SCANID_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let bin = profile_dir.join("scanid");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build -p scanid-cli` first (tests/run does)",
        bin.display()
    );
    bin
}

/// Runs `scanid ARGS` to completion.
pub fn scanid(args: &[&str]) -> Output {
    Command::new(scanid_bin())
        .args(args)
        .envs(aws_env())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

/// The AWS environment for child processes: the emulator the test command started
/// (`SCANID_TEST_AWS_ENDPOINT`) with dummy credentials; empty when there is none (only the
/// AWS tests need it, and they say so).
pub fn aws_env() -> Vec<(&'static str, String)> {
    match std::env::var("SCANID_TEST_AWS_ENDPOINT") {
        Ok(e) if !e.is_empty() => vec![
            ("AWS_ENDPOINT_URL", e),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", "testing".into()),
            ("AWS_EC2_METADATA_DISABLED", "true".into()),
        ],
        _ => Vec::new(),
    }
}

/// Fails the test with how to start the emulator unless the test command started it.
pub fn require_emulator() {
    assert!(
        !aws_env().is_empty(),
        "SCANID_TEST_AWS_ENDPOINT is not set: the AWS tests need the emulator; run `bash tests/run`, \
         or `infra/emulator.sh start` and export SCANID_TEST_AWS_ENDPOINT to the URL it prints"
    );
}

/// Runs `scanid ARGS`, asserts success, and parses its JSON stdout.
pub fn scanid_json(args: &[&str]) -> serde_json::Value {
    let out = scanid(args);
    assert!(
        out.status.success(),
        "scanid {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The redirect URI the tests register for their confidential clients.
pub const CB: &str = "https://shop.example/cb";
/// A PKCE `code_verifier` (RFC 7636 appendix B) and its S256 `code_challenge`.
pub const PKCE_VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
pub const PKCE_CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
/// The discovery document of the default realm, as a path.
pub const DISCOVERY: &str = "/realms/scanid/.well-known/openid-configuration";

/// Registers a client: `scanid client create --data-dir DATA_DIR ARGS` (asserting success);
/// the command's JSON (`client_id`, and `client_secret` for a confidential client).
pub fn create_client(data_dir: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["client", "create", "--data-dir", data_dir];
    all.extend_from_slice(args);
    scanid_json(&all)
}

/// Creates the confidential client `shop` ("Shop", redirect URI [`CB`], and `extra` flags) in
/// `data_dir`, and returns its secret.
pub fn create_shop(data_dir: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "--name",
        "Shop",
        "--client-id",
        "shop",
        "--redirect-uri",
        CB,
    ];
    args.extend_from_slice(extra);
    secret_of(&create_client(data_dir, &args))
}

/// The `client_secret` of [`create_client`]'s answer (panics for a public client).
pub fn secret_of(created: &serde_json::Value) -> String {
    created["client_secret"]
        .as_str()
        .unwrap_or_else(|| panic!("no client_secret in {created}"))
        .to_owned()
}

/// Runs `f(0..n)` on `n` threads released together, and waits for them all: the results, in
/// thread order (for racing requests: which one wins is up to the server).
pub fn race<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let start = std::sync::Barrier::new(n);
    std::thread::scope(|scope| {
        let (f, start) = (&f, &start);
        let handles: Vec<_> = (0..n)
            .map(|i| {
                scope.spawn(move || {
                    start.wait();
                    f(i)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Of racing redemptions of one code, exactly one got tokens and every other is 400
/// `invalid_grant`.
pub fn one_redemption_wins(answers: &[Resp]) {
    let winners = answers.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        winners,
        1,
        "{:?}",
        answers.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    for r in answers.iter().filter(|r| r.status != 200) {
        assert_eq!(r.status, 400, "{}", r.text());
        assert_eq!(r.json()["error"], "invalid_grant", "{}", r.text());
    }
}

/// A running `scanid serve`.
pub struct TestServer {
    child: Option<Child>,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    pub issuer: String,
    pub data_dir: PathBuf,
    /// The JSON line the server printed on start.
    pub banner: serde_json::Value,
    /// Where the server's log goes when started by [`TestServer::start_with_audit`].
    pub log: Option<PathBuf>,
}

impl TestServer {
    /// The server's process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Starts `scanid serve --addr 127.0.0.1:0 --data-dir DATA_DIR EXTRA...`.
    pub fn start(data_dir: &Path, extra: &[&str]) -> Self {
        Self::start_with(data_dir, "127.0.0.1:0", extra, &[])
    }

    /// Starts `scanid serve --addr ADDR --data-dir DATA_DIR EXTRA...` with `env` on top of
    /// [`aws_env`] and `RUST_LOG=warn` (e.g. `AWS_ENDPOINT_URL` of a proxy in front of the
    /// emulator). A fixed
    /// `ADDR` keeps the issuer across restarts on one data dir.
    pub fn start_with(data_dir: &Path, addr: &str, extra: &[&str], env: &[(&str, String)]) -> Self {
        let mut child = Command::new(scanid_bin())
            .args(["serve", "--addr", addr, "--data-dir"])
            .arg(data_dir)
            .args(extra)
            .envs(aws_env())
            .env("RUST_LOG", "warn")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let banner: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("serve printed {line:?} ({e})"));
        Self {
            base: format!("http://{}", banner["addr"].as_str().unwrap()),
            issuer: banner["issuer"].as_str().unwrap().to_owned(),
            data_dir: data_dir.to_owned(),
            child: Some(child),
            banner,
            log: None,
        }
    }

    /// Starts `scanid serve` like [`TestServer::start`], with JSON logs that include the audit
    /// events (`SCANID_LOG_FORMAT=json`, `RUST_LOG=warn,audit=info`) written to
    /// `DATA_DIR/audit.log` ([`TestServer::log`]); read them with
    /// [`TestServer::audit_events`].
    pub fn start_with_audit(data_dir: &Path, extra: &[&str]) -> Self {
        let log = data_dir.join("audit.log");
        let file = std::fs::File::create(&log).unwrap();
        let mut child = Command::new(scanid_bin())
            .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir)
            .args(extra)
            .envs(aws_env())
            .env("RUST_LOG", "warn,audit=info")
            .env("SCANID_LOG_FORMAT", "json")
            .stdout(Stdio::piped())
            .stderr(Stdio::from(file))
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let banner: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| {
            panic!(
                "serve printed {line:?} ({e}); its log: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            )
        });
        Self {
            base: format!("http://{}", banner["addr"].as_str().unwrap()),
            issuer: banner["issuer"].as_str().unwrap().to_owned(),
            data_dir: data_dir.to_owned(),
            child: Some(child),
            banner,
            log: Some(log),
        }
    }

    /// The whole log of a server started by [`TestServer::start_with_audit`].
    pub fn log_text(&self) -> String {
        let path = self
            .log
            .as_ref()
            .expect("the server was not started with start_with_audit");
        std::fs::read_to_string(path).unwrap_or_default()
    }

    /// The audit events logged so far: every log line that is a JSON object with a string
    /// `event` field at the top level, in order.
    pub fn audit_events(&self) -> Vec<serde_json::Value> {
        self.log_text()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v.get("event").is_some_and(serde_json::Value::is_string))
            .collect()
    }

    /// [`TestServer::audit_events`], read again for up to 1 s until `done` holds for them (a
    /// line may reach the file just after the response): the last read either way.
    pub fn audit_events_until(
        &self,
        done: impl Fn(&[serde_json::Value]) -> bool,
    ) -> Vec<serde_json::Value> {
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        loop {
            let events = self.audit_events();
            if done(&events) || std::time::Instant::now() >= deadline {
                return events;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A server running in this process (its `Context` built by the test, e.g. on a failing
    /// store), at `base`, for the same helpers.
    pub fn in_process(base: &str, issuer: &str, data_dir: &Path) -> Self {
        Self {
            child: None,
            base: base.to_owned(),
            issuer: issuer.to_owned(),
            data_dir: data_dir.to_owned(),
            banner: serde_json::Value::Null,
            log: None,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// The URL of OpenID Connect endpoint `name` (`token`, `userinfo`, `introspect`, ...).
    pub fn oidc(&self, name: &str) -> String {
        format!("{}/protocol/openid-connect/{name}", self.issuer)
    }

    /// `host:port` of the server.
    pub fn addr(&self) -> &str {
        self.base.strip_prefix("http://").unwrap()
    }

    /// SIGKILL (a crash: no shutdown code runs), then wait for the exit.
    pub fn kill(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("the server runs");
        child.kill().unwrap();
        child.wait().unwrap()
    }

    /// SIGTERM, then wait for the exit (graceful shutdown).
    pub fn stop(mut self) -> ExitStatus {
        let mut child = self.child.take().unwrap();
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        for _ in 0..100 {
            if let Some(s) = child.try_wait().unwrap() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.kill().unwrap();
        panic!("scanid serve did not stop within 5 s of SIGTERM");
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// An HTTP response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// The HTTP client of every helper: no redirects followed (tests assert 302/303 and
/// `Location`), no cookie store ([`Browser`] keeps its own jar), no idle connections kept
/// (each request has its own, as a browser's first visit does: servers with
/// `--max-connections` see only the connections a test opens).
fn client() -> &'static reqwest::blocking::Client {
    static CLIENT: std::sync::OnceLock<reqwest::blocking::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::blocking::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(0)
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap()
    })
}

/// Sends one request (`Connection: close`) and reads the whole response. For bytes that are
/// not a well-formed request, or a request left unfinished, use [`raw_request`].
pub fn request(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
    try_request(method, url, headers, body).unwrap_or_else(|e| panic!("{e}"))
}

/// [`request`], with a failure to connect or to read the whole response (a server killed
/// mid-request) as an error instead of a panic.
pub fn try_request(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<Resp, String> {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = client()
        .request(method, url)
        .header("Connection", "close")
        .body(body.to_vec());
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = req
        .send()
        .map_err(|e| format!("{url}: {e} ({:?})", std::error::Error::source(&e)))?;
    let status = r.status().as_u16();
    let headers = r
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let body = r
        .bytes()
        .map_err(|e| format!("{url}: reading the body: {e}"))?
        .to_vec();
    Ok(Resp {
        status,
        headers,
        body,
    })
}

/// Writes `raw` as is on a new connection to `s` (a failed write is ignored: the server may
/// close early) and reads what comes back for at most `timeout`: the answer as text, and
/// whether the server ended the connection (false: the read timed out). For what
/// [`request`] cannot send: malformed or oversized requests, connections held open.
pub fn raw_request(s: &TestServer, raw: &[u8], timeout: Duration) -> (String, bool) {
    let mut stream = TcpStream::connect(s.addr()).unwrap();
    let _ = stream.write_all(raw);
    let (bytes, ended) = read_raw(&mut stream, timeout);
    (String::from_utf8_lossy(&bytes).into_owned(), ended)
}

/// What came back on `stream` until EOF, an error (a reset also ends the connection), or
/// `timeout`; and whether the connection ended (false: the read timed out).
pub fn read_raw(stream: &mut TcpStream, timeout: Duration) -> (Vec<u8>, bool) {
    stream.set_read_timeout(Some(timeout)).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return (out, true),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return (out, false)
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return (out, true),
        }
    }
}

pub fn get(url: &str) -> Resp {
    request("GET", url, &[], b"")
}

/// `python3` for the independent-library checks (`$SCANID_TEST_PYTHON` overrides).
pub fn python() -> String {
    std::env::var("SCANID_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// PyJWT (`tests/py/verify_jwt.py`, an independent JWT implementation) verifying `token` as
/// issued by `issuer` with the keys at `jwks_url` alone: the run (its stdout is the verified
/// claims as JSON).
pub fn pyjwt_verify(jwks_url: &str, issuer: &str, token: &str) -> Output {
    Command::new(python())
        .arg(repo_root().join("tests/py/verify_jwt.py"))
        .args([jwks_url, issuer, token])
        .output()
        .unwrap()
}

/// [`pyjwt_verify`] for `audience`, with `required` the claims that must be present.
pub fn pyjwt_verify_for(
    jwks_url: &str,
    issuer: &str,
    token: &str,
    audience: &str,
    required: &str,
) -> Output {
    Command::new(python())
        .arg(repo_root().join("tests/py/verify_jwt.py"))
        .args([jwks_url, issuer, token, audience, required])
        .output()
        .unwrap()
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// A browser: keeps cookies, does not follow redirects.
#[derive(Debug, Default, Clone)]
pub struct Browser {
    pub jar: std::collections::BTreeMap<String, String>,
    pub user_agent: String,
}

impl Browser {
    pub fn new() -> Self {
        Self {
            jar: Default::default(),
            user_agent: "scanid-test-browser/1.0".into(),
        }
    }

    fn cookie_header(&self) -> String {
        self.jar
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn remember(&mut self, r: &Resp) {
        for (k, v) in &r.headers {
            if k == "set-cookie" {
                let pair = v.split(';').next().unwrap_or("");
                if let Some((name, value)) = pair.split_once('=') {
                    if value.is_empty() || v.contains("Max-Age=0") {
                        self.jar.remove(name);
                    } else {
                        self.jar.insert(name.to_owned(), value.to_owned());
                    }
                }
            }
        }
    }

    pub fn send(&mut self, method: &str, url: &str, extra: &[(&str, &str)], body: &[u8]) -> Resp {
        self.try_send(method, url, extra, body)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Browser::send`], with a connection failure as an error ([`try_request`]).
    pub fn try_send(
        &mut self,
        method: &str,
        url: &str,
        extra: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Resp, String> {
        let cookie = self.cookie_header();
        let mut headers: Vec<(&str, &str)> = vec![("User-Agent", self.user_agent.as_str())];
        if !cookie.is_empty() {
            headers.push(("Cookie", cookie.as_str()));
        }
        headers.extend_from_slice(extra);
        let r = try_request(method, url, &headers, body)?;
        self.remember(&r);
        Ok(r)
    }

    pub fn get(&mut self, url: &str) -> Resp {
        self.send("GET", url, &[], b"")
    }

    pub fn post_form(&mut self, url: &str, pairs: &[(&str, &str)]) -> Resp {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        self.send(
            "POST",
            url,
            &[("Content-Type", "application/x-www-form-urlencoded")],
            body.as_bytes(),
        )
    }
}

/// The value of attribute `attr` on the first element whose text contains `marker`.
pub fn attr(html: &str, marker: &str, attr: &str) -> Option<String> {
    let at = html.find(marker)?;
    let start = html[..at].rfind('<')?;
    let end = at + html[at..].find('>')?;
    let tag = &html[start..end];
    let key = format!("{attr}=\"");
    let v = tag.find(&key)? + key.len();
    let value = &tag[v..v + tag[v..].find('"')?];
    Some(
        value
            .replace("&amp;", "&")
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&#39;", "'"),
    )
}

/// Query (or fragment) parameters of a URL.
pub fn params_of(url: &str) -> std::collections::HashMap<String, String> {
    let q = url
        .split_once('?')
        .or_else(|| url.split_once('#'))
        .map(|(_, q)| q)
        .unwrap_or("");
    let q = q.split('#').next().unwrap_or("");
    url::form_urlencoded::parse(q.as_bytes())
        .into_owned()
        .collect()
}

/// A second, independent implementation of the phone app: its own P-256 key and JWS signing.
pub struct TestApp {
    pub key: aws_lc_rs::signature::EcdsaKeyPair,
    pub public_key: String,
    pub sub: String,
    pub service_id: String,
    pub issuer: String,
}

static JTI: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl TestApp {
    pub fn key() -> (aws_lc_rs::signature::EcdsaKeyPair, String) {
        use aws_lc_rs::encoding::AsDer;
        use aws_lc_rs::signature::KeyPair;
        use base64::Engine;
        let key = aws_lc_rs::signature::EcdsaKeyPair::generate(
            &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        )
        .unwrap();
        let spki = base64::engine::general_purpose::STANDARD
            .encode(key.public_key().as_der().unwrap().as_ref());
        (key, spki)
    }

    pub fn jti() -> String {
        format!(
            "jti-{}-{}",
            std::process::id(),
            JTI.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        )
    }

    pub fn now() -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64
    }

    /// Signs a compact JWS (ES256) over `claims`.
    pub fn sign(
        key: &aws_lc_rs::signature::EcdsaKeyPair,
        typ: &str,
        claims: &serde_json::Value,
    ) -> String {
        scanid_core::domain::app_jws::sign(key, typ, claims).unwrap()
    }

    /// The claims of a valid registration of `name` with `public_key` (display name
    /// "NAME display", country SE, fresh `iat`/`exp` and `jti`).
    pub fn registration_claims(s: &TestServer, public_key: &str, name: &str) -> serde_json::Value {
        let now = Self::now();
        serde_json::json!({
            "name": name, "display_name": format!("{name} display"), "country_code": "SE",
            "public_key": public_key, "aud": s.issuer, "iat": now, "exp": now + 120,
            "jti": Self::jti(),
        })
    }

    /// Signs up `name` on `server`; panics unless 201.
    pub fn enroll(server: &TestServer, name: &str) -> Self {
        let (key, public_key) = Self::key();
        let claims = Self::registration_claims(server, &public_key, name);
        let r = signup(server, None, &registration_body(&key, &claims));
        assert_eq!(r.status, 201, "enroll {name}: {}", r.text());
        let v = r.json();
        Self {
            key,
            public_key,
            sub: v["sub"].as_str().unwrap().to_owned(),
            service_id: v["service_id"].as_str().unwrap().to_owned(),
            issuer: server.issuer.clone(),
        }
    }

    /// The claims every device-signed request carries (`sub`, `aud`, a fresh `iat`/`exp`
    /// and `jti`); add the request's own.
    pub fn request_claims(&self) -> serde_json::Value {
        let now = Self::now();
        serde_json::json!({
            "sub": self.sub, "aud": self.issuer, "iat": now, "exp": now + 120, "jti": Self::jti(),
        })
    }

    /// A profile update (`PATCH /app/identities/{sub}`) of `claims`, signed by this key.
    pub fn patch_profile(&self, claims: &serde_json::Value) -> Resp {
        let jws = Self::sign(&self.key, "profile+jwt", claims);
        request(
            "PATCH",
            &format!("{}/app/identities/{}", self.issuer, self.sub),
            &[("Content-Type", "application/json")],
            serde_json::json!({ "update": jws }).to_string().as_bytes(),
        )
    }

    /// A photo upload (`POST /app/identities/{sub}/photo`) of `image`, signed by this key
    /// with the SHA-256 `sha256` (base64url; `None`: the image's own).
    pub fn upload_photo(&self, image: &[u8], sha256: Option<&str>) -> Resp {
        let mut claims = self.request_claims();
        claims["sha256"] =
            serde_json::json!(sha256.map_or_else(|| sha256_of(image), str::to_owned));
        self.upload_photo_signed(&claims, image)
    }

    /// A photo upload of `image` whose signed claims are `claims` as they are (a replayed
    /// `jti`, say).
    pub fn upload_photo_signed(&self, claims: &serde_json::Value, image: &[u8]) -> Resp {
        use base64::Engine;
        let jws = Self::sign(&self.key, "photo+jwt", claims);
        let image = base64::engine::general_purpose::STANDARD.encode(image);
        request(
            "POST",
            &format!("{}/app/identities/{}/photo", self.issuer, self.sub),
            &[("Content-Type", "application/json")],
            serde_json::json!({ "upload": jws, "image": image })
                .to_string()
                .as_bytes(),
        )
    }

    /// What the app reads after scanning `payload`, proving which identity scans (the
    /// `Scanid-Proof` header).
    pub fn scan(&self, payload: &str) -> Resp {
        let proof = self.scan_proof(payload);
        request(
            "GET",
            payload,
            &[("Accept", "application/json"), ("Scanid-Proof", &proof)],
            b"",
        )
    }

    /// A scan of `payload` without a proof (an app that does not say who scans).
    pub fn scan_anonymously(&self, payload: &str) -> Resp {
        request("GET", payload, &[("Accept", "application/json")], b"")
    }

    /// The `scan+jwt` proving this identity scans `payload`.
    pub fn scan_proof(&self, payload: &str) -> String {
        let p = params_of(payload);
        let mut claims = self.request_claims();
        claims["session"] = serde_json::json!(p.get("session"));
        claims["challenge"] = serde_json::json!(p.get("challenge"));
        Self::sign(&self.key, "scan+jwt", &claims)
    }

    /// The signed approval JWS for a payload, naming `number` (the one the login page shows;
    /// `None`: no `number` claim).
    pub fn approval(&self, payload: &str, decision: &str, number: Option<u8>) -> String {
        let p = params_of(payload);
        let now = Self::now();
        let mut claims = serde_json::json!({
            "sub": self.sub, "session": p["session"], "challenge": p["challenge"], "decision": decision,
            "aud": self.issuer, "iat": now, "exp": now + 120, "jti": Self::jti(),
        });
        if let Some(n) = number {
            claims["number"] = serde_json::json!(n);
        }
        Self::sign(&self.key, "approval+jwt", &claims)
    }

    /// Posts an approval JWS for `session`.
    pub fn post_decision(&self, session: &str, jws: &str) -> Resp {
        request(
            "POST",
            &format!("{}/app/login-sessions/{session}", self.issuer),
            &[("Content-Type", "application/json")],
            serde_json::json!({ "approval": jws })
                .to_string()
                .as_bytes(),
        )
    }

    /// A device-key rotation whose request (signed by the old key) and proof (signed by a new
    /// key) carry the same `jti`: what the service answers.
    pub fn rotate_key_sharing_one_jti(&self) -> Resp {
        let (new_key, new_pk) = Self::key();
        let now = Self::now();
        let base = serde_json::json!({
            "sub": self.sub, "aud": self.issuer, "iat": now, "exp": now + 120, "jti": Self::jti(),
        });
        let mut claims = base.clone();
        claims["public_key"] = serde_json::json!(new_pk);
        claims["proof"] = serde_json::json!(Self::sign(&new_key, "key-proof+jwt", &base));
        let jws = Self::sign(&self.key, "key-rotation+jwt", &claims);
        request(
            "POST",
            &format!("{}/app/identities/{}/key", self.issuer, self.sub),
            &[("Content-Type", "application/json")],
            serde_json::json!({ "rotation": jws })
                .to_string()
                .as_bytes(),
        )
    }

    /// Scans and decides, as the phone does, picking the number the login page in `browser`
    /// shows.
    pub fn decide(&self, browser: &mut Browser, payload: &str, decision: &str) -> Resp {
        let scanned = self.scan(payload);
        assert_eq!(scanned.status, 200, "scan: {}", scanned.text());
        let number = number_shown(browser, payload);
        let jws = self.approval(payload, decision, number);
        self.post_decision(&params_of(payload)["session"], &jws)
    }
}

/// A complete PNG of `width` × `height` (RGB, black), as an encoder writes it.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, width, height);
    e.set_color(png::ColorType::Rgb);
    e.set_depth(png::BitDepth::Eight);
    let mut w = e.write_header().unwrap();
    w.write_image_data(&vec![0; width as usize * height as usize * 3])
        .unwrap();
    w.finish().unwrap();
    out
}

/// The SHA-256 of `bytes`, base64url (what a photo upload signs).
pub fn sha256_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes).as_ref())
}

/// The JPEG decompression bomb of issue 25 (item 3): 65 KB whose frame header (SOF0) says
/// 20000 × 20000, hidden behind a standalone TEM marker (`FF 01`, no length). A parser that
/// reads a length after every marker takes the SOF's own `FF C0` for a length, jumps 65 KB
/// on and finds a decoy SOF0 of 16 × 16 inside a comment; libjpeg (every browser) skips the
/// TEM and reads the real frame header.
pub fn jpeg_bomb() -> Vec<u8> {
    let sof = |w: u16, h: u16| {
        let mut s = vec![0xFF, 0xC0, 0, 17, 8];
        s.extend_from_slice(&h.to_be_bytes());
        s.extend_from_slice(&w.to_be_bytes());
        s.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
        s
    };
    let mut b = vec![0xFF, 0xD8];
    b.extend_from_slice(&[0xFF, 0xE0, 0, 16]);
    b.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    let tem = b.len();
    b.extend_from_slice(&[0xFF, 0x01]);
    b.extend_from_slice(&sof(20000, 20000));
    // A comment that, for libjpeg, hides the decoy the naive reading lands on.
    let decoy_at = tem + 2 + 0xFFC0;
    let com = b.len();
    let com_len = decoy_at + 19 + 16 - (com + 2);
    b.extend_from_slice(&[0xFF, 0xFE]);
    b.extend_from_slice(&u16::try_from(com_len).unwrap().to_be_bytes());
    b.resize(decoy_at, b'x');
    b.extend_from_slice(&sof(16, 16));
    b.resize(com + 2 + com_len, b'x');
    b.extend_from_slice(&[0xFF, 0xD9]);
    b
}

/// The sign-up request body for registration `claims`, signed by `key`.
pub fn registration_body(
    key: &aws_lc_rs::signature::EcdsaKeyPair,
    claims: &serde_json::Value,
) -> Vec<u8> {
    serde_json::json!({ "registration": TestApp::sign(key, "registration+jwt", claims) })
        .to_string()
        .into_bytes()
}

/// A sign-up (`POST /app/identities`) with `body`, from `source` when given (sent as
/// `X-Forwarded-For`, for a server started with `--trusted-proxy 127.0.0.1`).
pub fn signup(s: &TestServer, source: Option<&str>, body: &[u8]) -> Resp {
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(src) = source {
        headers.push(("X-Forwarded-For", src));
    }
    request(
        "POST",
        &format!("{}/app/identities", s.issuer),
        &headers,
        body,
    )
}

/// The login page's status poll (`GET {issuer}/login-actions/status?session=`) in `browser`,
/// the one that opened the login of `payload`.
pub fn login_status(browser: &mut Browser, payload: &str) -> Resp {
    let issuer = payload.split("/app/scan?").next().unwrap_or(payload);
    browser.get(&format!(
        "{issuer}/login-actions/status?session={}",
        params_of(payload)["session"]
    ))
}

/// `scanid ARGS` (the reference app's `approve`, `ARGS` ending in `payload`), answering its
/// number prompt as a person does: with the number `browser`'s login page shows once the app
/// has scanned. The whole output, as `scanid` returns it.
pub fn approve_picking(args: &[&str], browser: &mut Browser, payload: &str) -> Output {
    let mut app = Command::new(scanid_bin())
        .args(args)
        .envs(aws_env())
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(app.stderr.take().unwrap());
    let mut said = String::new();
    let mut line = String::new();
    // Until it asks (or ends without asking: a refusal, a deny, a device's code).
    while !said.contains("Which number") && err.read_line(&mut line).unwrap_or(0) > 0 {
        said.push_str(&line);
        line.clear();
    }
    if said.contains("Which number") {
        let n = number_shown(browser, payload).map(|n| n.to_string());
        let mut stdin = app.stdin.take().unwrap();
        let _ = writeln!(stdin, "{}", n.unwrap_or_default());
    }
    drop(app.stdin.take());
    let mut rest = String::new();
    let _ = err.read_to_string(&mut rest);
    let mut out = app.wait_with_output().unwrap();
    out.stderr = format!("{said}{rest}").into_bytes();
    out
}

/// The number the login page in `browser` shows once the app has scanned (its status poll's
/// `number`), as the person reads it off the screen.
pub fn number_shown(browser: &mut Browser, payload: &str) -> Option<u8> {
    let r = login_status(browser, payload);
    assert_eq!(r.status, 200, "status poll: {}", r.text());
    r.json()["number"]
        .as_u64()
        .and_then(|n| u8::try_from(n).ok())
}

/// The QR codes a login page carries for the next seconds (`#qr-ahead`, or a status poll's
/// `challenges`): `(unix ms when it is shown, app link)`, in order.
pub fn codes_ahead(v: &serde_json::Value) -> Vec<(i64, String)> {
    v["challenges"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .filter_map(|c| {
                    let at = c["at"].as_str()?;
                    let ms = rfc3339_millis(at)?;
                    Some((ms, c["app_link"].as_str()?.to_owned()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The `#qr-ahead` data of a login page's HTML (see [`codes_ahead`]).
pub fn page_codes(html: &str) -> Vec<(i64, String)> {
    let start = "<script type=\"application/json\" id=\"qr-ahead\">";
    let Some(at) = html.find(start) else {
        return Vec::new();
    };
    let rest = &html[at + start.len()..];
    let json = &rest[..rest.find("</script>").unwrap_or(rest.len())];
    serde_json::from_str(json)
        .map(|v| codes_ahead(&v))
        .unwrap_or_default()
}

/// The code a login page shows at unix time `now_ms` (as its script draws it), if it still
/// has one: the last whose time has come, if that was less than a second ago.
pub fn code_at(codes: &[(i64, String)], now_ms: i64) -> Option<String> {
    codes
        .iter()
        .rev()
        .find(|(at, _)| *at <= now_ms)
        .filter(|(at, _)| now_ms - at < 1000)
        .map(|(_, link)| link.clone())
}

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis(),
    )
    .unwrap_or(i64::MAX)
}

/// Unix milliseconds of an RFC 3339 UTC time with milliseconds (`2026-11-24T22:15:30.123Z`).
pub fn rfc3339_millis(s: &str) -> Option<i64> {
    let n = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + n(11..13)? * 3600 + n(14..16)? * 60 + n(17..19)?;
    Some(secs * 1000 + n(20..23)?)
}

/// Opens the authorization URL; returns the QR page and its app link.
pub fn open(b: &mut Browser, url: &str) -> (Resp, String) {
    let page = b.get(url);
    assert_eq!(page.status, 200, "{}", page.text());
    let payload =
        attr(&page.text(), "id=\"app-link\"", "data-qr-payload").expect("data-qr-payload");
    (page, payload)
}

/// The consent page of the login session in `payload`.
pub fn consent_url(s: &TestServer, payload: &str) -> String {
    format!(
        "{}/login-actions/consent?session={}",
        s.issuer,
        params_of(payload)["session"]
    )
}

/// Approve on the phone, then allow on the consent page (unless consent is remembered): the
/// response that sends the browser back to the client.
pub fn login(b: &mut Browser, s: &TestServer, app: &TestApp, url: &str) -> Resp {
    let (_, payload) = open(b, url);
    assert_eq!(app.decide(b, &payload, "approve").status, 200);
    let page = b.get(&consent_url(s, &payload));
    let html = page.text();
    let Some(csrf) = attr(&html, "name=\"csrf\"", "value") else {
        return page;
    };
    let session = params_of(&payload)["session"].clone();
    b.post_form(
        &format!("{}/login-actions/consent", s.issuer),
        &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
    )
}

/// The `Location` header (panics if absent).
pub fn location(r: &Resp) -> String {
    r.header("location")
        .unwrap_or_else(|| panic!("no Location ({}): {}", r.status, r.text()))
        .to_owned()
}

/// A silent authorization request (`prompt=none`) in browser `b`: the `error` it comes back with
/// (empty when it succeeded).
pub fn silent_login_error(b: &mut Browser, s: &TestServer, client: &str, redirect: &str) -> String {
    let r = b.get(&auth_url(
        s,
        &[
            ("client_id", client),
            ("redirect_uri", redirect),
            ("response_type", "code"),
            ("state", "s"),
            ("nonce", "n"),
            ("prompt", "none"),
        ],
    ));
    params_of(&location(&r)).remove("error").unwrap_or_default()
}

/// An authorization URL for `pairs`.
pub fn auth_url<K: AsRef<str>, V: AsRef<str>>(s: &TestServer, pairs: &[(K, V)]) -> String {
    let q = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    format!("{}/protocol/openid-connect/auth?{q}", s.issuer)
}

/// `Authorization: Basic` for a client, as RFC 6749 section 2.3.1 encodes it (id and secret
/// form-urlencoded first).
pub fn basic_auth(id: &str, secret: &str) -> String {
    use base64::Engine;
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", enc(id), enc(secret)))
    )
}

/// Posts a form with optional HTTP Basic client authentication.
pub fn post_form(url: &str, basic: Option<(&str, &str)>, pairs: &[(&str, &str)]) -> Resp {
    post_form_with(url, &[], basic, pairs)
}

/// [`post_form`] with extra headers (an `Origin`, an `X-Forwarded-For`).
pub fn post_form_with(
    url: &str,
    headers: &[(&str, &str)],
    basic: Option<(&str, &str)>,
    pairs: &[(&str, &str)],
) -> Resp {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    let auth = basic.map(|(id, secret)| basic_auth(id, secret));
    let mut all = vec![("Content-Type", "application/x-www-form-urlencoded")];
    if let Some(a) = &auth {
        all.push(("Authorization", a.as_str()));
    }
    all.extend_from_slice(headers);
    request("POST", url, &all, body.as_bytes())
}

/// The authorization-code grant for confidential client `(id, secret)` of a code issued for
/// [`CB`]: the token response.
pub fn exchange_code(s: &TestServer, client: (&str, &str), code: &str) -> Resp {
    post_form(
        &s.oidc("token"),
        Some(client),
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", CB),
        ],
    )
}

/// [`exchange_code`], asserting 200: the tokens.
pub fn redeem(s: &TestServer, client: (&str, &str), code: &str) -> serde_json::Value {
    let r = exchange_code(s, client, code);
    assert_eq!(
        r.status,
        200,
        "redeeming a code of {}: {}",
        client.0,
        r.text()
    );
    r.json()
}

/// The userinfo endpoint with `token` as a bearer token.
pub fn userinfo(s: &TestServer, token: &str) -> Resp {
    let auth = format!("Bearer {token}");
    request("GET", &s.oidc("userinfo"), &[("Authorization", &auth)], b"")
}

/// Introspects `token` as confidential client `(id, secret)`, asserting 200: the answer.
pub fn introspect(s: &TestServer, client: (&str, &str), token: &str) -> serde_json::Value {
    let r = post_form(&s.oidc("introspect"), Some(client), &[("token", token)]);
    assert_eq!(r.status, 200, "introspection by {}: {}", client.0, r.text());
    r.json()
}

/// The `code` of the authorization response `r` sends the browser to (panics without one).
pub fn code_of(r: &Resp) -> String {
    let loc = location(r);
    params_of(&loc)
        .remove("code")
        .unwrap_or_else(|| panic!("no code in {loc}"))
}

/// Decodes a JWT's payload without verifying it (tests verify with independent libraries).
pub fn jwt_claims(token: &str) -> serde_json::Value {
    jwt_part(token, 1)
}

/// The decoded (unverified) header of a JWT.
pub fn jwt_header(token: &str) -> serde_json::Value {
    jwt_part(token, 0)
}

fn jwt_part(token: &str, n: usize) -> serde_json::Value {
    use base64::Engine;
    let payload = token.split('.').nth(n).expect("a JWT");
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap()
}

/// A back-channel logout receiver on loopback answering `status` to every request: its URL
/// (`http://127.0.0.1:PORT/bcl`), and each whole request (head and body) as it arrives.
pub fn post_receiver(status: u16) -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/bcl", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while let Ok(n) = s.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_string();
                if let Some((head, body)) = text.split_once("\r\n\r\n") {
                    let len = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if body.len() >= len {
                        let _ = tx.send(text);
                        break;
                    }
                }
            }
            let _ = s.write_all(
                format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .as_bytes(),
            );
        }
    });
    (url, rx)
}

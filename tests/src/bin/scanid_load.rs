//! `scanid-load`: the load driver of the stateful benchmarks (`infra/bench/run.sh`) and the soak
//! (`infra/soak.sh`). A test tool, not part of the service.
//!
//! - `seed`: authorization codes in bulk for the code-exchange benchmark, issued through the use
//!   case the consent step ends with (`usecase::login::complete`) for an identity signed up
//!   through `usecase::app::signup`, on the store the `SCANID_*` environment names (the data
//!   dir of a running `scanid serve`). One code per line on stdout.
//! - `logins`: whole QR logins back to back on `--concurrency` workers: the authorization page,
//!   the app's scan and signed approval (ES256 device keys, signed as the reference app signs),
//!   the page's status poll, the consent page and its form, and the code exchange. Prints one
//!   JSON summary.
//! - `mixed`: the soak's mix (10% whole logins, 40% refresh-token grants, 25% introspection,
//!   25% userinfo), either back to back (`--rate` absent: capacity) or started at `--rate` per
//!   second whatever the latency (open loop). Prints one JSON line per `--interval` with the
//!   latency of every HTTP request in it, the server's RSS (`--pid`) and the data dir's size.
//!
//! Every answer is checked; an unexpected one is counted in `errors` and printed once.
#![allow(
    clippy::disallowed_methods,
    reason = "a load driver: it paces requests on its own threads and reads the wall clock"
)]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use serde_json::{json, Value};

use scanid_tests::{attr, basic_auth, code_at, now_ms, page_codes, params_of, TestApp, CB};

#[derive(Parser)]
#[command(name = "scanid-load")]
struct Cli {
    /// The driver's worker threads (0: one per core, tokio's default). On a machine the server
    /// shares, one thread keeps the driver to one core at most (`infra/bench/run.sh` does so for
    /// `logins`).
    #[arg(long, global = true, default_value_t = 0)]
    threads: usize,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Issue authorization codes in bulk on the store the SCANID_* environment names.
    Seed(SeedArgs),
    /// Whole QR logins as fast as they go.
    Logins(LoginsArgs),
    /// The soak's mixed load: back to back, or at a fixed rate.
    Mixed(MixedArgs),
}

#[derive(Args)]
struct SeedArgs {
    #[arg(long)]
    client_id: String,
    #[arg(long, default_value = CB)]
    redirect_uri: String,
    #[arg(long, default_value = "openid profile")]
    scope: String,
    /// How many codes.
    #[arg(long)]
    count: usize,
}

#[derive(Args, Clone)]
struct Target {
    /// The issuer, e.g. http://127.0.0.1:8080/realms/scanid.
    #[arg(long)]
    issuer: String,
    /// A confidential client allowed `redirect_uri`.
    #[arg(long)]
    client_id: String,
    #[arg(long)]
    secret: String,
    #[arg(long, default_value = CB)]
    redirect_uri: String,
    /// How many app identities to sign up and share among the logins.
    #[arg(long, default_value_t = 8)]
    apps: usize,
}

#[derive(Args)]
struct LoginsArgs {
    #[command(flatten)]
    target: Target,
    #[arg(long, default_value_t = 10)]
    secs: u64,
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// The server's process id: its CPU time per login is reported (`server_cpu_ms_per_login`).
    #[arg(long)]
    pid: Option<u32>,
}

#[derive(Args)]
struct MixedArgs {
    #[command(flatten)]
    target: Target,
    #[arg(long, default_value_t = 60)]
    secs: u64,
    /// Operations started per second (open loop); absent: back to back on --concurrency workers.
    #[arg(long)]
    rate: Option<f64>,
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// Seconds per report line.
    #[arg(long, default_value_t = 60)]
    interval: u64,
    /// The server's process id, for its resident memory.
    #[arg(long)]
    pid: Option<u32>,
    /// The server's data dir, for its size.
    #[arg(long)]
    data_dir: Option<std::path::PathBuf>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if cli.threads > 0 {
        rt.worker_threads(cli.threads);
    }
    let rt = match rt.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("scanid-load: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let done = rt.block_on(async {
        match cli.cmd {
            Cmd::Seed(a) => seed(a).await,
            Cmd::Logins(a) => logins(a).await,
            Cmd::Mixed(a) => mixed(a).await,
        }
    });
    match done {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("scanid-load: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

// ---- seed -------------------------------------------------------------------------------------

async fn seed(a: SeedArgs) -> Result<(), String> {
    use scanid_core::config::{RawSettings, Settings};
    use scanid_core::domain::authorize;
    use scanid_core::domain::ratelimit::Source;
    use scanid_core::protocol::Params;
    use scanid_core::store::ClientStore;
    use scanid_core::usecase::{app, login};

    let settings = Settings::from_raw(&RawSettings::from_env()).map_err(|e| e.to_string())?;
    let ctx = Arc::new(
        scanid_server::open::context(settings)
            .await
            .map_err(|e| e.to_string())?,
    );
    let now = ctx.clock.now();
    let (client, _) = ctx
        .store
        .client(&a.client_id, now)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no client {:?}", a.client_id))?;
    // An identity, signed up the way the app signs up.
    let (key, public_key) = TestApp::key();
    let name = format!("bench-{}-{}", std::process::id(), now.secs());
    let claims = json!({
        "name": name, "display_name": "Bench", "country_code": "SE", "public_key": public_key,
        "aud": ctx.settings.issuer(), "iat": now.secs(), "exp": now.secs() + 120,
        "jti": TestApp::jti(),
    });
    let registration = TestApp::sign(&key, "registration+jwt", &claims);
    let identity = app::signup(&ctx, &registration, &Source::from_addr("127.0.0.1"))
        .await
        .map_err(|e| format!("sign-up: {e}"))?;
    let params = Params::from_pairs(
        [
            ("client_id", a.client_id.as_str()),
            ("redirect_uri", a.redirect_uri.as_str()),
            ("response_type", "code"),
            ("scope", a.scope.as_str()),
            ("nonce", "n"),
            ("state", "s"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned())),
    );
    let issuer = ctx.settings.issuer();
    let policy = authorize::Policy {
        require_nonce: ctx.settings.require_nonce,
        resources: &ctx.settings.resources,
        issuer: &issuer,
        now: ctx.clock.now(),
        signing_alg: ctx.settings.signing_alg,
    };
    let req = authorize::validate_with(&params, Some(&client), &policy)
        .map_err(|e| format!("the authorization request: {e:?}"))?;
    // A few writers at once, each in its own SSO session: the store's writer queue stays full.
    let workers = 8.min(a.count.max(1));
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..workers {
        let n = a.count / workers + usize::from(w < a.count % workers);
        let (ctx, req, sub) = (ctx.clone(), req.clone(), identity.sub.clone());
        tasks.spawn(async move {
            let mut sid = None;
            let mut codes = Vec::with_capacity(n);
            for _ in 0..n {
                let now = ctx.clock.now();
                let who = scanid_core::domain::login::Authenticated {
                    sub: sub.clone(),
                    auth_time: now,
                    method: Default::default(),
                };
                let done = login::complete(&ctx, &req, &who, sid.clone(), None, None)
                    .await
                    .map_err(|e| format!("issuing a code: {e}"))?;
                let param = |name: &str| {
                    done.response
                        .params
                        .iter()
                        .find(|(k, _)| *k == name)
                        .map(|(_, v)| v.clone())
                };
                sid = param("session_state").map(scanid_core::protocol::SessionId::new);
                codes.push(param("code").ok_or("no code in the response")?);
            }
            Ok::<_, String>(codes)
        });
    }
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    while let Some(joined) = tasks.join_next().await {
        for code in joined.map_err(|e| e.to_string())?? {
            writeln!(out, "{code}").map_err(|e| e.to_string())?;
        }
    }
    out.flush().map_err(|e| e.to_string())
}

// ---- the HTTP side ----------------------------------------------------------------------------

/// Request latencies (µs) and unexpected answers since the last report.
#[derive(Default)]
struct Window {
    latencies: Vec<u32>,
    errors: u64,
    /// Bytes of the answers' bodies.
    bytes: u64,
}

struct Driver {
    http: reqwest::Client,
    t: Target,
    basic: String,
    apps: Vec<TestApp>,
    window: Mutex<Window>,
    reported_error: AtomicBool,
}

struct Answer {
    status: u16,
    cookies: Vec<String>,
    location: Option<String>,
    body: String,
}

impl Driver {
    async fn new(t: Target) -> Result<Arc<Self>, String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(256)
            // Below `scanid serve`'s 10 s for a kept-alive connection's next request
            // (`--head-timeout-secs`): a connection the server is closing just as the driver
            // sends on it fails the request (two introspections failed so in a 10-minute
            // soak: the open loop's bursts open connections that may then sit idle).
            .pool_idle_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| e.to_string())?;
        let mut d = Self {
            http,
            basic: basic_auth(&t.client_id, &t.secret),
            t,
            apps: Vec::new(),
            window: Mutex::default(),
            reported_error: AtomicBool::new(false),
        };
        for i in 0..d.t.apps {
            let app = d.enroll(i).await?;
            d.apps.push(app);
        }
        d.window = Mutex::default();
        Ok(Arc::new(d))
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.t.issuer)
    }

    /// Sends `req`, timing it: the answer, or why there was none.
    async fn send(&self, req: reqwest::RequestBuilder) -> Result<Answer, String> {
        let started = Instant::now();
        let r = req.send().await.map_err(|e| format!("no answer: {e}"))?;
        let status = r.status().as_u16();
        let header = |name| {
            r.headers()
                .get_all(name)
                .iter()
                .filter_map(|v| v.to_str().ok().map(str::to_owned))
                .collect::<Vec<_>>()
        };
        let cookies = header(reqwest::header::SET_COOKIE);
        let location = header(reqwest::header::LOCATION).into_iter().next();
        let body = r.text().await.map_err(|e| format!("reading: {e}"))?;
        let micros = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
        if let Ok(mut w) = self.window.lock() {
            w.latencies.push(micros);
            w.bytes += body.len() as u64;
        }
        Ok(Answer {
            status,
            cookies,
            location,
            body,
        })
    }

    /// [`Self::send`], expecting `status`.
    async fn expect(
        &self,
        what: &str,
        status: u16,
        req: reqwest::RequestBuilder,
    ) -> Result<Answer, String> {
        let a = self.send(req).await.map_err(|e| format!("{what}: {e}"))?;
        if a.status != status {
            let body: String = a.body.chars().take(300).collect();
            return Err(format!("{what}: {} (expected {status}): {body}", a.status));
        }
        Ok(a)
    }

    fn form(&self, path: &str, pairs: &[(&str, &str)]) -> reqwest::RequestBuilder {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        self.http
            .post(self.url(path))
            .header("Authorization", &self.basic)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body)
    }

    fn failed(&self, e: &str) {
        if let Ok(mut w) = self.window.lock() {
            w.errors += 1;
        }
        if !self.reported_error.swap(true, Ordering::SeqCst) {
            eprintln!("scanid-load: first error: {e}");
        }
    }

    async fn enroll(&self, i: usize) -> Result<TestApp, String> {
        let (key, public_key) = TestApp::key();
        let now = TestApp::now();
        let name = format!("load-{}-{i}-{now}", std::process::id());
        let claims = json!({
            "name": name, "display_name": format!("Load {i}"), "country_code": "SE",
            "public_key": public_key, "aud": self.t.issuer, "iat": now, "exp": now + 120,
            "jti": TestApp::jti(),
        });
        let body = json!({ "registration": TestApp::sign(&key, "registration+jwt", &claims) });
        let a = self
            .expect(
                "sign-up",
                201,
                self.http.post(self.url("app/identities")).json(&body),
            )
            .await?;
        let v: Value = serde_json::from_str(&a.body).map_err(|e| e.to_string())?;
        Ok(TestApp {
            key,
            public_key,
            sub: v["sub"].as_str().unwrap_or_default().to_owned(),
            service_id: v["service_id"].as_str().unwrap_or_default().to_owned(),
            issuer: self.t.issuer.clone(),
        })
    }

    /// One whole QR login by app `app`, ending with the code exchange: the token response.
    async fn login(&self, app: usize) -> Result<Value, String> {
        let q = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs([
                ("client_id", self.t.client_id.as_str()),
                ("redirect_uri", self.t.redirect_uri.as_str()),
                ("response_type", "code"),
                ("scope", "openid profile"),
                ("state", "st"),
                ("nonce", "n"),
                ("prompt", "login consent"),
            ])
            .finish();
        let page = self
            .expect(
                "authorization page",
                200,
                self.http
                    .get(self.url(&format!("protocol/openid-connect/auth?{q}"))),
            )
            .await?;
        let cookie = page
            .cookies
            .iter()
            .filter_map(|c| c.split(';').next())
            .collect::<Vec<_>>()
            .join("; ");
        // The code the page shows when the phone scans (it redraws it every second).
        let codes = page_codes(&page.body);
        let payload = code_at(&codes, now_ms())
            .or_else(|| attr(&page.body, "id=\"app-link\"", "data-qr-payload"))
            .ok_or("the page has no QR payload")?;
        let status_url = attr(&page.body, "id=\"state\"", "data-status-url")
            .ok_or("the page has no status URL")?;
        let status_url = if status_url.starts_with('/') {
            let origin = url::Url::parse(&self.t.issuer).map_err(|e| e.to_string())?;
            format!("{}{status_url}", origin.origin().ascii_serialization())
        } else {
            status_url
        };
        // The page's polls say which codes it has (the last one's second): the server draws
        // none of them again (app protocol §1).
        let status_url = match codes.last() {
            Some((ms, _)) => format!("{status_url}&after={}", ms.div_euclid(1000)),
            None => status_url,
        };
        // The phone: scan (proving who scans), read the number the page shows (its poll),
        // then approve with the device key. A code is accepted for 3 s: when the service is
        // slower than that under load, the person scans the page's new code, as the app says.
        let scan = |payload: &str| {
            self.http
                .get(payload)
                .header("Accept", "application/json")
                .header("Scanid-Proof", self.apps[app].scan_proof(payload))
        };
        let first = self
            .send(scan(&payload))
            .await
            .map_err(|e| format!("app scan: {e}"))?;
        let payload = if first.status == 404 {
            let now = self
                .expect(
                    "status poll",
                    200,
                    self.http.get(&status_url).header("Cookie", &cookie),
                )
                .await?;
            let again = serde_json::from_str::<serde_json::Value>(&now.body)
                .ok()
                .and_then(|v| v["app_link"].as_str().map(str::to_owned))
                .ok_or_else(|| format!("the page shows no code: {}", now.body))?;
            self.expect("app scan", 200, scan(&again)).await?;
            again
        } else if first.status != 200 {
            let body: String = first.body.chars().take(300).collect();
            return Err(format!("app scan: {} (expected 200): {body}", first.status));
        } else {
            payload
        };
        // The page's polls say what it shows (`seen`): under `scanid serve` each is held until
        // the login changes, which it already has here.
        let shown = self
            .expect(
                "status poll",
                200,
                self.http
                    .get(format!("{status_url}&seen=code"))
                    .header("Cookie", &cookie),
            )
            .await?;
        let number = serde_json::from_str::<serde_json::Value>(&shown.body)
            .ok()
            .and_then(|v| v["number"].as_u64())
            .and_then(|n| u8::try_from(n).ok())
            .ok_or_else(|| format!("the page shows no number: {}", shown.body))?;
        let session = params_of(&payload)
            .remove("session")
            .ok_or("no session in the QR payload")?;
        let approval = self.apps[app].approval(&payload, "approve", Some(number));
        self.expect(
            "app decision",
            200,
            self.http
                .post(self.url(&format!("app/login-sessions/{session}")))
                .json(&json!({ "approval": approval })),
        )
        .await?;
        // The page's next poll sees the approval.
        let s = self
            .expect(
                "status poll",
                200,
                self.http
                    .get(format!("{status_url}&seen=number"))
                    .header("Cookie", &cookie),
            )
            .await?;
        if !s.body.contains("approved") {
            return Err(format!("status poll after approval: {}", s.body));
        }
        let consent = self
            .expect(
                "consent page",
                200,
                self.http
                    .get(self.url(&format!("login-actions/consent?session={session}")))
                    .header("Cookie", &cookie),
            )
            .await?;
        let csrf = attr(&consent.body, "name=\"csrf\"", "value").ok_or("no consent form")?;
        let form = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs([
                ("session", session.as_str()),
                ("csrf", csrf.as_str()),
                ("consent", "allow"),
            ])
            .finish();
        let done = self
            .expect(
                "consent",
                303,
                self.http
                    .post(self.url("login-actions/consent"))
                    .header("Cookie", &cookie)
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .body(form),
            )
            .await?;
        let code = done
            .location
            .as_deref()
            .and_then(|l| params_of(l).remove("code"))
            .ok_or("no code after consent")?;
        let tokens = self
            .expect(
                "code exchange",
                200,
                self.form(
                    "protocol/openid-connect/token",
                    &[
                        ("grant_type", "authorization_code"),
                        ("code", &code),
                        ("redirect_uri", &self.t.redirect_uri),
                    ],
                ),
            )
            .await?;
        serde_json::from_str(&tokens.body).map_err(|e| format!("token response: {e}"))
    }

    fn take_window(&self) -> Window {
        self.window
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }
}

/// The `p`th percentile (0..=100) of sorted `v`, in milliseconds.
fn pct(v: &[u32], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let i = ((v.len() - 1) as f64 * p / 100.0).round() as usize;
    f64::from(v[i.min(v.len() - 1)]) / 1000.0
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

// ---- logins -----------------------------------------------------------------------------------

async fn logins(a: LoginsArgs) -> Result<(), String> {
    let d = Driver::new(a.target).await?;
    let deadline = Instant::now() + Duration::from_secs(a.secs);
    let started = Instant::now();
    let me = std::process::id();
    let (server_before, driver_before) = (a.pid.and_then(cpu_secs), cpu_secs(me));
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..a.concurrency {
        let d = d.clone();
        tasks.spawn(async move {
            let mut times = Vec::new();
            let mut i = w;
            while Instant::now() < deadline {
                let t = Instant::now();
                match d.login(i % d.apps.len()).await {
                    Ok(_) => times.push(u32::try_from(t.elapsed().as_micros()).unwrap_or(u32::MAX)),
                    Err(e) => d.failed(&e),
                }
                i += a.concurrency;
            }
            times
        });
    }
    let mut times = Vec::new();
    while let Some(t) = tasks.join_next().await {
        times.extend(t.map_err(|e| e.to_string())?);
    }
    let secs = started.elapsed().as_secs_f64();
    // CPU per login, the server's and the driver's (both on the same cores): whether a slower
    // run did more work a login or ran on a slower (busier) machine.
    let per_login = |pid: u32, before: Option<f64>| {
        let spent = cpu_secs(pid)? - before?;
        Some(round2(spent * 1000.0 / times.len().max(1) as f64))
    };
    let server_ms = a.pid.and_then(|pid| per_login(pid, server_before));
    let driver_ms = per_login(me, driver_before);
    times.sort_unstable();
    let mut w = d.take_window();
    w.latencies.sort_unstable();
    println!(
        "{}",
        json!({
            "logins": times.len(),
            "logins_per_sec": round2(times.len() as f64 / secs),
            "login_p50_ms": round2(pct(&times, 50.0)),
            "login_p99_ms": round2(pct(&times, 99.0)),
            "requests": w.latencies.len(),
            "bytes_per_login": (w.bytes as f64 / times.len().max(1) as f64).round(),
            "request_p50_ms": round2(pct(&w.latencies, 50.0)),
            "request_p99_ms": round2(pct(&w.latencies, 99.0)),
            "errors": w.errors,
            "server_cpu_ms_per_login": server_ms,
            "driver_cpu_ms_per_login": driver_ms,
        })
    );
    if w.errors > 0 {
        return Err(format!("{} logins failed", w.errors));
    }
    Ok(())
}

// ---- mixed ------------------------------------------------------------------------------------

/// A refresh family the mix keeps using: its newest tokens.
struct Family {
    refresh: String,
    access: String,
    born: Instant,
}

/// Families retire before their refresh token, SSO session or access token could lapse on a
/// server run with the soak's one-minute lifetimes.
const FAMILY_AGE: Duration = Duration::from_secs(45);
const FAMILIES: usize = 256;

struct Mix {
    d: Arc<Driver>,
    families: Mutex<VecDeque<Family>>,
    next: AtomicU64,
}

impl Mix {
    fn family_of(tokens: &Value) -> Result<Family, String> {
        let s = |k: &str| {
            tokens[k]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("no {k} in {tokens}"))
        };
        Ok(Family {
            refresh: s("refresh_token")?,
            access: s("access_token")?,
            born: Instant::now(),
        })
    }

    fn keep(&self, f: Family) {
        if let Ok(mut fs) = self.families.lock() {
            fs.push_back(f);
            while fs.len() > FAMILIES {
                fs.pop_front();
            }
        }
    }

    /// A live family, taken out of the pool (the caller puts it back, or lets it retire).
    fn take(&self) -> Option<Family> {
        let mut fs = self.families.lock().ok()?;
        while let Some(f) = fs.pop_front() {
            if f.born.elapsed() < FAMILY_AGE {
                return Some(f);
            }
        }
        None
    }

    fn access_token(&self) -> Option<String> {
        let fs = self.families.lock().ok()?;
        fs.iter()
            .rev()
            .find(|f| f.born.elapsed() < FAMILY_AGE)
            .map(|f| f.access.clone())
    }

    /// One operation of the mix.
    async fn op(&self) -> Result<(), String> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let d = &self.d;
        match n % 20 {
            // 10%: a whole login, which starts a family.
            0 | 10 => self.login(n).await,
            // 40%: the refresh grant.
            1..=4 | 11..=14 => match self.take() {
                None => self.login(n).await,
                Some(f) => {
                    let a = d
                        .expect(
                            "refresh",
                            200,
                            d.form(
                                "protocol/openid-connect/token",
                                &[
                                    ("grant_type", "refresh_token"),
                                    ("refresh_token", &f.refresh),
                                ],
                            ),
                        )
                        .await?;
                    let v: Value =
                        serde_json::from_str(&a.body).map_err(|e| format!("refresh: {e}"))?;
                    let mut next = Self::family_of(&v)?;
                    next.born = f.born;
                    self.keep(next);
                    Ok(())
                }
            },
            // 25%: introspection.
            5..=7 | 15 | 16 => match self.access_token() {
                None => self.login(n).await,
                Some(at) => {
                    let a = d
                        .expect(
                            "introspection",
                            200,
                            d.form(
                                "protocol/openid-connect/token/introspect",
                                &[("token", &at)],
                            ),
                        )
                        .await?;
                    if !a.body.contains("\"active\":true") {
                        return Err(format!("introspection: not active: {}", a.body));
                    }
                    Ok(())
                }
            },
            // 25%: userinfo.
            _ => match self.access_token() {
                None => self.login(n).await,
                Some(at) => {
                    d.expect(
                        "userinfo",
                        200,
                        d.http
                            .get(d.url("protocol/openid-connect/userinfo"))
                            .bearer_auth(at),
                    )
                    .await?;
                    Ok(())
                }
            },
        }
    }

    async fn login(&self, n: u64) -> Result<(), String> {
        let app = usize::try_from(n).unwrap_or(0) % self.d.apps.len();
        let tokens = self.d.login(app).await?;
        self.keep(Self::family_of(&tokens)?);
        Ok(())
    }
}

/// The CPU time (user and system, seconds) process `pid` has used: `/proc/<pid>/stat`'s
/// `utime` and `stime`, in Linux's clock ticks (`USER_HZ`, 100 a second on every
/// architecture Linux runs this on).
fn cpu_secs(pid: u32) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count from the parenthesis that ends it.
    let mut f = s.get(s.rfind(')')? + 2..)?.split_whitespace();
    let utime: f64 = f.nth(11)?.parse().ok()?;
    let stime: f64 = f.next()?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn rss_mb(pid: u32) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = s
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

fn dir_mb(dir: &std::path::Path, events: bool) -> Option<f64> {
    let mut total = 0u64;
    for e in std::fs::read_dir(dir).ok()? {
        let e = e.ok()?;
        let m = e.metadata().ok()?;
        let is_events = e.file_name().to_string_lossy().starts_with("events.db");
        if m.is_file() && is_events == events {
            total += m.len();
        }
    }
    Some(total as f64 / 1_048_576.0)
}

async fn mixed(a: MixedArgs) -> Result<(), String> {
    let d = Driver::new(a.target.clone()).await?;
    let mix = Arc::new(Mix {
        d: d.clone(),
        families: Mutex::default(),
        next: AtomicU64::new(0),
    });
    // Families first: with none, every operation of the mix would be a login.
    let mut warm = tokio::task::JoinSet::new();
    for w in 0..16 {
        let mix = mix.clone();
        warm.spawn(async move {
            for n in 0..4 {
                mix.login(w * 4 + n).await?;
            }
            Ok::<_, String>(())
        });
    }
    while let Some(w) = warm.join_next().await {
        w.map_err(|e| e.to_string())??;
    }
    d.take_window();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(a.secs);
    let ops = Arc::new(AtomicU64::new(0));
    let late = Arc::new(AtomicU64::new(0));
    let mut workers = tokio::task::JoinSet::new();
    match a.rate {
        None => {
            for _ in 0..a.concurrency {
                let (mix, ops) = (mix.clone(), ops.clone());
                workers.spawn(async move {
                    while Instant::now() < deadline {
                        if let Err(e) = mix.op().await {
                            mix.d.failed(&e);
                        }
                        ops.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        }
        Some(rate) if rate > 0.0 => {
            // Open loop: an operation starts every 1/rate s; at most 512 in flight (beyond
            // that the server is not keeping up, and the start is counted late and skipped;
            // the server's own limit is 1024 connections).
            let (mix, ops, late) = (mix.clone(), ops.clone(), late.clone());
            workers.spawn(async move {
                let in_flight = Arc::new(tokio::sync::Semaphore::new(512));
                let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
                while Instant::now() < deadline {
                    tick.tick().await;
                    let Ok(permit) = in_flight.clone().try_acquire_owned() else {
                        late.fetch_add(1, Ordering::Relaxed);
                        continue;
                    };
                    let (mix, ops) = (mix.clone(), ops.clone());
                    tokio::spawn(async move {
                        if let Err(e) = mix.op().await {
                            mix.d.failed(&e);
                        }
                        ops.fetch_add(1, Ordering::Relaxed);
                        drop(permit);
                    });
                }
                // Let the last operations finish.
                let _ = in_flight.acquire_many(512).await;
            });
        }
        Some(_) => return Err("--rate must be positive".into()),
    }
    let mut last = Instant::now();
    let mut last_ops = 0;
    let mut failed = 0;
    loop {
        let finished = tokio::time::timeout(Duration::from_secs(a.interval), async {
            while workers.join_next().await.is_some() {}
        })
        .await
        .is_ok();
        let mut w = d.take_window();
        w.latencies.sort_unstable();
        let secs = last.elapsed().as_secs_f64();
        let now_ops = ops.load(Ordering::Relaxed);
        failed += w.errors;
        let row = json!({
            "at_s": started.elapsed().as_secs(),
            "ops_per_sec": round2((now_ops - last_ops) as f64 / secs),
            "requests_per_sec": round2(w.latencies.len() as f64 / secs),
            "p50_ms": round2(pct(&w.latencies, 50.0)),
            "p99_ms": round2(pct(&w.latencies, 99.0)),
            "max_ms": round2(pct(&w.latencies, 100.0)),
            "errors": w.errors,
            "late": late.swap(0, Ordering::Relaxed),
            "rss_mb": a.pid.and_then(rss_mb).map(round2),
            // The stored audit events (events.db) apart: they are kept for days
            // (SCANID_EVENT_RETENTION_DAYS), so they grow with the traffic by design.
            "data_mb": a.data_dir.as_deref().and_then(|d| dir_mb(d, false)).map(round2),
            "events_mb": a.data_dir.as_deref().and_then(|d| dir_mb(d, true)).map(round2),
        });
        println!("{row}");
        last = Instant::now();
        last_ops = now_ops;
        if finished {
            break;
        }
    }
    if failed > 0 {
        return Err(format!("{failed} operations failed"));
    }
    Ok(())
}

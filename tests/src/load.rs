//! A mixed load for the durability tests (`tests/it/crash.rs`, `tests/it/aws_faults.rs`): QR
//! logins through the real flow (authorization page, the app's scan and signed decision, the
//! consent page and its form), code exchanges and refresh-token grants, by worker threads
//! against a running `scanid serve`, with a model of every success the clients were given.
//!
//! The model holds only what a client saw succeed. A request that got no answer (the server
//! was killed mid-request) leaves its item *uncertain*: it may or may not have committed.
//! [`settle`] resolves those after a restart, [`verify`] checks that every acknowledged
//! success still holds (non-destructively, through introspection), and [`sacrifice`] checks
//! what only a destructive request can show (a redeemed code stays spent, a rotated refresh
//! token stays dead) on a few families, which then leave the model.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::{
    attr, basic_auth, code_at, codes_ahead, location, now_ms, page_codes, params_of, try_request,
    Browser, Resp, TestApp, CB,
};

/// SplitMix64: a small seeded generator, so a failing run can be replayed from its seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// An independent generator for a worker, drawn from this one.
    pub fn fork(&mut self) -> Self {
        Self::new(self.next_u64())
    }
}

/// The run's seed: `$SCANID_TEST_SEED` to replay a failure, else a fresh one. Printed (the
/// test harness shows it with a failure).
pub fn seed(test: &str) -> u64 {
    let seed = match std::env::var("SCANID_TEST_SEED") {
        Ok(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("SCANID_TEST_SEED={s:?} is not a u64")),
        Err(_) => {
            let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            t.as_secs() ^ u64::from(t.subsec_nanos()).rotate_left(32)
        }
    };
    eprintln!("{test}: seed {seed} (replay with SCANID_TEST_SEED={seed})");
    seed
}

/// What the load may meet besides success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The server is killed under the load: a request may get no answer, but every answer
    /// is a success.
    Crash,
    /// The server's AWS endpoint fails calls: an answer may also be 503 with `Retry-After`
    /// (the step is tried again later); never a 500.
    Faults,
}

/// The service under load: its issuer and the confidential client the load uses.
#[derive(Debug, Clone)]
pub struct Service {
    pub issuer: String,
    pub client_id: String,
    pub secret: String,
    pub mode: Mode,
}

impl Service {
    fn oidc(&self, name: &str) -> String {
        format!("{}/protocol/openid-connect/{name}", self.issuer)
    }

    fn form(&self, url: &str, pairs: &[(&str, &str)]) -> Result<Resp, String> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        let auth = basic_auth(&self.client_id, &self.secret);
        try_request(
            "POST",
            url,
            &[
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Authorization", &auth),
            ],
            body.as_bytes(),
        )
    }

    fn exchange(&self, code: &str) -> Result<Resp, String> {
        self.form(
            &self.oidc("token"),
            &[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", CB),
            ],
        )
    }

    fn refresh(&self, rt: &str) -> Result<Resp, String> {
        self.form(
            &self.oidc("token"),
            &[("grant_type", "refresh_token"), ("refresh_token", rt)],
        )
    }

    /// Whether introspection says `token` is active (asserting a 200 answer).
    pub fn active(&self, token: &str) -> bool {
        let r = self
            .form(&self.oidc("introspect"), &[("token", token)])
            .unwrap_or_else(|e| panic!("introspection: {e}"));
        assert_eq!(r.status, 200, "introspection: {}", r.text());
        r.json()["active"] == true
    }

    fn auth_url(&self, offline: bool) -> String {
        let scope = if offline {
            "openid profile offline_access"
        } else {
            "openid profile"
        };
        let q = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs([
                ("client_id", self.client_id.as_str()),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("state", "st"),
                ("nonce", "n"),
                ("scope", scope),
                ("prompt", "login consent"),
            ])
            .finish();
        format!("{}/protocol/openid-connect/auth?{q}", self.issuer)
    }

    fn consent_url(&self, payload: &str) -> String {
        format!(
            "{}/login-actions/consent?session={}",
            self.issuer,
            params_of(payload)["session"]
        )
    }

    /// The login page's status poll, in the login's browser.
    fn poll(&self, l: &mut Login) -> Result<Resp, String> {
        let url = format!(
            "{}/login-actions/status?session={}",
            self.issuer,
            params_of(&l.payload)["session"]
        );
        l.browser
            .try_send("GET", &url, &[("Accept", "application/json")], b"")
    }

    /// The phone scans the code the page shows now (it changes every second and is accepted
    /// for 3 s: the page draws it from the codes it was given, or its poll says which it is),
    /// proving who scans.
    fn scan(&self, app: &TestApp, l: &mut Login) -> Result<Resp, String> {
        let mut link = code_at(&l.codes, now_ms());
        if link.is_some() && link == l.scanned_code {
            // The last try (answered 503) may have spent this code: wait for the next one.
            let wait = 1005 - now_ms().rem_euclid(1000);
            std::thread::sleep(Duration::from_millis(u64::try_from(wait).unwrap_or(0)));
            link = code_at(&l.codes, now_ms());
        }
        l.payload = match link {
            Some(link) => link,
            None => {
                let r = self.poll(l)?;
                if r.status != 200 {
                    return Ok(r);
                }
                let v = r.json();
                if l.scanned_code.is_some() && v["number"].is_number() {
                    // The page shows its number: the earlier scan, answered 503, landed.
                    return Ok(r);
                }
                l.codes = codes_ahead(&v);
                v["app_link"]
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("the page shows no code: {}", r.text()))?
            }
        };
        l.scanned_code = Some(l.payload.clone());
        let proof = app.scan_proof(&l.payload);
        try_request(
            "GET",
            &l.payload,
            &[("Accept", "application/json"), ("Scanid-Proof", &proof)],
            b"",
        )
    }

    /// The phone approves, picking the number the page shows.
    fn decide(&self, app: &TestApp, l: &mut Login) -> Result<Resp, String> {
        let r = self.poll(l)?;
        if r.status != 200 {
            return Ok(r);
        }
        let number = r.json()["number"]
            .as_u64()
            .and_then(|n| u8::try_from(n).ok());
        let payload = l.payload.as_str();
        let jws = app.approval(payload, "approve", number);
        try_request(
            "POST",
            &format!(
                "{}/app/login-sessions/{}",
                self.issuer,
                params_of(payload)["session"]
            ),
            &[("Content-Type", "application/json")],
            serde_json::json!({ "approval": jws })
                .to_string()
                .as_bytes(),
        )
    }
}

/// How far a QR login got: the last step whose success the client saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The authorization page (with its QR payload) was served.
    Opened,
    /// The app's scan was answered.
    Scanned,
    /// The app's decision (approve) was accepted.
    Decided,
    /// The consent page (with its form's CSRF token) was served.
    ConsentShown,
}

/// A QR login in progress.
#[derive(Debug)]
pub struct Login {
    browser: Browser,
    app: usize,
    stage: Stage,
    payload: String,
    /// The codes the page shows in the next seconds (it redraws the QR by itself).
    codes: Vec<(i64, String)>,
    csrf: String,
    opened: Instant,
    /// The next step was in flight when the server died.
    uncertain: bool,
    /// The code the last scan presented: spent if that scan landed, even when its answer was
    /// lost (a 503), so a second try waits for the next second's code.
    scanned_code: Option<String>,
}

/// An authorization code the consent form answered with, not yet exchanged.
#[derive(Debug)]
pub struct Code {
    code: String,
    /// Its exchange was in flight when the server died.
    uncertain: bool,
}

/// One grant's token family, as its client knows it.
#[derive(Debug)]
pub struct Family {
    /// The code it was redeemed from.
    pub code: String,
    /// Access tokens issued to it, oldest first.
    pub access: Vec<String>,
    /// Refresh tokens issued to it, oldest first: only the last is live.
    pub refresh: Vec<String>,
    /// When a refresh that got no answer was sent (the newest token may have been rotated
    /// meanwhile; it is accepted again within the grace period).
    uncertain: Option<Instant>,
}

impl Family {
    fn newest(&self) -> &str {
        self.refresh.last().map(String::as_str).unwrap_or_default()
    }
}

/// Counts of what the clients saw.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub logins: u64,
    pub exchanges: u64,
    pub refreshes: u64,
    /// Login steps answered with success (every step, including the completing one).
    pub login_steps: u64,
    /// Requests that got no answer.
    pub unanswered: u64,
    /// 503 answers (with `Retry-After`; only in [`Mode::Faults`]).
    pub unavailable: u64,
    /// Requests answered 503 or not at all that had committed after all (their retry was
    /// refused as a repeat): allowed, as a lost reply may do.
    pub landed: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Self) {
        self.logins += o.logins;
        self.exchanges += o.exchanges;
        self.refreshes += o.refreshes;
        self.login_steps += o.login_steps;
        self.unanswered += o.unanswered;
        self.unavailable += o.unavailable;
        self.landed += o.landed;
    }
}

/// Everything the clients hold.
#[derive(Debug, Default)]
pub struct Model {
    pub logins: Vec<Login>,
    pub codes: Vec<Code>,
    pub families: Vec<Family>,
    pub stats: Stats,
}

impl Model {
    /// Deals the items out to `n` workers (each owns its share while the load runs: no
    /// family is refreshed by two workers at once).
    pub fn split(&mut self, n: usize) -> Vec<Self> {
        let mut parts: Vec<Self> = (0..n).map(|_| Self::default()).collect();
        for (i, l) in self.logins.drain(..).enumerate() {
            parts[i % n].logins.push(l);
        }
        for (i, c) in self.codes.drain(..).enumerate() {
            parts[i % n].codes.push(c);
        }
        for (i, f) in self.families.drain(..).enumerate() {
            parts[i % n].families.push(f);
        }
        parts
    }

    pub fn merge(&mut self, part: Self) {
        self.logins.extend(part.logins);
        self.codes.extend(part.codes);
        self.families.extend(part.families);
        self.stats.add(&part.stats);
    }

    /// Items whose last request got no answer: login steps, code exchanges, refreshes.
    pub fn uncertain(&self) -> [usize; 3] {
        [
            self.logins.iter().filter(|l| l.uncertain).count(),
            self.codes.iter().filter(|c| c.uncertain).count(),
            self.families
                .iter()
                .filter(|f| f.uncertain.is_some())
                .count(),
        ]
    }
}

/// A worker refreshes its newest this many families.
const ACTIVE_FAMILIES: usize = 8;
/// Older logins are not resumed (the phone scans the code the page shows at the time; a code
/// is accepted for 3 s).
const CHALLENGE_FRESH: Duration = Duration::from_secs(8);
/// Inside the refresh grace period (a replaced refresh token is accepted again for 10 s).
const REFRESH_GRACE: Duration = Duration::from_secs(9);

/// What became of one request of the load.
enum Answer {
    Ok(Resp),
    /// 503 with `Retry-After` ([`Mode::Faults`]): try the step again later.
    Unavailable,
    /// No answer: the server is gone.
    Dead,
}

/// Classifies `r` for step `what`: a success status in `ok`, or (in [`Mode::Faults`]) a
/// well-formed 503; anything else fails the test.
fn answer(
    svc: &Service,
    what: &str,
    r: Result<Resp, String>,
    ok: &[u16],
    stats: &mut Stats,
) -> Answer {
    let r = match r {
        Ok(r) => r,
        Err(_) => {
            stats.unanswered += 1;
            return Answer::Dead;
        }
    };
    if ok.contains(&r.status) {
        return Answer::Ok(r);
    }
    if svc.mode == Mode::Faults && r.status == 503 {
        assert!(
            r.header("retry-after").is_some(),
            "{what}: 503 without Retry-After: {}",
            r.text()
        );
        assert!(
            r.header("location").is_none(),
            "{what}: 503 with a redirect"
        );
        let text = r.text();
        assert!(
            !text.contains("access_token") && !text.contains("refresh_token"),
            "{what}: a 503 with tokens: {text}"
        );
        if what == "code exchange" || what == "refresh" {
            assert_eq!(r.json()["error"], "temporarily_unavailable", "{what}");
        }
        stats.unavailable += 1;
        return Answer::Unavailable;
    }
    panic!("{what}: {} {}", r.status, r.text());
}

/// Runs the load on `part` until `stop` is set, the server dies, or `ops` requests were
/// made (when given). Returns whether the server is still answering.
pub fn work(
    svc: &Service,
    apps: &[TestApp],
    part: &mut Model,
    rng: &mut Rng,
    stop: &std::sync::atomic::AtomicBool,
    ops: Option<usize>,
) -> bool {
    let mut done = 0;
    loop {
        if stop.load(std::sync::atomic::Ordering::SeqCst) || ops.is_some_and(|n| done >= n) {
            return true;
        }
        done += 1;
        let alive = if !part.codes.is_empty() {
            exchange_step(svc, part, 0)
        } else if let Some(i) = part.families.iter().position(|f| f.uncertain.is_some()) {
            // A refresh answered 503 may have rotated the token: try again within the grace.
            refresh_step(svc, part, i)
        } else if !part.families.is_empty() && rng.chance(40) {
            // One of this worker's newest families (older ones stay in the model, checked
            // after every restart, but are no longer refreshed).
            let n = part.families.len();
            let pick = usize::try_from(rng.below(n.min(ACTIVE_FAMILIES) as u64)).unwrap();
            refresh_step(svc, part, n - 1 - pick)
        } else {
            login_step(svc, apps, part, rng)
        };
        if !alive {
            return false;
        }
    }
}

/// Runs [`work`] on `workers` threads, each on its share of `model` with its own fork of `rng`,
/// while `meanwhile` runs on this thread (a kill, or nothing); merges the shares back and says,
/// per worker, whether the server answered every request.
pub fn work_in_parallel(
    svc: &Service,
    apps: &[TestApp],
    model: &mut Model,
    rng: &mut Rng,
    workers: usize,
    ops: Option<usize>,
    meanwhile: impl FnOnce(),
) -> Vec<bool> {
    let never = std::sync::atomic::AtomicBool::new(false);
    let parts = model.split(workers);
    let done: Vec<(Model, bool)> = std::thread::scope(|scope| {
        let running: Vec<_> = parts
            .into_iter()
            .map(|mut part| {
                let mut wrng = rng.fork();
                let never = &never;
                scope.spawn(move || {
                    let alive = work(svc, apps, &mut part, &mut wrng, never, ops);
                    (part, alive)
                })
            })
            .collect();
        meanwhile();
        running.into_iter().map(|w| w.join().unwrap()).collect()
    });
    done.into_iter()
        .map(|(part, alive)| {
            model.merge(part);
            alive
        })
        .collect()
}

fn exchange_step(svc: &Service, part: &mut Model, i: usize) -> bool {
    let r = svc.exchange(&part.codes[i].code);
    // After a 503 the code may have been redeemed (the reply lost): then a repeat is refused.
    let ok: &[u16] = if part.codes[i].uncertain {
        &[200, 400]
    } else {
        &[200]
    };
    match answer(svc, "code exchange", r, ok, &mut part.stats) {
        Answer::Ok(r) if r.status == 400 => {
            assert_eq!(r.json()["error"], "invalid_grant", "{}", r.text());
            part.codes.remove(i);
            part.stats.landed += 1;
            true
        }
        Answer::Ok(r) => {
            let c = part.codes.remove(i);
            part.families.push(family_of(c.code, &r));
            part.stats.exchanges += 1;
            true
        }
        Answer::Unavailable => {
            part.codes[i].uncertain = true;
            true
        }
        Answer::Dead => {
            part.codes[i].uncertain = true;
            false
        }
    }
}

fn family_of(code: String, r: &Resp) -> Family {
    let t = r.json();
    Family {
        code,
        access: vec![t["access_token"].as_str().unwrap().to_owned()],
        refresh: vec![t["refresh_token"].as_str().unwrap().to_owned()],
        uncertain: None,
    }
}

fn refresh_step(svc: &Service, part: &mut Model, i: usize) -> bool {
    let sent = Instant::now();
    let r = svc.refresh(part.families[i].newest());
    let since = part.families[i].uncertain;
    let ok: &[u16] = if since.is_some() { &[200, 400] } else { &[200] };
    match answer(svc, "refresh", r, ok, &mut part.stats) {
        Answer::Ok(r) if r.status == 400 => {
            // Only once the grace period of a rotation that may have landed is over.
            let since = since.unwrap_or(sent);
            assert!(
                since.elapsed() > REFRESH_GRACE,
                "refreshing {} ms after a refresh answered 503: {}",
                since.elapsed().as_millis(),
                r.text()
            );
            part.families.remove(i);
            part.stats.landed += 1;
            true
        }
        Answer::Ok(r) => {
            let t = r.json();
            let f = &mut part.families[i];
            f.access
                .push(t["access_token"].as_str().unwrap().to_owned());
            f.refresh
                .push(t["refresh_token"].as_str().unwrap().to_owned());
            f.uncertain = None;
            part.stats.refreshes += 1;
            true
        }
        Answer::Unavailable => {
            part.families[i].uncertain.get_or_insert(sent);
            true
        }
        Answer::Dead => {
            part.families[i].uncertain.get_or_insert(sent);
            false
        }
    }
}

/// One step of this worker's QR login (a new one when it has none).
fn login_step(svc: &Service, apps: &[TestApp], part: &mut Model, rng: &mut Rng) -> bool {
    let Some(mut l) = part.logins.pop() else {
        let mut browser = Browser::new();
        let app = usize::try_from(rng.below(apps.len() as u64)).unwrap();
        let offline = rng.chance(30);
        let r = browser.try_send("GET", &svc.auth_url(offline), &[], b"");
        return match answer(svc, "authorization page", r, &[200], &mut part.stats) {
            Answer::Ok(page) => {
                part.stats.login_steps += 1;
                part.logins.push(Login {
                    browser,
                    app,
                    stage: Stage::Opened,
                    payload: attr(&page.text(), "id=\"app-link\"", "data-qr-payload")
                        .expect("data-qr-payload"),
                    codes: page_codes(&page.text()),
                    csrf: String::new(),
                    opened: Instant::now(),
                    uncertain: false,
                    scanned_code: None,
                });
                true
            }
            Answer::Unavailable => true,
            Answer::Dead => false,
        };
    };
    if matches!(l.stage, Stage::Opened | Stage::Scanned) && l.opened.elapsed() > CHALLENGE_FRESH {
        // The QR code on the page would have changed by now: start again.
        return true;
    }
    let alive = match next_login_step(svc, apps, &mut l, &mut part.stats) {
        AnswerOf::Ok(next) => {
            part.stats.login_steps += 1;
            l.uncertain = false;
            match next {
                Next::Step => {}
                Next::Code(code) => {
                    part.codes.push(Code {
                        code,
                        uncertain: false,
                    });
                    part.stats.logins += 1;
                    return true;
                }
                Next::Landed => {
                    part.stats.landed += 1;
                    return true;
                }
            }
            true
        }
        AnswerOf::Unavailable => {
            // It may have landed (a lost reply): the retry tolerates that.
            l.uncertain = true;
            true
        }
        AnswerOf::Dead => {
            l.uncertain = true;
            false
        }
    };
    part.logins.push(l);
    alive
}

/// What a login step led to.
enum Next {
    /// The login moved on.
    Step,
    /// The consent form answered with this code.
    Code(String),
    /// The consent form was refused after a submission answered 503: that one completed
    /// the login (its code never reached the client).
    Landed,
}

/// The step after `l.stage`; on success `l` moves on.
fn next_login_step(
    svc: &Service,
    apps: &[TestApp],
    l: &mut Login,
    stats: &mut Stats,
) -> AnswerOf<Next> {
    let app = &apps[l.app];
    match l.stage {
        Stage::Opened => {
            let r = svc.scan(app, l);
            answer(svc, "app scan", r, &[200], stats).map(|_| {
                l.stage = Stage::Scanned;
                Next::Step
            })
        }
        Stage::Scanned => {
            let r = svc.decide(app, l);
            // After a 503 the decision may have landed: a repeat is then "decided already".
            let ok: &[u16] = if l.uncertain { &[200, 409] } else { &[200] };
            answer(svc, "app decision", r, ok, stats).map(|r| {
                if r.status == 409 {
                    assert_eq!(r.json()["error"], "already_decided", "{}", r.text());
                }
                l.stage = Stage::Decided;
                Next::Step
            })
        }
        Stage::Decided => {
            let r = l
                .browser
                .try_send("GET", &svc.consent_url(&l.payload), &[], b"");
            answer(svc, "consent page", r, &[200], stats).map(|page| {
                l.csrf = attr(&page.text(), "name=\"csrf\"", "value")
                    .unwrap_or_else(|| panic!("consent page without a form: {}", page.text()));
                l.stage = Stage::ConsentShown;
                Next::Step
            })
        }
        Stage::ConsentShown => {
            let session = params_of(&l.payload)["session"].clone();
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs([
                    ("session", session.as_str()),
                    ("csrf", l.csrf.as_str()),
                    ("consent", "allow"),
                ])
                .finish();
            let r = l.browser.try_send(
                "POST",
                &format!("{}/login-actions/consent", svc.issuer),
                &[("Content-Type", "application/x-www-form-urlencoded")],
                body.as_bytes(),
            );
            // After a 503 the submission may have completed the login: a repeat is refused.
            let ok: Vec<u16> = if l.uncertain {
                std::iter::once(303).chain(400..500).collect()
            } else {
                vec![303]
            };
            answer(svc, "consent", r, &ok, stats).map(|r| {
                if r.status != 303 {
                    return Next::Landed;
                }
                let loc = location(&r);
                Next::Code(
                    params_of(&loc)
                        .remove("code")
                        .unwrap_or_else(|| panic!("no code in {loc}")),
                )
            })
        }
    }
}

/// [`Answer`] carrying what the step yields.
enum AnswerOf<T> {
    Ok(T),
    Unavailable,
    Dead,
}

impl Answer {
    fn map<T>(self, f: impl FnOnce(Resp) -> T) -> AnswerOf<T> {
        match self {
            Answer::Ok(r) => AnswerOf::Ok(f(r)),
            Answer::Unavailable => AnswerOf::Unavailable,
            Answer::Dead => AnswerOf::Dead,
        }
    }
}

/// After a restart: resolves every item whose request got no answer, finishes every login
/// in progress, and exchanges every code. What the client saw succeed must still hold:
/// a served QR login can be scanned, an accepted decision leads to the consent page, a
/// code the consent form answered with redeems. A step that was in flight may have
/// committed or not, and either is accepted.
pub fn settle(svc: &Service, apps: &[TestApp], m: &mut Model) {
    for l in std::mem::take(&mut m.logins) {
        if let Some(code) = finish_login(svc, apps, l) {
            m.codes.push(Code {
                code,
                uncertain: false,
            });
            m.stats.logins += 1;
        }
    }
    for c in std::mem::take(&mut m.codes) {
        let r = svc
            .exchange(&c.code)
            .unwrap_or_else(|e| panic!("code exchange after the restart: {e}"));
        match r.status {
            200 => {
                m.families.push(family_of(c.code, &r));
                m.stats.exchanges += 1;
            }
            // The exchange in flight redeemed it (and this replay revoked what it issued).
            400 if c.uncertain && r.json()["error"] == "invalid_grant" => m.stats.landed += 1,
            _ => panic!(
                "exchanging an acknowledged code after the restart: {} {}",
                r.status,
                r.text()
            ),
        }
    }
    let mut kept = Vec::new();
    for mut f in std::mem::take(&mut m.families) {
        if let Some(sent) = f.uncertain {
            // The newest token the client knows is current, or (if the refresh in flight
            // landed) one generation behind and still in its grace period.
            let r = svc
                .refresh(f.newest())
                .unwrap_or_else(|e| panic!("refresh after the restart: {e}"));
            match r.status {
                200 => {
                    let t = r.json();
                    f.access
                        .push(t["access_token"].as_str().unwrap().to_owned());
                    f.refresh
                        .push(t["refresh_token"].as_str().unwrap().to_owned());
                    f.uncertain = None;
                    m.stats.refreshes += 1;
                }
                400 if sent.elapsed() > REFRESH_GRACE => {
                    m.stats.landed += 1;
                    continue;
                }
                _ => panic!(
                    "refreshing after a refresh in flight ({} ms ago): {} {}",
                    sent.elapsed().as_millis(),
                    r.status,
                    r.text()
                ),
            }
        }
        kept.push(f);
    }
    m.families = kept;
}

/// Carries a login from its last acknowledged step to its code, after a restart: each
/// acknowledged step must have been stored. `None` when the step in flight at the crash
/// may have ended the login (its code never reached the client), or the QR code went stale.
fn finish_login(svc: &Service, apps: &[TestApp], mut l: Login) -> Option<String> {
    let in_flight = l.uncertain.then_some(l.stage);
    let consent_url = svc.consent_url(&l.payload);
    if matches!(l.stage, Stage::Opened | Stage::Scanned) && l.opened.elapsed() > CHALLENGE_FRESH {
        if in_flight != Some(Stage::Scanned) {
            return None;
        }
        // Too late to decide again; the decision in flight may have landed.
        let page = l.browser.get(&consent_url);
        if page.status != 200 {
            return None;
        }
        l.stage = Stage::Decided;
    }
    if l.stage == Stage::Opened {
        // The page was served, so its login session was stored (a scan in flight changes
        // nothing a second scan of a newer code by the same identity would not).
        let r = svc
            .scan(&apps[l.app], &mut l)
            .unwrap_or_else(|e| panic!("scan after the restart: {e}"));
        assert_eq!(
            r.status,
            200,
            "scanning an acknowledged login: {}",
            r.text()
        );
        l.stage = Stage::Scanned;
    }
    if l.stage == Stage::Scanned {
        let r = svc
            .decide(&apps[l.app], &mut l)
            .unwrap_or_else(|e| panic!("decision after the restart: {e}"));
        let landed = in_flight == Some(Stage::Scanned)
            && r.status == 409
            && r.json()["error"] == "already_decided";
        assert!(
            r.status == 200 || landed,
            "a decision on a scanned login: {} {}",
            r.status,
            r.text()
        );
        l.stage = Stage::Decided;
    }
    if l.stage == Stage::Decided {
        // The decision was accepted: the consent page must know it.
        let page = l.browser.get(&consent_url);
        assert_eq!(
            page.status,
            200,
            "the consent page of an accepted decision: {}",
            page.text()
        );
        l.csrf = attr(&page.text(), "name=\"csrf\"", "value")
            .unwrap_or_else(|| panic!("consent page without a form: {}", page.text()));
        l.stage = Stage::ConsentShown;
    }
    // The form was served: submit it.
    let session = params_of(&l.payload)["session"].clone();
    let r = l.browser.post_form(
        &format!("{}/login-actions/consent", svc.issuer),
        &[
            ("session", &session),
            ("csrf", &l.csrf),
            ("consent", "allow"),
        ],
    );
    if r.status == 303 {
        let loc = location(&r);
        return Some(
            params_of(&loc)
                .remove("code")
                .unwrap_or_else(|| panic!("no code in {loc}")),
        );
    }
    // A submission in flight may have completed the login: then a second one is refused
    // (never with a 5xx).
    assert!(
        in_flight == Some(Stage::ConsentShown) && (400..500).contains(&r.status),
        "submitting a served consent form after the restart: {} {}",
        r.status,
        r.text()
    );
    None
}

/// Every family's tokens are as their client last saw them: the newest refresh token is
/// live and the ones it replaced are not (one live generation per family), and its access
/// tokens are active (their grant exists). Read-only.
pub fn verify(svc: &Service, m: &Model) {
    for (n, f) in m.families.iter().enumerate() {
        assert!(
            svc.active(f.newest()),
            "family {n}: its newest refresh token (generation {}) is not live",
            f.refresh.len()
        );
        let older = f.refresh.len() - 1;
        // The first and the last two replaced tokens (enough to catch a lost rotation,
        // which would leave the one before the newest live).
        for (g, rt) in f.refresh[..older]
            .iter()
            .enumerate()
            .filter(|(g, _)| *g == 0 || *g + 2 >= older)
        {
            assert!(
                !svc.active(rt),
                "family {n}: refresh token generation {} of {} is still live",
                g + 1,
                f.refresh.len()
            );
        }
        for (i, at) in f.access.iter().enumerate() {
            if i == 0 || i + 1 == f.access.len() {
                assert!(
                    svc.active(at),
                    "family {n}: access token {} of {} is not active",
                    i + 1,
                    f.access.len()
                );
            }
        }
    }
}

/// A redeemed code, redeemed again, is refused with `invalid_grant`: it stayed spent. The
/// replay revokes the grant it became, so the record of what it was redeemed as survived too.
fn check_code_spent(svc: &Service, f: &Family) {
    let r = svc.exchange(&f.code).unwrap();
    assert_eq!(
        r.status,
        400,
        "a redeemed code redeemed again: {}",
        r.text()
    );
    assert_eq!(r.json()["error"], "invalid_grant");
    assert!(
        !svc.active(f.newest()),
        "the replayed code's grant was not revoked"
    );
    assert!(!svc.active(f.access.last().unwrap()));
}

/// A replaced refresh token (two generations back: refused whatever the time, the grace
/// covers one) is refused, and its family is revoked.
fn check_replaced_refresh_refused(svc: &Service, f: &Family) {
    let old = &f.refresh[f.refresh.len() - 3];
    let r = svc.refresh(old).unwrap();
    assert_eq!(r.status, 400, "a replaced refresh token: {}", r.text());
    assert_eq!(r.json()["error"], "invalid_grant");
    let r = svc.refresh(f.newest()).unwrap();
    assert_eq!(
        r.status,
        400,
        "the family of a reused refresh token is revoked: {}",
        r.text()
    );
}

/// Destructive checks on two families, which leave the model: the code of one is redeemed
/// again (`check_code_spent`), a replaced refresh token of another is presented
/// (`check_replaced_refresh_refused`). Returns how many checks ran.
pub fn sacrifice(svc: &Service, m: &mut Model, rng: &mut Rng) -> usize {
    let mut ran = 0;
    if !m.families.is_empty() {
        let i = usize::try_from(rng.below(m.families.len() as u64)).unwrap();
        check_code_spent(svc, &m.families.remove(i));
        ran += 1;
    }
    if let Some(i) = m.families.iter().position(|f| f.refresh.len() >= 3) {
        check_replaced_refresh_refused(svc, &m.families.remove(i));
        ran += 1;
    }
    ran
}

/// The destructive checks on every family, at the end of a test (the model is left empty):
/// every redeemed code stays spent, every replaced refresh token is refused. A family is
/// used for one of the two (the first revokes it, which would make the second pass anyway).
pub fn sacrifice_all(svc: &Service, m: &mut Model) -> usize {
    let mut ran = 0;
    for (i, f) in std::mem::take(&mut m.families).iter().enumerate() {
        if i % 2 == 1 && f.refresh.len() >= 3 {
            check_replaced_refresh_refused(svc, f);
        } else {
            check_code_spent(svc, f);
        }
        ran += 1;
    }
    ran
}

//! `scanid app ...`, the reference app: the command-line stand-in for the phone (app protocol
//! §6). It talks HTTP to the device API exactly as the phone would, and keeps its P-256 device key in a key file
//! (mode 0600).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use clap::{Args, Subcommand};
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::domain::app_jws;
use scanid_core::random::{self, SystemRandom};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::cli::{print_json, CliError};

#[derive(Debug, Subcommand)]
pub enum AppCommand {
    /// Sign up: create a device key in KEY_FILE and register an identity with it.
    Enroll(EnrollArgs),
    /// Approve (or deny) the login or device shown by a QR code, given the QR's text.
    Approve(ApproveArgs),
    /// Update the profile (display name, country, photo).
    Profile(ProfileArgs),
    /// Replace the device key (the new key is proven, the change signed by the old key).
    RotateKey(RotateKeyArgs),
    /// The identity's recent logins, newest first (each with the id `report` takes).
    Activity(Common),
    /// "This wasn't me": revoke a recent login's tokens and end its session.
    Report(ReportArgs),
    /// The agents the identity delegates to (clients that may act for it by token exchange).
    Delegations(Common),
    /// Withdraw a delegation: the agent's exchanged tokens stop working at once.
    Withdraw(WithdrawArgs),
}

#[derive(Debug, Args)]
pub struct WithdrawArgs {
    #[command(flatten)]
    pub common: Common,
    /// The agent's client id, as `scanid app delegations` lists it (may begin with `-`).
    #[arg(allow_hyphen_values = true)]
    pub client_id: String,
}

#[derive(Debug, Args)]
pub struct RotateKeyArgs {
    #[command(flatten)]
    pub common: Common,
    /// Also end every session and token of the identity (sign out everywhere), as for a
    /// phone that may be in someone else's hands.
    #[arg(long)]
    pub end_sessions: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub common: Common,
    /// The login's id, as `scanid app activity` lists it. Ids are random base64url, so one
    /// may begin with `-`: it is taken as the id, not as a flag.
    #[arg(allow_hyphen_values = true)]
    pub login_id: String,
}

#[derive(Debug, Args)]
pub struct ProfileArgs {
    #[command(flatten)]
    pub common: Common,
    #[arg(long)]
    pub display_name: Option<String>,
    #[arg(long)]
    pub country: Option<String>,
    /// An https URL of a profile photo.
    #[arg(long, conflicts_with = "remove_photo")]
    pub photo: Option<String>,
    #[arg(long)]
    pub remove_photo: bool,
}

#[derive(Debug, Args)]
pub struct Common {
    /// The device key file (created by enroll, mode 0600).
    #[arg(long)]
    pub key_file: PathBuf,
    /// The service's base URL.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub server: String,
    /// The realm.
    #[arg(long, env = "SCANID_REALM", default_value = "scanid")]
    pub realm: String,
}

#[derive(Debug, Args)]
pub struct EnrollArgs {
    #[command(flatten)]
    pub common: Common,
    /// Unique handle: 3 to 32 of a-z 0-9 . _ -
    #[arg(long)]
    pub name: String,
    #[arg(long)]
    pub display_name: String,
    /// ISO 3166-1 alpha-2 country code, e.g. SE.
    #[arg(long)]
    pub country: String,
    /// An https URL of a profile photo.
    #[arg(long)]
    pub photo: Option<String>,
}

#[derive(Debug, Args)]
pub struct ApproveArgs {
    #[command(flatten)]
    pub common: Common,
    /// Deny instead of approving.
    #[arg(long)]
    pub deny: bool,
    /// The number the login page shows (10 to 99); without it the app prints the three choices
    /// on stderr and reads the number from stdin (one line).
    #[arg(long, value_parser = clap::value_parser!(u8).range(10..=99))]
    pub number: Option<u8>,
    /// The QR code's text: a login's {issuer}/app/scan?session=...&challenge=..., or a
    /// device's {issuer}/device?user_code=XXXX-XXXX (RFC 8628 device grant).
    pub qr_payload: String,
}

/// What the key file holds.
#[derive(Serialize, Deserialize)]
struct KeySet {
    /// PKCS#8 of the P-256 device key, standard base64.
    pkcs8: String,
    public_key: String,
    sub: String,
    service_id: String,
    issuer: String,
}

fn issuer(c: &Common) -> String {
    format!("{}/realms/{}", c.server.trim_end_matches('/'), c.realm)
}

fn failed(what: &str, e: impl std::fmt::Display) -> CliError {
    CliError::Failed(format!("{what}: {e}"))
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut f = opts
        .open(path)
        .map_err(|e| failed(&path.display().to_string(), e))?;
    f.write_all(bytes)
        .map_err(|e| failed(&path.display().to_string(), e))?;
    f.sync_all()
        .map_err(|e| failed(&path.display().to_string(), e))
}

fn claims_base(issuer: &str) -> Value {
    let now = SystemClock.now().secs();
    json!({ "aud": issuer, "iat": now, "exp": now + 120, "jti": random::token(&SystemRandom::new(), 16) })
}

async fn post_json(url: &str, body: &Value) -> Result<(u16, Value), CliError> {
    let r = reqwest::Client::new()
        .post(url)
        .json(body)
        .send()
        .await
        .map_err(|e| failed(url, e))?;
    let status = r.status().as_u16();
    let v = r.json::<Value>().await.unwrap_or(Value::Null);
    Ok((status, v))
}

fn refused(status: u16, body: &Value) -> CliError {
    let msg = format!(
        "the service answered {status}: {} {}",
        body["error"].as_str().unwrap_or(""),
        body["error_description"].as_str().unwrap_or("")
    );
    if (400..500).contains(&status) {
        CliError::Usage(msg)
    } else {
        CliError::Failed(msg)
    }
}

pub async fn run(cmd: AppCommand) -> Result<(), CliError> {
    match cmd {
        AppCommand::Enroll(a) => enroll(a).await,
        AppCommand::Approve(a) => approve(a).await,
        AppCommand::Profile(a) => profile(a).await,
        AppCommand::RotateKey(a) => rotate_key(a.common, a.end_sessions).await,
        AppCommand::Activity(c) => signed_read(c, "activity", Value::Null).await,
        AppCommand::Report(a) => report(a).await,
        AppCommand::Delegations(c) => signed_read(c, "delegations", Value::Null).await,
        AppCommand::Withdraw(a) => signed_read(a.common, "withdraw", json!(a.client_id)).await,
    }
}

async fn enroll(a: EnrollArgs) -> Result<(), CliError> {
    if a.common.key_file.exists() {
        return Err(CliError::Usage(format!(
            "{} exists; it holds an identity already",
            a.common.key_file.display()
        )));
    }
    let key =
        EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).map_err(|e| failed("key", e))?;
    let pkcs8 = STANDARD.encode(key.to_pkcs8v1().map_err(|e| failed("key", e))?.as_ref());
    let public_key = STANDARD.encode(
        key.public_key()
            .as_der()
            .map_err(|e| failed("key", e))?
            .as_ref(),
    );
    let iss = issuer(&a.common);
    let mut claims = claims_base(&iss);
    claims["name"] = json!(a.name);
    claims["display_name"] = json!(a.display_name);
    claims["country_code"] = json!(a.country);
    claims["public_key"] = json!(public_key);
    if let Some(p) = &a.photo {
        claims["profile_photo"] = json!(p);
    }
    let jws = app_jws::sign(&key, "registration+jwt", &claims).map_err(|e| failed("sign", e))?;
    let (status, body) = post_json(
        &format!("{iss}/app/identities"),
        &json!({ "registration": jws }),
    )
    .await?;
    if status != 201 {
        return Err(refused(status, &body));
    }
    let sub = body["sub"].as_str().unwrap_or_default().to_owned();
    let service_id = body["service_id"].as_str().unwrap_or_default().to_owned();
    let file = KeySet {
        pkcs8,
        public_key,
        sub: sub.clone(),
        service_id: service_id.clone(),
        issuer: iss,
    };
    write_private(
        &a.common.key_file,
        &serde_json::to_vec_pretty(&file).map_err(|e| failed("key file", e))?,
    )?;
    print_json(&json!({ "sub": sub, "service_id": service_id }));
    Ok(())
}

/// Where the app reads what a code asks: a login's QR is that URL itself; a device's
/// `verification_uri_complete` (RFC 8628) is looked up by its user code.
fn scan_url_of(
    iss: &str,
    device: bool,
    payload: &str,
    user_code: Option<String>,
) -> Result<String, CliError> {
    if !device {
        return Ok(payload.to_owned());
    }
    let Some(user_code) = user_code else {
        return Err(CliError::Usage(
            "device QR payload without user_code".into(),
        ));
    };
    let mut u = url::Url::parse(&format!("{iss}/app/scan"))
        .map_err(|e| CliError::Usage(format!("issuer: {e}")))?;
    u.query_pairs_mut().append_pair("user_code", &user_code);
    Ok(u.to_string())
}

async fn approve(a: ApproveArgs) -> Result<(), CliError> {
    let (file, key) = load(&a.common)?;
    let iss = issuer(&a.common);
    // Only codes of the service this identity belongs to: a login's QR, or a device's
    // `verification_uri_complete` (RFC 8628).
    let prefix = format!("{iss}/app/scan?");
    let device_prefix = format!("{iss}/device?");
    let device = a.qr_payload.starts_with(&device_prefix);
    if !a.qr_payload.starts_with(&prefix) && !device {
        return Err(CliError::Usage(format!("not a login code of {iss}")));
    }
    let url =
        url::Url::parse(&a.qr_payload).map_err(|e| CliError::Usage(format!("QR payload: {e}")))?;
    let q = |n: &str| {
        url.query_pairs()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.into_owned())
    };
    let scan_url = scan_url_of(&iss, device, &a.qr_payload, q("user_code"))?;
    // Show the person what they are about to approve (docs/requirements.md Q3). A login's
    // scan carries the proof of who scans (a second phone then cancels the login).
    let mut scan = reqwest::Client::new()
        .get(scan_url.as_str())
        .header("accept", "application/json");
    if let (Some(session), Some(challenge)) = (q("session"), q("challenge")) {
        let mut proof = claims_base(&iss);
        proof["sub"] = json!(file.sub);
        proof["session"] = json!(session);
        proof["challenge"] = json!(challenge);
        let jws = app_jws::sign(&key, "scan+jwt", &proof).map_err(|e| failed("sign", e))?;
        scan = scan.header("scanid-proof", jws);
    }
    let r = scan.send().await.map_err(|e| failed("scan", e))?;
    let status = r.status().as_u16();
    let info: Value = r.json().await.unwrap_or(Value::Null);
    if status != 200 {
        return Err(refused(status, &info));
    }
    // A device's scan answers the login session and challenge to decide.
    let (Some(session), Some(challenge)) = (
        q("session").or_else(|| info["session"].as_str().map(str::to_owned)),
        q("challenge").or_else(|| info["challenge"].as_str().map(str::to_owned)),
    ) else {
        return Err(CliError::Usage(
            "QR payload without session and challenge".into(),
        ));
    };
    show(&info, a.deny);
    // Number matching: pick the number the login page shows (a device's user code is the
    // matching there, and its scan offers no numbers).
    let choices: Vec<i64> = info["number_choices"]
        .as_array()
        .map(|c| c.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default();
    let number = if a.deny || choices.is_empty() {
        None
    } else {
        Some(pick_number(a.number, &choices)?)
    };
    let mut claims = claims_base(&iss);
    claims["sub"] = json!(file.sub);
    claims["session"] = json!(session);
    claims["challenge"] = json!(challenge);
    claims["decision"] = json!(if a.deny { "deny" } else { "approve" });
    if let Some(n) = number {
        claims["number"] = json!(n);
    }
    let jws = app_jws::sign(&key, "approval+jwt", &claims).map_err(|e| failed("sign", e))?;
    let (status, body) = post_json(
        &format!("{iss}/app/login-sessions/{session}"),
        &json!({ "approval": jws }),
    )
    .await?;
    if status != 200 {
        return Err(refused(status, &body));
    }
    let mut out = json!({
        "status": body["status"],
        "client": info["client"],
        "scopes": info["scopes"],
        "browser": info["browser"],
        "phone": info["phone"],
        "flags": info["flags"],
    });
    if let Some(code) = info["user_code"].as_str() {
        out["user_code"] = json!(code);
    }
    print_json(&out);
    Ok(())
}

/// Where the login was started, as the service decided it (`started_here`: the scan carried
/// the login's browser cookie). This app holds no browser cookie, so it is always "another
/// device" here; a missing field says the same.
fn where_started(info: &Value) -> &'static str {
    if info["started_here"] == true {
        "started on this device"
    } else {
        "STARTED ON ANOTHER DEVICE: approve only a login you started yourself, just now"
    }
}

/// The number to approve with: `given`, or one line read from stdin after printing the
/// `choices` on stderr. Any number is sent as it is: the service decides, and a wrong one
/// cancels the login.
fn pick_number(given: Option<u8>, choices: &[i64]) -> Result<i64, CliError> {
    let shown = choices
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join("  ");
    eprintln!("Which number does the login page show? {shown}");
    if let Some(n) = given {
        return Ok(i64::from(n));
    }
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| failed("stdin", e))?;
    line.trim()
        .parse::<u8>()
        .ok()
        .filter(|n| (10..=99).contains(n))
        .map(i64::from)
        .ok_or_else(|| CliError::Usage(format!("{:?}: a number from 10 to 99", line.trim())))
}

/// Tells the person on stderr what they are about to approve or deny: the client, the
/// scopes, and the browser (a login) or the code on the device's screen (a device grant).
fn show(info: &Value, deny: bool) {
    let scopes = info["scopes"]
        .as_array()
        .map(|s| {
            s.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    let verb = if deny { "Denying" } else { "Approving" };
    let name = format!(
        "{}{}",
        info["client"]["name"].as_str().unwrap_or("?"),
        if info["client"]["self_registered"] == true {
            " [a name it gave itself: self-registered]"
        } else {
            ""
        }
    );
    match info["user_code"].as_str() {
        // Compare this code with the one on the device's screen.
        Some(code) => eprintln!("{verb} device {name} asking for [{scopes}], code {code}"),
        None => eprintln!(
            "{verb} login to {name} ({}) asking for [{scopes}], from {} ({}); {}",
            info["client"]["redirect_host"].as_str().unwrap_or("?"),
            info["browser"]["ip"].as_str().unwrap_or("?"),
            info["browser"]["user_agent"].as_str().unwrap_or("?"),
            where_started(info),
        ),
    }
    for line in where_from(info) {
        eprintln!("{line}");
    }
}

/// Where the login came from, where this phone is, when it was asked for and the risk
/// flags as warnings (issue 24), one line each.
fn where_from(info: &Value) -> Vec<String> {
    let place = |v: &Value| {
        let mut parts = vec![v["ip"].as_str().unwrap_or("?").to_owned()];
        let loc = &v["location"];
        let names: Vec<&str> = [&loc["city"], &loc["country"]]
            .into_iter()
            .filter_map(Value::as_str)
            .collect();
        if !names.is_empty() {
            let code = loc["country_code"]
                .as_str()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default();
            parts.push(format!("{}{code}", names.join(", ")));
        }
        if let Some(asn) = v["network"]["asn"].as_u64() {
            let org = v["network"]["org"]
                .as_str()
                .map(|o| format!(" {o}"))
                .unwrap_or_default();
            parts.push(format!("network AS{asn}{org}"));
        }
        parts.join(", ")
    };
    let mut out = vec![format!("  login started from: {}", place(&info["browser"]))];
    if info["phone"].is_object() {
        out.push(format!("  this phone:         {}", place(&info["phone"])));
    }
    if let Some(at) = info["requested_at"].as_str() {
        out.push(format!("  requested at:       {at}"));
    }
    for f in info["flags"].as_array().into_iter().flatten() {
        let why = match f.as_str().unwrap_or("") {
            "location_mismatch" => "the login was started in another country than this phone's",
            "first_from_here" => "you have never approved a login from that place",
            "high_usage" => "many logins were asked for your identity in the last hour",
            other => other,
        };
        out.push(format!("  WARNING: {why} ({})", f.as_str().unwrap_or("?")));
    }
    if info["refused"] == true {
        out.push(
            "  This login cannot be approved: the application refuses logins with these warnings."
                .into(),
        );
    }
    out
}

fn load(c: &Common) -> Result<(KeySet, EcdsaKeyPair), CliError> {
    let text =
        std::fs::read(&c.key_file).map_err(|e| failed(&c.key_file.display().to_string(), e))?;
    let file: KeySet = serde_json::from_slice(&text).map_err(|e| failed("key file", e))?;
    let der = STANDARD
        .decode(&file.pkcs8)
        .map_err(|e| failed("key file", e))?;
    let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der)
        .map_err(|e| failed("key file", e))?;
    Ok((file, key))
}

async fn send(method: reqwest::Method, url: &str, body: &Value) -> Result<(u16, Value), CliError> {
    let r = reqwest::Client::new()
        .request(method, url)
        .json(body)
        .send()
        .await
        .map_err(|e| failed(url, e))?;
    let status = r.status().as_u16();
    Ok((status, r.json::<Value>().await.unwrap_or(Value::Null)))
}

async fn profile(a: ProfileArgs) -> Result<(), CliError> {
    let (file, key) = load(&a.common)?;
    let iss = issuer(&a.common);
    let mut claims = claims_base(&iss);
    claims["sub"] = json!(file.sub);
    if let Some(d) = &a.display_name {
        claims["display_name"] = json!(d);
    }
    if let Some(c) = &a.country {
        claims["country_code"] = json!(c);
    }
    if let Some(p) = &a.photo {
        claims["profile_photo"] = json!(p);
    }
    if a.remove_photo {
        claims["profile_photo"] = Value::Null;
    }
    let jws = app_jws::sign(&key, "profile+jwt", &claims).map_err(|e| failed("sign", e))?;
    let (status, body) = send(
        reqwest::Method::PATCH,
        &format!("{iss}/app/identities/{}", file.sub),
        &json!({ "update": jws }),
    )
    .await?;
    if status != 200 {
        return Err(refused(status, &body));
    }
    print_json(&body);
    Ok(())
}

async fn rotate_key(c: Common, end_sessions: bool) -> Result<(), CliError> {
    let (mut file, old) = load(&c)?;
    let iss = issuer(&c);
    let new =
        EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).map_err(|e| failed("key", e))?;
    let new_pkcs8 = STANDARD.encode(new.to_pkcs8v1().map_err(|e| failed("key", e))?.as_ref());
    let new_public = STANDARD.encode(
        new.public_key()
            .as_der()
            .map_err(|e| failed("key", e))?
            .as_ref(),
    );
    let mut proof = claims_base(&iss);
    proof["sub"] = json!(file.sub);
    let proof = app_jws::sign(&new, "key-proof+jwt", &proof).map_err(|e| failed("sign", e))?;
    let mut claims = claims_base(&iss);
    claims["sub"] = json!(file.sub);
    claims["public_key"] = json!(new_public);
    claims["proof"] = json!(proof);
    if end_sessions {
        claims["end_sessions"] = json!(true);
    }
    let jws = app_jws::sign(&old, "key-rotation+jwt", &claims).map_err(|e| failed("sign", e))?;
    let (status, body) = send(
        reqwest::Method::POST,
        &format!("{iss}/app/identities/{}/key", file.sub),
        &json!({ "rotation": jws }),
    )
    .await?;
    if status != 200 {
        return Err(refused(status, &body));
    }
    // Keep the old key file until the new one is safely written.
    file.pkcs8 = new_pkcs8;
    file.public_key = new_public;
    let tmp = c.key_file.with_extension("new");
    let _ = std::fs::remove_file(&tmp);
    write_private(
        &tmp,
        &serde_json::to_vec_pretty(&file).map_err(|e| failed("key file", e))?,
    )?;
    std::fs::rename(&tmp, &c.key_file).map_err(|e| failed(&c.key_file.display().to_string(), e))?;
    print_json(
        &json!({ "sub": file.sub, "public_key": file.public_key, "sessions_ended": end_sessions }),
    );
    Ok(())
}

/// A request signed by the device key whose body is `{"<what>": "<what>+jwt"}`: the recent
/// logins (`activity`), the delegations, or withdrawing one (`withdraw`, naming the agent as
/// `client_id`).
async fn signed_read(c: Common, what: &str, client_id: Value) -> Result<(), CliError> {
    let (file, key) = load(&c)?;
    let iss = issuer(&c);
    let mut claims = claims_base(&iss);
    claims["sub"] = json!(file.sub);
    let path = if client_id.is_null() {
        what.to_owned()
    } else {
        claims["client_id"] = client_id;
        format!("delegations/{what}")
    };
    let jws =
        app_jws::sign(&key, &format!("{what}+jwt"), &claims).map_err(|e| failed("sign", e))?;
    let (status, body) = post_json(
        &format!("{iss}/app/identities/{}/{path}", file.sub),
        &json!({ what: jws }),
    )
    .await?;
    if status != 200 {
        return Err(refused(status, &body));
    }
    print_json(&body);
    Ok(())
}

async fn report(a: ReportArgs) -> Result<(), CliError> {
    let (file, key) = load(&a.common)?;
    let iss = issuer(&a.common);
    let mut claims = claims_base(&iss);
    claims["sub"] = json!(file.sub);
    claims["login"] = json!(a.login_id);
    let jws = app_jws::sign(&key, "report+jwt", &claims).map_err(|e| failed("sign", e))?;
    let mut url = url::Url::parse(&format!("{iss}/app/identities/"))
        .map_err(|e| CliError::Usage(format!("issuer: {e}")))?;
    url.path_segments_mut()
        .map_err(|()| CliError::Usage("issuer: not a base URL".into()))?
        .pop_if_empty()
        .extend([file.sub.as_str(), "logins", a.login_id.as_str(), "report"]);
    let (status, body) = post_json(url.as_str(), &json!({ "report": jws })).await?;
    if status != 200 {
        return Err(refused(status, &body));
    }
    print_json(&body);
    Ok(())
}

//! `scanid client ...`: registered clients, on the same store the server uses.

use clap::{Args, Subcommand};
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::domain::admin::AdminRole;
use scanid_core::domain::authn::Acr;
use scanid_core::domain::client::{self, ClientSecret, ClientType, NewClient};
use scanid_core::domain::profile::{Profile, RefreshRotation};
use scanid_core::domain::registration;
use scanid_core::domain::risk::Flag;
use scanid_core::random::SystemRandom;
use scanid_core::store::{ClientStore, StoreError};
use scanid_core::usecase::registration::{create_initial_access_token, CreateTokenError};
use serde_json::json;

use crate::cli::{print_json, CliError, ConfigArgs};

#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Register a client; prints its id and (once) its secret.
    Create(Box<CreateArgs>),
    /// List registered clients.
    List(StoreArgs),
    /// Show one client.
    Show(IdArgs),
    /// Change a client's policy: which risk flags refuse a login (the others warn).
    Update(UpdateArgs),
    /// Delete a client.
    Delete(IdArgs),
    /// Replace a confidential client's secret; prints the new secret (once).
    RotateSecret(IdArgs),
    /// Disable a client: no tokens, its tokens inactive, its logins refused (until enabled).
    Disable(IdArgs),
    /// Enable a disabled client again.
    Enable(IdArgs),
    /// Give a client's service account an admin role (the admin API: realm-admin,
    /// manage-clients, view-clients, manage-users, view-users, view-events).
    AddRole(RoleArgs),
    /// Take an admin role from a client's service account.
    RemoveRole(RoleArgs),
    /// Import a Keycloak realm export's clients (secrets kept); prints what came over and
    /// what did not.
    Import(crate::import::ImportArgs),
    /// Initial access tokens for dynamic client registration (RFC 7591).
    #[command(subcommand)]
    RegistrationToken(RegistrationTokenCommand),
}

#[derive(Debug, Subcommand)]
pub enum RegistrationTokenCommand {
    /// Create an initial access token; prints it (once). Clients register with it as their
    /// bearer token at the registration endpoint, until it expires or its uses are spent.
    Create(TokenArgs),
}

#[derive(Debug, Args)]
pub struct TokenArgs {
    /// Seconds the token stays valid (60 to 31536000).
    #[arg(long)]
    pub expires_in: i64,
    /// How many clients may register with it (1 to 10000).
    #[arg(long, default_value_t = 1)]
    pub uses: u32,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct StoreArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct IdArgs {
    #[arg(long)]
    pub client_id: String,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct RoleArgs {
    #[arg(long)]
    pub client_id: String,
    /// realm-admin, manage-clients, view-clients, manage-users, view-users or view-events.
    #[arg(long)]
    pub role: String,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The name users see on the consent page.
    #[arg(long)]
    pub name: String,
    /// A redirect URI (repeatable); https, loopback http, or a private-use scheme. Required,
    /// except for a client that only uses the device grant (`--grant device_code`) or only
    /// client_credentials (a service account: then it has no code flow).
    #[arg(long = "redirect-uri")]
    pub redirect_uris: Vec<String>,
    /// Where RP-initiated logout may send the user back (repeatable).
    #[arg(long = "post-logout-redirect-uri")]
    pub post_logout_redirect_uris: Vec<String>,
    /// A public client (no secret; PKCE required).
    #[arg(long)]
    pub public: bool,
    /// Allow the client_credentials grant (confidential clients).
    #[arg(long)]
    pub client_credentials: bool,
    /// Allow a further grant (repeatable): `device_code` (RFC 8628, devices without a browser:
    /// TVs, CLIs, kiosks), `client_credentials`, `token_exchange` (RFC 8693: an agent the
    /// person may delegate to on its consent page; confidential clients), or `ciba` (OpenID
    /// CIBA: the client asks by the back channel, the person approves on the phone;
    /// confidential clients).
    #[arg(long = "grant")]
    pub grants: Vec<String>,
    /// Choose the client id instead of a random UUID.
    #[arg(long)]
    pub client_id: Option<String>,
    /// Sign this client's tokens with RS256, ES256, PS256 or EdDSA (default: the service's --signing-alg).
    #[arg(long)]
    pub token_alg: Option<String>,
    /// A resource server (an API): it may introspect access tokens of other clients.
    #[arg(long)]
    pub resource_server: bool,
    /// A browser origin allowed to call the token, userinfo, revocation and logout endpoints
    /// (repeatable); `+` means the origins of the redirect URIs (public clients' default).
    #[arg(long = "web-origin")]
    pub web_origins: Vec<String>,
    /// OIDC Back-Channel Logout: where logout tokens are POSTed when a session ends.
    #[arg(long)]
    pub backchannel_logout_uri: Option<String>,
    /// A CIBA client's notification endpoint (ping mode, https; http on loopback only under a
    /// loopback --public-url): told `{"auth_req_id"}` once the person decided.
    #[arg(long)]
    pub ciba_notification_endpoint: Option<String>,
    /// Risk flags that refuse a login instead of warning (comma-separated):
    /// location_mismatch, first_from_here, high_usage; default none.
    #[arg(long)]
    pub refuse_on: Option<String>,
    /// The lowest acr every login for this client must reach: 1 (the app's key), 2 (a
    /// passkey that verified the person), 3 (a passkey on the login page); default none.
    #[arg(long)]
    pub require_acr: Option<String>,
    /// Require PKCE (S256) of this confidential client too (public clients always need it).
    #[arg(long)]
    pub require_pkce: bool,
    /// An admin role for its service account (repeatable; needs client_credentials):
    /// realm-admin, manage-clients, view-clients, manage-users, view-users, view-events.
    #[arg(long = "admin-role")]
    pub admin_roles: Vec<String>,
    /// A JWK Set file with the client's public keys: it then authenticates by
    /// private_key_jwt (RFC 7523) only, and gets no secret.
    #[arg(long, conflicts_with_all = ["jwks_uri", "public"])]
    pub jwks: Option<std::path::PathBuf>,
    /// Where the client publishes its JWK Set (https): private_key_jwt, no secret.
    #[arg(long, conflicts_with = "public")]
    pub jwks_uri: Option<String>,
    /// The one algorithm its client assertions may use: ES256, PS256, RS256 or EdDSA
    /// (default: any of them); HS256, HS384 or HS512 with --client-secret-jwt.
    #[arg(long)]
    pub token_endpoint_auth_alg: Option<String>,
    /// It authenticates by client_secret_jwt (RFC 7523: an HMAC of its secret) only; its
    /// secret is then also kept sealed by the service's sealing key.
    #[arg(long = "client-secret-jwt", conflicts_with_all = ["jwks", "jwks_uri", "public"])]
    pub client_secret_jwt: bool,
    /// Its authorization requests must be pushed first (RFC 9126): a request to the
    /// authorization endpoint without a request_uri is refused.
    #[arg(long = "require-par")]
    pub require_par: bool,
    /// Its pushed requests must carry a request object signed with its keys (RFC 9101;
    /// FAPI 2.0 Message Signing).
    #[arg(long)]
    pub require_signed_request_object: bool,
    /// Hold the client to a profile: `fapi2` (FAPI 2.0: private_key_jwt, PAR, PKCE S256,
    /// ES256/PS256/EdDSA tokens, no refresh rotation; see the book's fapi.md).
    #[arg(long)]
    pub profile: Option<String>,
    #[command(flatten)]
    pub rotation: RotationArgs,
    /// Its access tokens are always DPoP-bound (RFC 9449): a token request without a DPoP
    /// proof is refused.
    #[arg(long)]
    pub dpop_bound_access_tokens: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// How the client's refresh tokens rotate.
#[derive(Debug, Args)]
pub struct RotationArgs {
    /// `rotate` (the default: a new refresh token at each use, reuse revokes the grant) or
    /// `off` (the same refresh token until it expires; still revocable).
    #[arg(long)]
    pub refresh_rotation: Option<String>,
    /// Seconds (1 to 300) the refresh token before the current one is accepted again, instead
    /// of 10 (rotation on).
    #[arg(long)]
    pub refresh_reuse_window: Option<String>,
}

impl RotationArgs {
    fn parse(&self) -> Result<Option<RefreshRotation>, CliError> {
        RefreshRotation::parse(
            self.refresh_rotation.as_deref(),
            self.refresh_reuse_window.as_deref(),
        )
        .map_err(|e| CliError::Usage(format!("--refresh-rotation/--refresh-reuse-window: {e}")))
    }
}

/// `--profile NAME` (`none`: no profile).
fn profile(s: Option<&str>) -> Result<Option<Option<Profile>>, CliError> {
    match s {
        None => Ok(None),
        Some("none") => Ok(Some(None)),
        Some(p) => Profile::parse(p)
            .map(|p| Some(Some(p)))
            .ok_or_else(|| CliError::Usage(format!("--profile {p:?}: fapi2 or none"))),
    }
}

/// `alg` has an active key where this store's server signs (a key set not made yet will have
/// RS256 and ES256): else its tokens could not be signed.
async fn signable(
    settings: &scanid_core::config::Settings,
    store: &dyn scanid_core::store::Backend,
    alg: Option<scanid_core::keys::Alg>,
    now: scanid_core::clock::Timestamp,
) -> Result<(), CliError> {
    use scanid_core::config::SigningMode;
    use scanid_core::keys::{Alg, KeyState};
    use scanid_core::store::KeySets;
    let Some(alg) = alg else { return Ok(()) };
    let set = match settings.signing {
        SigningMode::Local => scanid_core::keys::local::KeySet::load(&settings.data_dir)
            .map_err(|e| CliError::Failed(e.to_string()))?,
        _ => store.key_set(now).await?.map(|(set, _)| set),
    };
    let active = match set {
        Some(set) => set
            .keys
            .iter()
            .any(|k| k.alg == alg && k.state == KeyState::Active),
        None => matches!(alg, Alg::RS256 | Alg::ES256),
    };
    if active {
        return Ok(());
    }
    Err(CliError::Usage(format!(
        "--token-alg {0}: the server has no active {0} key; add one first (`scanid keys rotate \
         --alg {0}`, twice)",
        alg.as_str()
    )))
}

/// `--token-alg NAME`.
fn token_alg(s: Option<&str>) -> Result<Option<scanid_core::keys::Alg>, CliError> {
    s.map(|s| {
        scanid_core::keys::Alg::parse(s).ok_or_else(|| {
            CliError::Usage(format!("--token-alg {s:?}: RS256, ES256, PS256 or EdDSA"))
        })
    })
    .transpose()
}

/// `--jwks FILE` / `--jwks-uri URL` (and `--token-endpoint-auth-alg`): the client's keys,
/// validated; `None` when neither is given.
fn client_keys(
    jwks: Option<&std::path::Path>,
    jwks_uri: Option<&str>,
    alg: Option<&str>,
) -> Result<Option<scanid_core::domain::client_assertion::ClientKeys>, CliError> {
    let set = match jwks {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::Usage(format!("--jwks {}: {e}", path.display())))?;
            Some(serde_json::from_str(&text).map_err(|e| {
                CliError::Usage(format!("--jwks {}: not JSON: {e}", path.display()))
            })?)
        }
        None => None,
    };
    if set.is_none() && jwks_uri.is_none() {
        if alg.is_some() {
            return Err(CliError::Usage(
                "--token-endpoint-auth-alg goes with --jwks or --jwks-uri".into(),
            ));
        }
        return Ok(None);
    }
    scanid_core::domain::client_assertion::ClientKeys::new(
        set,
        jwks_uri.map(str::to_owned),
        alg.map(str::to_owned),
    )
    .map(Some)
    .map_err(|e| CliError::Usage(e.into()))
}

/// An admin role by its name.
fn admin_role(s: &str) -> Result<AdminRole, CliError> {
    AdminRole::parse(s).ok_or_else(|| {
        CliError::Usage(format!(
            "admin role {s:?}: realm-admin, manage-clients, view-clients, manage-users, view-users or view-events"
        ))
    })
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    #[arg(long)]
    pub client_id: String,
    /// Risk flags that refuse a login instead of warning (comma-separated):
    /// location_mismatch, first_from_here, high_usage; `none`: every flag warns.
    #[arg(long)]
    pub refuse_on: Option<String>,
    /// The lowest acr every login must reach: 1, 2 or 3; `none`: what the request asks.
    #[arg(long)]
    pub require_acr: Option<String>,
    /// Replace its keys with this JWK Set file (private_key_jwt; the secret stops working).
    #[arg(long, conflicts_with = "jwks_uri")]
    pub jwks: Option<std::path::PathBuf>,
    /// Replace its keys with the JWK Set published here (private_key_jwt).
    #[arg(long)]
    pub jwks_uri: Option<String>,
    /// The one algorithm of its assertions (with --jwks or --jwks-uri).
    #[arg(long)]
    pub token_endpoint_auth_alg: Option<String>,
    /// `true`: its authorization requests must be pushed (RFC 9126); `false`: not required.
    #[arg(long)]
    pub require_par: Option<bool>,
    /// `true`: its pushed requests must carry a signed request object (RFC 9101).
    #[arg(long)]
    pub require_signed_request_object: Option<bool>,
    /// `fapi2`: hold the client to FAPI 2.0 from now on; `none`: to no profile.
    #[arg(long)]
    pub profile: Option<String>,
    /// Sign its tokens with RS256, ES256, PS256 or EdDSA.
    #[arg(long)]
    pub token_alg: Option<String>,
    #[command(flatten)]
    pub rotation: RotationArgs,
    /// `true`: a DPoP proof is required at the token endpoint (RFC 9449); `false`: optional.
    #[arg(long)]
    pub dpop_bound_access_tokens: Option<bool>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `scanid client update`: the policy, the keys and PAR of a client.
async fn update(a: UpdateArgs, now: scanid_core::clock::Timestamp) -> Result<(), CliError> {
    let keys = client_keys(
        a.jwks.as_deref(),
        a.jwks_uri.as_deref(),
        a.token_endpoint_auth_alg.as_deref(),
    )?;
    let held = Held {
        profile: profile(a.profile.as_deref())?,
        token_alg: token_alg(a.token_alg.as_deref())?,
        rotation: a.rotation.parse()?,
    };
    if a.refuse_on.is_none()
        && a.require_acr.is_none()
        && keys.is_none()
        && a.require_par.is_none()
        && a.require_signed_request_object.is_none()
        && held.is_empty()
        && a.dpop_bound_access_tokens.is_none()
    {
        return Err(CliError::Usage(
            "say what to change: --refuse-on, --require-acr, --jwks or --jwks-uri, --require-par, \
             --require-signed-request-object, --profile, --token-alg, --refresh-rotation, --refresh-reuse-window, \
             --dpop-bound-access-tokens"
                .into(),
        ));
    }
    let flags = a
        .refuse_on
        .as_deref()
        .map(|f| refuse_on(Some(f)))
        .transpose()?;
    let acr = a
        .require_acr
        .as_deref()
        .map(|v| require_acr(Some(v)))
        .transpose()?;
    let settings = a.config.settings(OPERATOR_URL)?;
    let store = scanid_server::open::open_store(&settings).await?;
    signable(&settings, store.as_ref(), held.token_alg, now).await?;
    let Some((mut c, version)) = store.client(&a.client_id, now).await? else {
        return Err(CliError::Usage(format!("no client {:?}", a.client_id)));
    };
    if let Some(flags) = flags {
        c.refuse_on = flags;
    }
    if let Some(acr) = acr {
        c.require_acr = acr;
    }
    if let Some(keys) = keys {
        if c.client_type == client::ClientType::Public {
            return Err(CliError::Usage("a public client registers no keys".into()));
        }
        c.jwks = Some(keys);
        c.secret_jwt = None;
    }
    if let Some(par) = a.require_par {
        c.require_par = par;
    }
    if let Some(signed) = a.require_signed_request_object {
        c.require_signed_request_object = signed;
    }
    if let Some(dpop) = a.dpop_bound_access_tokens {
        c.dpop_bound_access_tokens = dpop;
    }
    // The profile decides last: a FAPI 2.0 client's tokens stay DPoP-bound.
    let c = held.apply(c)?;
    match store.update_client(&c, version, now).await {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => {
            return Err(CliError::Failed(
                "the client changed meanwhile; try again".into(),
            ))
        }
        Err(e) => return Err(e.into()),
    }
    print_json(&client_json(&c));
    Ok(())
}

/// What `client update` changes that the client's profile rules decide on.
struct Held {
    profile: Option<Option<Profile>>,
    token_alg: Option<scanid_core::keys::Alg>,
    rotation: Option<RefreshRotation>,
}

impl Held {
    fn is_empty(&self) -> bool {
        self.profile.is_none() && self.token_alg.is_none() && self.rotation.is_none()
    }

    /// `c` with the changes, held to its profile (the registration rules again, through
    /// `client::register`; its secret, registration, state and creation time kept).
    fn apply(self, mut c: client::Client) -> Result<client::Client, CliError> {
        if let Some(p) = self.profile {
            c.profile = p;
        }
        if let Some(alg) = self.token_alg {
            c.token_alg = Some(alg);
        }
        if let Some(r) = self.rotation {
            c.refresh_rotation = r;
        }
        if c.profile.is_none() {
            return Ok(c);
        }
        let new = scanid_core::domain::admin::representation::as_new_client(&c, true);
        let (mut held, _) = client::register(new, c.created_at, &SystemRandom::new())
            .map_err(|e| CliError::Usage(e.to_string()))?;
        held.secret_hash = c.secret_hash;
        held.registration = c.registration;
        held.disabled = c.disabled;
        Ok(held)
    }
}

/// `--require-acr`'s level (`none` or nothing: none).
fn require_acr(s: Option<&str>) -> Result<Option<Acr>, CliError> {
    match s {
        None | Some("none") => Ok(None),
        Some(v) => Acr::parse(v)
            .map(Some)
            .ok_or_else(|| CliError::Usage(format!("--require-acr {v:?}: 1, 2, 3 or none"))),
    }
}

/// `--refuse-on`'s flags.
fn refuse_on(s: Option<&str>) -> Result<Vec<Flag>, CliError> {
    Flag::parse_list(s.unwrap_or("")).map_err(|e| CliError::Usage(format!("--refuse-on {e}")))
}

/// A client as `client list` and `client show` print it.
fn client_json(c: &client::Client) -> serde_json::Value {
    json!({
        "client_id": c.client_id,
        "name": c.name,
        "client_type": c.client_type,
        "client_secret_jwt": c.secret_jwt.is_some(),
        "redirect_uris": c.redirect_uris,
        "post_logout_redirect_uris": c.post_logout_redirect_uris,
        "grant_types": c.grant_types,
        "token_alg": c.token_alg,
        "resource_server": c.resource_server,
        "web_origins": c.web_origins,
        "backchannel_logout_uri": c.backchannel_logout_uri,
        "refuse_on": c.refuse_on,
        "require_acr": c.require_acr,
        "require_pkce": c.require_pkce,
        "enabled": !c.disabled,
        "admin_roles": c.admin_roles,
        "jwks": c.jwks,
        "require_pushed_authorization_requests": c.require_par,
        "require_signed_request_object": c.require_signed_request_object,
        "profile": c.profile.map(|p| p.as_str()),
        "refresh_rotation": c.refresh_rotation.as_str(),
        "refresh_reuse_window": c.refresh_rotation.window(),
        "dpop_bound_access_tokens": c.dpop_bound_access_tokens,
        "created_at": c.created_at.to_rfc3339_millis(),
        // Registered by itself (RFC 7591), not by an operator.
        "registered": registration::self_registered(c),
    })
}

/// Operator commands do not serve, so the public URL only needs to be well-formed.
const OPERATOR_URL: &str = "http://127.0.0.1:8080";

pub async fn run(cmd: ClientCommand) -> Result<(), CliError> {
    let clock = SystemClock;
    let now = clock.now();
    match cmd {
        ClientCommand::Create(a) => create(*a, now).await?,
        ClientCommand::Import(a) => crate::import::run(a).await?,
        ClientCommand::List(a) => {
            let store = scanid_server::open::open_store(&a.config.settings(OPERATOR_URL)?).await?;
            let clients: Vec<_> = store.clients(now).await?.iter().map(client_json).collect();
            print_json(&json!({ "clients": clients }));
        }
        ClientCommand::Show(a) => {
            let store = scanid_server::open::open_store(&a.config.settings(OPERATOR_URL)?).await?;
            let Some((c, _)) = store.client(&a.client_id, now).await? else {
                return Err(CliError::Usage(format!("no client {:?}", a.client_id)));
            };
            print_json(&client_json(&c));
        }
        ClientCommand::Update(a) => update(a, now).await?,
        ClientCommand::Delete(a) => {
            let store = scanid_server::open::open_store(&a.config.settings(OPERATOR_URL)?).await?;
            if !store.delete_client(&a.client_id, now).await? {
                return Err(CliError::Usage(format!("no client {:?}", a.client_id)));
            }
            print_json(&json!({ "client_id": a.client_id, "deleted": true }));
        }
        ClientCommand::RotateSecret(a) => {
            let settings = a.config.settings(OPERATOR_URL)?;
            let store = scanid_server::open::open_store(&settings).await?;
            let Some((mut c, version)) = store.client(&a.client_id, now).await? else {
                return Err(CliError::Usage(format!("no client {:?}", a.client_id)));
            };
            if c.client_type == ClientType::Public {
                return Err(CliError::Usage("a public client has no secret".into()));
            }
            let secret = ClientSecret::generate(&SystemRandom::new());
            c.secret_hash = Some(secret.hash());
            scanid_server::open::seal_secret(&settings, &mut c, &secret)
                .await
                .map_err(CliError::Usage)?;
            match store.update_client(&c, version, now).await {
                Ok(()) => {}
                Err(StoreError::ConditionFailed) => {
                    return Err(CliError::Failed(
                        "the client changed meanwhile; try again".into(),
                    ))
                }
                Err(e) => return Err(e.into()),
            }
            print_json(&json!({ "client_id": c.client_id, "client_secret": secret.expose() }));
        }
        ClientCommand::Disable(a) => set_disabled(a, true, now).await?,
        ClientCommand::Enable(a) => set_disabled(a, false, now).await?,
        ClientCommand::AddRole(a) => set_role(a, true, now).await?,
        ClientCommand::RemoveRole(a) => set_role(a, false, now).await?,
        ClientCommand::RegistrationToken(RegistrationTokenCommand::Create(a)) => {
            create_registration_token(a, now).await?
        }
    }
    Ok(())
}

/// `client disable` and `client enable`.
async fn set_disabled(
    a: IdArgs,
    disabled: bool,
    now: scanid_core::clock::Timestamp,
) -> Result<(), CliError> {
    change(&a.client_id, &a.config, now, |c| {
        c.disabled = disabled;
        Ok(())
    })
    .await
}

/// `client add-role` (`add`) and `client remove-role`.
async fn set_role(
    a: RoleArgs,
    add: bool,
    now: scanid_core::clock::Timestamp,
) -> Result<(), CliError> {
    let role = admin_role(&a.role)?;
    change(&a.client_id, &a.config, now, |c| {
        if !add {
            c.admin_roles.retain(|r| *r != role);
            return Ok(());
        }
        if !c.allows(client::GrantType::ClientCredentials) {
            return Err(CliError::Usage(
                "admin roles belong to a client_credentials client (a service account)".into(),
            ));
        }
        if !c.admin_roles.contains(&role) {
            c.admin_roles.push(role);
            c.admin_roles.sort();
        }
        Ok(())
    })
    .await
}

/// Reads the client, changes it with `f`, writes it at the version read, and prints it.
async fn change(
    client_id: &str,
    config: &ConfigArgs,
    now: scanid_core::clock::Timestamp,
    f: impl FnOnce(&mut client::Client) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let store = scanid_server::open::open_store(&config.settings(OPERATOR_URL)?).await?;
    let Some((mut c, version)) = store.client(client_id, now).await? else {
        return Err(CliError::Usage(format!("no client {client_id:?}")));
    };
    f(&mut c)?;
    match store.update_client(&c, version, now).await {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => {
            return Err(CliError::Failed(
                "the client changed meanwhile; try again".into(),
            ))
        }
        Err(e) => return Err(e.into()),
    }
    print_json(&client_json(&c));
    Ok(())
}

/// How a new client authenticates: `--jwks`/`--jwks-uri` (private_key_jwt) or
/// `--client-secret-jwt`, with `--token-endpoint-auth-alg`; else by its secret.
type Authentication = (
    Option<scanid_core::domain::client_assertion::ClientKeys>,
    Option<scanid_core::domain::client_assertion::SecretJwt>,
);

fn authentication(a: &CreateArgs) -> Result<Authentication, CliError> {
    let alg = a.token_endpoint_auth_alg.clone();
    if a.client_secret_jwt {
        let jwt = scanid_core::domain::client_assertion::SecretJwt::new(alg)
            .map_err(|e| CliError::Usage(format!("--token-endpoint-auth-alg: {e}")))?;
        return Ok((None, Some(jwt)));
    }
    let keys = client_keys(a.jwks.as_deref(), a.jwks_uri.as_deref(), alg.as_deref())?;
    Ok((keys, None))
}

/// `scanid client create`: registers the client and prints its id and (once) its secret.
async fn create(a: CreateArgs, now: scanid_core::clock::Timestamp) -> Result<(), CliError> {
    let settings = a.config.settings(OPERATOR_URL)?;
    let store = scanid_server::open::open_store(&settings).await?;
    let token_alg = token_alg(a.token_alg.as_deref())?;
    signable(&settings, store.as_ref(), token_alg, now).await?;
    let admin_roles = a
        .admin_roles
        .iter()
        .map(|r| admin_role(r))
        .collect::<Result<Vec<_>, _>>()?;
    let mut device_code = false;
    let mut token_exchange = false;
    let mut ciba = false;
    let mut client_credentials = a.client_credentials;
    for g in &a.grants {
        match g.as_str() {
            "device_code" | "urn:ietf:params:oauth:grant-type:device_code" => device_code = true,
            "client_credentials" => client_credentials = true,
            "token_exchange" | "urn:ietf:params:oauth:grant-type:token-exchange" => {
                token_exchange = true;
            }
            "ciba" | "urn:openid:params:grant-type:ciba" => ciba = true,
            other => {
                return Err(CliError::Usage(format!(
                    "--grant {other:?}: device_code, client_credentials, token_exchange or ciba"
                )))
            }
        }
    }
    // A service account with no redirect URI has no code flow.
    let no_code_flow = a.redirect_uris.is_empty() && (client_credentials || ciba) && !device_code;
    let (jwks, secret_jwt) = authentication(&a)?;
    let (mut client, secret) = client::register(
        NewClient {
            name: a.name,
            redirect_uris: a.redirect_uris,
            post_logout_redirect_uris: a.post_logout_redirect_uris,
            public: a.public,
            client_credentials,
            device_code,
            client_id: a.client_id,
            token_alg,
            resource_server: a.resource_server,
            web_origins: a.web_origins,
            backchannel_logout_uri: a.backchannel_logout_uri,
            ciba_notification_endpoint: a.ciba_notification_endpoint,
            // Only a loopback public URL the operator names: the command's own
            // default (a loopback URL) says nothing about where the server runs.
            local_development: a.config.public_url.is_some() && settings.local_development(),
            refuse_on: refuse_on(a.refuse_on.as_deref())?,
            require_acr: require_acr(a.require_acr.as_deref())?,
            require_pkce: a.require_pkce,
            no_code_flow,
            admin_roles,
            jwks,
            secret_jwt,
            require_par: a.require_par,
            require_signed_request_object: a.require_signed_request_object,
            dpop_bound_access_tokens: a.dpop_bound_access_tokens,
            token_exchange,
            ciba,
            profile: profile(a.profile.as_deref())?.flatten(),
            refresh_rotation: a.rotation.parse()?.unwrap_or_default(),
        },
        now,
        &SystemRandom::new(),
    )
    .map_err(|e| CliError::Usage(e.to_string()))?;
    if let Some(s) = &secret {
        scanid_server::open::seal_secret(&settings, &mut client, s)
            .await
            .map_err(CliError::Usage)?;
    }
    match store.create_client(&client, now).await {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => {
            return Err(CliError::Usage(format!(
                "client id {:?} is taken",
                client.client_id
            )))
        }
        Err(e) => return Err(e.into()),
    }
    let mut out = json!({ "client_id": client.client_id });
    if let Some(s) = secret {
        out["client_secret"] = json!(s.expose());
    }
    print_json(&out);
    Ok(())
}

/// `scanid client registration-token create`: prints a new initial access token (once).
async fn create_registration_token(
    a: TokenArgs,
    now: scanid_core::clock::Timestamp,
) -> Result<(), CliError> {
    let settings = a.config.settings(OPERATOR_URL)?;
    let store = scanid_server::open::open_store(&settings).await?;
    let (token, record, expires_at) = create_initial_access_token(
        store.as_ref(),
        a.expires_in,
        a.uses,
        now,
        &SystemRandom::new(),
    )
    .await
    .map_err(|e| match e {
        CreateTokenError::Invalid(why) => CliError::Usage(why.into()),
        CreateTokenError::Store(s) => s.into(),
    })?;
    let mut out = json!({
        "initial_access_token": token.expose(),
        "uses": record.uses_left,
        "expires_at": scanid_core::clock::Timestamp::from_secs(expires_at).to_rfc3339_millis(),
    });
    // Only where the operator named the public URL (the default is a placeholder).
    if a.config.public_url.is_some() {
        out["registration_endpoint"] = json!(registration::endpoint(&settings.issuer()));
    }
    print_json(&out);
    Ok(())
}

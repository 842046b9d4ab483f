//! The one route table (method, path, handler, Lambda function, and what the handler needs:
//! its store access, CORS, the photo store).
//!
//! `scanid serve` routes with it; each Lambda binary serves the routes of its function;
//! `scanid routes generate` ([`crate::generate`]) writes the functions' blocks of `template.yaml`,
//! `functions/<name>/` and `events/<name>.json` from it (a test says they are up to date). Paths
//! use API Gateway's `{param}` syntax.

use std::collections::HashMap;

use crate::Context;
use crate::{handlers, HttpError, Request, Response};

/// Which handler serves a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Handler {
    /// The discovery document (OIDC Discovery, RFC 8414).
    Discovery,
    /// The signing keys (JWKS).
    Jwks,
    /// The authorization endpoint: the login page with its QR code.
    Authorize,
    /// The login page's poll of its QR login.
    LoginStatus,
    /// The consent page and its answer.
    Consent,
    /// "Sign in with a passkey" on the login page: a WebAuthn challenge, then the assertion.
    LoginPasskey,
    /// The app's sign-up.
    DeviceSignup,
    /// The app's scan of a QR code.
    DeviceScan,
    /// The app's decision on a QR login.
    DeviceDecide,
    /// The token endpoint.
    Token,
    /// Token introspection (RFC 7662).
    Introspect,
    /// The UserInfo endpoint.
    Userinfo,
    /// Token revocation (RFC 7009).
    Revoke,
    /// RP-initiated logout.
    Logout,
    /// The directory's public profile, by subject.
    DirectoryBySub,
    /// The directory's public profile, by service id.
    DirectoryByServiceId,
    /// Where an identity's avatar is.
    DirectoryAvatar,
    /// The app's profile update.
    DeviceProfile,
    /// The app's device-key rotation.
    DeviceKey,
    /// CORS preflights of the token, userinfo, revocation and logout endpoints.
    Preflight,
    /// The pages `keycloak-js` loads: the third-party-cookie probe and the login-status iframe.
    KeycloakPages,
    /// The web app's shell and files.
    AppPages,
    /// Whether a name is free (the sign-up form).
    DeviceName,
    /// An identity deletes itself.
    DeviceDelete,
    /// An identity's recent logins.
    DeviceActivity,
    /// A profile photo upload.
    DevicePhoto,
    /// "This wasn't me" on one of an identity's recent logins, and "sign out everywhere".
    DeviceReport,
    /// A hosted photo.
    Photo,
    /// Dynamic client registration (RFC 7591) and its management (RFC 7592).
    ClientRegistration,
    /// The device authorization endpoint (RFC 8628 §3.1).
    DeviceAuthorization,
    /// Pushed authorization requests (RFC 9126).
    PushedAuthorization,
    /// The device grant's verification page (RFC 8628 §3.3): type the code, then the QR.
    DevicePages,
    /// Passkeys (issue 26): WebAuthn challenges, and an identity's keys listed, added, removed.
    DevicePasskeys,
    /// Keycloak's admin REST API: server info, the realm, clients and their secrets,
    /// identities (disabling one or ending its sessions sends back-channel logout).
    Admin,
    /// The admin console's page and files (issue 37).
    AdminConsole,
}

/// One route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// The HTTP method.
    pub method: &'static str,
    /// The path, with API Gateway's `{param}` segments.
    pub path: &'static str,
    /// The handler that serves it.
    pub handler: Handler,
    /// The Lambda function (and `functions/<name>` binary) that serves it.
    pub function: &'static str,
    /// What its handler does with the table (and the keys): the template's IAM policy.
    pub access: Access,
    /// Browser clients call it with `fetch`: CORS per client's web origins.
    pub cors: bool,
    /// Its handler reads or writes hosted photos (on Lambda: links the S3 client).
    pub photos: bool,
}

const fn route(
    method: &'static str,
    path: &'static str,
    handler: Handler,
    function: &'static str,
    access: Access,
    cors: bool,
    photos: bool,
) -> Route {
    Route {
        method,
        path,
        handler,
        function,
        access,
        cors,
        photos,
    }
}

// The table's columns of what a handler needs, short so each row stays one line.
const READ: Access = Access::Read;
const WRITE: Access = Access::Write;
const SIGN: Access = Access::Sign;
const CORS: bool = true;
const NO_CORS: bool = false;
const PHOTOS: bool = true;
const NO_PHOTOS: bool = false;

/// Every route of the service: method, path, handler, function, access (`READ`: reads only;
/// `WRITE`: writes the table; `SIGN`: writes and signs tokens), `CORS` and `PHOTOS`. Every
/// row of one handler says the same access, CORS and photos (checked when the crate
/// compiles).
#[rustfmt::skip]
pub const ROUTES: &[Route] = &[
    route("GET",  "/realms/{realm}/.well-known/openid-configuration", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    // RFC 9110 §9.1: GET and HEAD. A HEAD answer is the GET answer without its body ([`serve`]).
    route("HEAD", "/realms/{realm}/.well-known/openid-configuration", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    // RFC 8414 Authorization Server Metadata: the discovery document, at Keycloak's path and
    // at the RFC's own (the well-known suffix inserted before the issuer's path, §3.1).
    route("GET",  "/realms/{realm}/.well-known/oauth-authorization-server", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    route("HEAD", "/realms/{realm}/.well-known/oauth-authorization-server", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/.well-known/oauth-authorization-server/realms/{realm}", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    route("HEAD", "/.well-known/oauth-authorization-server/realms/{realm}", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    // RFC 9728: the protected resource metadata of scanid's own APIs (the issuer's).
    route("GET",  "/.well-known/oauth-protected-resource/realms/{realm}", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    route("HEAD", "/.well-known/oauth-protected-resource/realms/{realm}", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/.well-known/oauth-protected-resource", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    route("HEAD", "/realms/{realm}/.well-known/oauth-protected-resource", Handler::Discovery, "discovery", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/protocol/openid-connect/certs", Handler::Jwks, "jwks", READ, NO_CORS, NO_PHOTOS),
    route("HEAD", "/realms/{realm}/protocol/openid-connect/certs", Handler::Jwks, "jwks", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/protocol/openid-connect/auth", Handler::Authorize, "authorize", SIGN, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/protocol/openid-connect/auth", Handler::Authorize, "authorize", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/login-actions/status", Handler::LoginStatus, "login-status", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/login-actions/consent", Handler::Consent, "consent", SIGN, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/login-actions/consent", Handler::Consent, "consent", SIGN, NO_CORS, NO_PHOTOS),
    // "Sign in with a passkey" on the login page (issue 26): a challenge, then the assertion;
    // spends a WebAuthn challenge, records the passkey's use, approves the login.
    route("POST", "/realms/{realm}/login-actions/passkey", Handler::LoginPasskey, "login-passkey", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/app/identities", Handler::DeviceSignup, "app-signup", WRITE, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/app/scan", Handler::DeviceScan, "app-scan", WRITE, NO_CORS, NO_PHOTOS),
    // The shell; API Gateway routes `.../app/` here too (it ignores a trailing slash), and so
    // does `match_route`. The handler sends `.../app` on to `.../app/`.
    route("GET",  "/realms/{realm}/app", Handler::AppPages, "app-pages", READ, NO_CORS, NO_PHOTOS),
    // After every literal `/app/...` route: API Gateway, too, prefers the literal path.
    route("GET",  "/realms/{realm}/app/{file}", Handler::AppPages, "app-pages", READ, NO_CORS, NO_PHOTOS),
    // Counts each lookup against its source (a counter write): the name oracle is rate
    // limited as sign-up is.
    route("GET",  "/realms/{realm}/app/names/{name}", Handler::DeviceName, "app-name", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/app/login-sessions/{login_session_id}", Handler::DeviceDecide, "app-decide", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/protocol/openid-connect/token", Handler::Token, "token", SIGN, CORS, NO_PHOTOS),
    // RFC 9126 at Keycloak's path: stores the pushed request (one write).
    route("POST", "/realms/{realm}/protocol/openid-connect/ext/par/request", Handler::PushedAuthorization, "par", WRITE, NO_CORS, NO_PHOTOS),
    // RFC 8628 at Keycloak's paths.
    route("POST", "/realms/{realm}/protocol/openid-connect/auth/device", Handler::DeviceAuthorization, "device-authorization", WRITE, NO_CORS, NO_PHOTOS),
    // OpenID CIBA at Keycloak's path, in the same function: both store a request a person
    // decides on the phone.
    route("POST", "/realms/{realm}/protocol/openid-connect/ext/ciba/auth", Handler::DeviceAuthorization, "device-authorization", WRITE, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/device", Handler::DevicePages, "device-pages", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/device", Handler::DevicePages, "device-pages", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/protocol/openid-connect/introspect", Handler::Introspect, "introspect", SIGN, NO_CORS, NO_PHOTOS),
    // Keycloak's own path for introspection (its Python and Node clients call it there).
    route("POST", "/realms/{realm}/protocol/openid-connect/token/introspect", Handler::Introspect, "introspect", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/protocol/openid-connect/userinfo", Handler::Userinfo, "userinfo", WRITE, CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/protocol/openid-connect/userinfo", Handler::Userinfo, "userinfo", WRITE, CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/protocol/openid-connect/revoke", Handler::Revoke, "revoke", WRITE, CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/protocol/openid-connect/logout", Handler::Logout, "logout", SIGN, CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/protocol/openid-connect/logout", Handler::Logout, "logout", SIGN, CORS, NO_PHOTOS),
    // Deleting an identity, replacing its key (with "end every session") and "this wasn't me"
    // end sessions: they sign back-channel logout tokens (OIDC Back-Channel Logout), as the
    // token endpoint (revoking a session's grants) and logout do.
    route("PATCH", "/realms/{realm}/app/identities/{sub}", Handler::DeviceProfile, "app-profile", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/app/identities/{sub}/key", Handler::DeviceKey, "app-key", SIGN, NO_CORS, NO_PHOTOS),
    route("DELETE", "/realms/{realm}/app/identities/{sub}", Handler::DeviceDelete, "app-delete", SIGN, NO_CORS, PHOTOS),
    route("POST", "/realms/{realm}/app/identities/{sub}/activity", Handler::DeviceActivity, "app-activity", WRITE, NO_CORS, NO_PHOTOS),
    // The agents the identity delegates to (token exchange), and withdrawing one: reads and
    // a consent's deletion, signed like the activity read (served by its function).
    route("POST", "/realms/{realm}/app/identities/{sub}/delegations", Handler::DeviceActivity, "app-activity", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/app/identities/{sub}/delegations/withdraw", Handler::DeviceActivity, "app-activity", WRITE, NO_CORS, NO_PHOTOS),
    // The backchannel requests (OpenID CIBA) waiting for the identity, and one opened for the
    // approval screen (a QR login written): signed like the activity read.
    route("POST", "/realms/{realm}/app/identities/{sub}/backchannel-requests", Handler::DeviceActivity, "app-activity", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/app/identities/{sub}/backchannel-requests/open", Handler::DeviceActivity, "app-activity", WRITE, NO_CORS, NO_PHOTOS),
    // Push subscriptions (Web Push of a new backchannel request): the key to subscribe with
    // (unsigned), a subscription registered (push-subscribe+jwt) or withdrawn (push-withdraw+jwt).
    route("POST", "/realms/{realm}/app/identities/{sub}/push-subscriptions", Handler::DeviceActivity, "app-activity", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/app/identities/{sub}/push-subscriptions/withdraw", Handler::DeviceActivity, "app-activity", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/app/identities/{sub}/photo", Handler::DevicePhoto, "app-photo", WRITE, NO_CORS, PHOTOS),
    route("POST", "/realms/{realm}/app/identities/{sub}/logins/{login_id}/report", Handler::DeviceReport, "app-report", SIGN, NO_CORS, NO_PHOTOS),
    // "Sign out everywhere" (issue 38): ends sessions as a report does, in the same function.
    route("POST", "/realms/{realm}/app/identities/{sub}/sign-out", Handler::DeviceReport, "app-report", SIGN, NO_CORS, NO_PHOTOS),
    // Passkeys (issue 26): spends challenges and request ids, writes passkeys.
    route("POST", "/realms/{realm}/app/passkey-challenges", Handler::DevicePasskeys, "app-passkeys", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/app/identities/{sub}/keys", Handler::DevicePasskeys, "app-passkeys", WRITE, NO_CORS, NO_PHOTOS),
    route("POST", "/realms/{realm}/app/identities/{sub}/passkeys", Handler::DevicePasskeys, "app-passkeys", WRITE, NO_CORS, NO_PHOTOS),
    route("DELETE", "/realms/{realm}/app/identities/{sub}/keys/{key_id}", Handler::DevicePasskeys, "app-passkeys", WRITE, NO_CORS, NO_PHOTOS),
    // Reads the table and lists the clients (their web origins): GetItem and Query on the
    // client index.
    route("OPTIONS", "/realms/{realm}/protocol/openid-connect/token", Handler::Preflight, "cors-preflight", READ, NO_CORS, NO_PHOTOS),
    route("OPTIONS", "/realms/{realm}/protocol/openid-connect/userinfo", Handler::Preflight, "cors-preflight", READ, NO_CORS, NO_PHOTOS),
    route("OPTIONS", "/realms/{realm}/protocol/openid-connect/revoke", Handler::Preflight, "cors-preflight", READ, NO_CORS, NO_PHOTOS),
    route("OPTIONS", "/realms/{realm}/protocol/openid-connect/logout", Handler::Preflight, "cors-preflight", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/protocol/openid-connect/3p-cookies/step1.html", Handler::KeycloakPages, "keycloak-pages", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/protocol/openid-connect/3p-cookies/step2.html", Handler::KeycloakPages, "keycloak-pages", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/protocol/openid-connect/login-status-iframe.html", Handler::KeycloakPages, "keycloak-pages", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/protocol/openid-connect/login-status-iframe.html/init", Handler::KeycloakPages, "keycloak-pages", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/v1/directory/profile/{service_id}", Handler::DirectoryByServiceId, "directory-by-service-id", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/v1/directory/{sub}/avatar", Handler::DirectoryAvatar, "directory-avatar", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/v1/directory/{sub}", Handler::DirectoryBySub, "directory-profile", READ, NO_CORS, NO_PHOTOS),
    route("GET",  "/v1/photos/{sub}/{hash}", Handler::Photo, "photos", READ, NO_CORS, PHOTOS),
    // Counts registrations per source, spends initial access tokens, writes clients.
    // RFC 7591 registration and RFC 7592 management, at Keycloak's paths.
    route("POST", "/realms/{realm}/clients-registrations/openid-connect", Handler::ClientRegistration, "client-registration", WRITE, NO_CORS, NO_PHOTOS),
    route("OPTIONS", "/realms/{realm}/clients-registrations/openid-connect", Handler::ClientRegistration, "client-registration", WRITE, NO_CORS, NO_PHOTOS),
    route("GET",  "/realms/{realm}/clients-registrations/openid-connect/{client_id}", Handler::ClientRegistration, "client-registration", WRITE, NO_CORS, NO_PHOTOS),
    route("PUT",  "/realms/{realm}/clients-registrations/openid-connect/{client_id}", Handler::ClientRegistration, "client-registration", WRITE, NO_CORS, NO_PHOTOS),
    route("DELETE", "/realms/{realm}/clients-registrations/openid-connect/{client_id}", Handler::ClientRegistration, "client-registration", WRITE, NO_CORS, NO_PHOTOS),
    // Keycloak's admin REST API, one function: counts refused calls per source, lists and
    // writes clients and identities, ends sessions: signs their back-channel logout tokens
    // and queues them (as the app's delete does). `{id}` is the client's clientId (Keycloak's internal id).
    route("GET",  "/admin/serverinfo", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/clients", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("POST", "/admin/realms/{realm}/clients", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/clients/{id}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("PUT",  "/admin/realms/{realm}/clients/{id}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("DELETE", "/admin/realms/{realm}/clients/{id}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/clients/{id}/client-secret", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("POST", "/admin/realms/{realm}/clients/{id}/client-secret", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/clients/{id}/service-account-user", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    // Identities (Keycloak's users; `{id}` is the `sub`) and their groups (`{groupId}` is
    // the group's name); `users/count` before `users/{id}`, as API Gateway prefers it.
    route("GET",  "/admin/realms/{realm}/users", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/users/count", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/users/{id}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("PUT",  "/admin/realms/{realm}/users/{id}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("DELETE", "/admin/realms/{realm}/users/{id}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/users/{id}/groups", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("PUT",  "/admin/realms/{realm}/users/{id}/groups/{groupId}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("DELETE", "/admin/realms/{realm}/users/{id}/groups/{groupId}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/users/{id}/sessions", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("POST", "/admin/realms/{realm}/users/{id}/logout", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/users/{id}/credentials", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/groups", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/groups/{id}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/groups/{id}/members", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    // The admin API's events (view-events), keys and import (handlers/admin_ops.rs).
    route("GET",  "/admin/realms/{realm}/events", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/admin-events", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/events/config", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("PUT",  "/admin/realms/{realm}/events/config", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/realms/{realm}/keys", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("POST", "/admin/realms/{realm}/keys/rotate", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("DELETE", "/admin/realms/{realm}/keys/{kid}", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    route("POST", "/admin/realms/{realm}/partialImport", Handler::Admin, "admin-api", SIGN, NO_CORS, NO_PHOTOS),
    // The admin console: its page (writes the console's built-in client when it differs),
    // its files, and Keycloak's console URL sent to the page. After the API's literal paths.
    route("GET",  "/admin", Handler::AdminConsole, "admin-console", WRITE, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/console/{file}", Handler::AdminConsole, "admin-console", WRITE, NO_CORS, NO_PHOTOS),
    route("GET",  "/admin/{realm}/console", Handler::AdminConsole, "admin-console", WRITE, NO_CORS, NO_PHOTOS),
];

/// What a handler's call returns.
pub type Reply<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response, HttpError>> + Send + 'a>>;

/// One handler as a value: a Lambda function names its own ([`endpoints`]), so its binary
/// links that handler and no other; `scanid serve` finds them through [`endpoint`].
#[derive(Clone, Copy)]
pub struct Endpoint {
    /// The handler it runs.
    pub handler: Handler,
    /// Runs the handler on a request.
    pub call: for<'a> fn(&'a Context, Request) -> Reply<'a>,
    /// How its error pages are drawn, for the handlers that answer with pages (`None`: JSON
    /// only). A function pointer set only in those rows, so a Lambda function that shows no
    /// page links neither the catalogues nor the templates.
    pub pages: Option<crate::i18n::PageRenderer>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Endpoint").field(&self.handler).finish()
    }
}

macro_rules! endpoints {
    ($($name:ident => $handler:ident: $call:path $([$pages:ident])?),* $(,)?) => {
        /// Every handler as an [`Endpoint`], one constant per [`Handler`] variant.
        pub mod endpoints {
            use super::*;
            $(
                #[doc = concat!("The endpoint of [`Handler::", stringify!($handler), "`].")]
                pub const $name: Endpoint = Endpoint {
                    handler: Handler::$handler,
                    call: {
                        fn call(ctx: &Context, req: Request) -> Reply<'_> {
                            Box::pin($call(ctx, req))
                        }
                        call
                    },
                    pages: endpoints!(@pages $($pages)?),
                };
            )*
        }
        endpoints!(@rest $($name => $handler),*);
    };
    (@pages) => { None };
    (@pages pages) => { Some(crate::pages::error_page as crate::i18n::PageRenderer) };
    (@rest $($name:ident => $handler:ident),*) => {
        /// Every handler, in the order of [`endpoints`].
        pub const HANDLERS: &[Handler] = &[$(Handler::$handler),*];

        /// The endpoint of `handler` (the local server; a Lambda function names its own).
        pub const fn endpoint(handler: Handler) -> Endpoint {
            match handler {
                $(Handler::$handler => endpoints::$name,)*
            }
        }
    };
}

endpoints! {
    DISCOVERY => Discovery: handlers::metadata::discovery,
    JWKS => Jwks: handlers::metadata::jwks,
    AUTHORIZE => Authorize: handlers::login::authorize [pages],
    LOGIN_STATUS => LoginStatus: handlers::login::status,
    CONSENT => Consent: handlers::login::consent [pages],
    LOGIN_PASSKEY => LoginPasskey: handlers::login::passkey [pages],
    DEVICE_SIGNUP => DeviceSignup: handlers::device_api::signup,
    DEVICE_SCAN => DeviceScan: handlers::device_api::scan,
    DEVICE_DECIDE => DeviceDecide: handlers::device_api::decide,
    TOKEN => Token: handlers::token::token,
    INTROSPECT => Introspect: handlers::resource::introspect,
    USERINFO => Userinfo: handlers::resource::userinfo,
    REVOKE => Revoke: handlers::resource::revoke,
    LOGOUT => Logout: handlers::logout::logout [pages],
    DIRECTORY_BY_SUB => DirectoryBySub: handlers::directory::by_sub,
    DIRECTORY_BY_SERVICE_ID => DirectoryByServiceId: handlers::directory::by_service_id,
    DIRECTORY_AVATAR => DirectoryAvatar: handlers::directory::avatar,
    DEVICE_PROFILE => DeviceProfile: handlers::device_api::update_profile,
    DEVICE_KEY => DeviceKey: handlers::device_api::rotate_key,
    PREFLIGHT => Preflight: crate::cors::preflight,
    KEYCLOAK_PAGES => KeycloakPages: handlers::keycloak::page,
    APP_PAGES => AppPages: handlers::app::page,
    DEVICE_NAME => DeviceName: handlers::device_api::name,
    DEVICE_DELETE => DeviceDelete: handlers::device_api::delete_identity,
    DEVICE_ACTIVITY => DeviceActivity: handlers::device_api::activity,
    DEVICE_PHOTO => DevicePhoto: handlers::device_api::upload_photo,
    DEVICE_REPORT => DeviceReport: handlers::device_api::report,
    PHOTO => Photo: handlers::directory::photo,
    CLIENT_REGISTRATION => ClientRegistration: handlers::registration::registration,
    DEVICE_AUTHORIZATION => DeviceAuthorization: handlers::device_grant::authorization,
    PUSHED_AUTHORIZATION => PushedAuthorization: handlers::par::push,
    DEVICE_PAGES => DevicePages: handlers::device_grant::page [pages],
    DEVICE_PASSKEYS => DevicePasskeys: handlers::passkeys::passkeys,
    ADMIN => Admin: handlers::admin::admin,
    ADMIN_CONSOLE => AdminConsole: handlers::console::console,
}

/// Runs `handler` (the local server); see [`serve`].
pub async fn dispatch(handler: Handler, ctx: &Context, req: Request) -> Response {
    serve(endpoint(handler), ctx, req).await
}

/// Runs an endpoint; every error becomes its response here, then CORS and HSTS.
pub async fn serve(endpoint: Endpoint, ctx: &Context, req: Request) -> Response {
    let handler = endpoint.handler;
    let head = req.method() == http::Method::HEAD;
    let req = match crate::edge::admit(&ctx.settings, req) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let origin = handler
        .cors()
        .then(|| crate::cors::origin(&req).map(str::to_owned))
        .flatten();
    // An error page speaks the request's language; a language picked on a page is remembered.
    let tr = crate::i18n::Tr::of(ctx, &req, None).drawing(endpoint.pages);
    let remember = crate::i18n::remember(ctx, &req);
    let result = (endpoint.call)(ctx, req).await;
    let mut response = result.unwrap_or_else(|e| e.into_response_in(&tr));
    if let Some(cookie) = remember {
        let html = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/html"));
        if html {
            if let Ok(v) = http::HeaderValue::from_str(&cookie) {
                response.headers_mut().append(http::header::SET_COOKIE, v);
            }
        }
    }
    if handler.cors() {
        response = crate::cors::finish_response(ctx, origin.as_deref(), response).await;
    }
    if head {
        response = without_body(response);
    }
    if ctx.settings.secure_cookies() {
        // Served over https: browsers must never come back over plain HTTP (RFC 6797).
        response.headers_mut().insert(
            "strict-transport-security",
            http::HeaderValue::from_static("max-age=31536000"),
        );
    }
    response
}

/// The answer to HEAD (RFC 9110 §9.3.2): the GET answer's status and headers, its
/// `Content-Length` included, and no body.
fn without_body(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let len = AsRef::<[u8]>::as_ref(&body).len();
    parts
        .headers
        .insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(len));
    Response::from_parts(parts, lambda_http::Body::Empty)
}

/// What a handler needs besides reading the table. The template's IAM policies grant exactly
/// this per function (a test holds them to it), and a Lambda function of a read-only handler
/// runs on a store that refuses writes, so a handler that starts writing fails its tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only: `GetItem` (and the key set).
    Read,
    /// Reads and writes the table.
    Write,
    /// Writes the table and signs tokens (`kms:Sign`, or `kms:Decrypt` in kms-envelope mode).
    Sign,
}

/// The first row of `handler` in [`ROUTES`].
const fn row_of(handler: Handler) -> Option<&'static Route> {
    let mut i = 0;
    while i < ROUTES.len() {
        if ROUTES[i].handler as u8 == handler as u8 {
            return Some(&ROUTES[i]);
        }
        i += 1;
    }
    None
}

/// Every handler has a row, and all the rows of one handler agree on its access, CORS and
/// photos: a table that breaks this does not compile.
const _: () = {
    let mut i = 0;
    while i < HANDLERS.len() {
        assert!(row_of(HANDLERS[i]).is_some(), "a handler without a route");
        i += 1;
    }
    let mut i = 0;
    while i < ROUTES.len() {
        let r = &ROUTES[i];
        if let Some(first) = row_of(r.handler) {
            assert!(
                first.access as u8 == r.access as u8
                    && first.cors == r.cors
                    && first.photos == r.photos,
                "the rows of one handler disagree on access, CORS or photos"
            );
        }
        i += 1;
    }
};

impl Handler {
    /// The handler's access, as its rows in [`ROUTES`] say.
    pub const fn access(self) -> Access {
        match row_of(self) {
            Some(r) => r.access,
            // Unreachable: the table's check above gives every handler a row.
            None => Access::Read,
        }
    }
}

impl Handler {
    /// Handlers that may end SSO sessions, and so hand back-channel logout tokens to the
    /// context's port (on Lambda: the functions that may send to the queue).
    pub const fn ends_sessions(self) -> bool {
        matches!(
            self,
            Handler::Token
                | Handler::Logout
                | Handler::DeviceDelete
                | Handler::DeviceKey
                | Handler::DeviceReport
                | Handler::Admin
        )
    }

    /// Endpoints that seal `client_secret_jwt` clients' secrets (they create clients): with
    /// `kms-envelope` their functions may make the sealing key and wrap it (`kms:Encrypt`).
    pub const fn seals_client_secrets(self) -> bool {
        matches!(self, Handler::Admin | Handler::ClientRegistration)
    }

    /// Endpoints that hold the sealing key of `client_secret_jwt` clients' secrets: those that
    /// authenticate clients (to check a client's HMAC) and those that seal them. With
    /// `kms-envelope` their functions may decrypt it (`kms:Decrypt`, once per container).
    pub const fn holds_sealing_key(self) -> bool {
        self.authenticates_clients() || self.seals_client_secrets()
    }

    /// Endpoints that hand deliveries to the back-channel queue (on AWS; a task under
    /// `serve`): those that end sessions (logout tokens), the CIBA endpoint (a Web Push to the
    /// person's apps) and the app's decision (a CIBA ping to the client). Only their functions
    /// link the SQS client and may send to the queue.
    pub const fn queues_deliveries(self) -> bool {
        self.ends_sessions() || matches!(self, Handler::DeviceAuthorization | Handler::DeviceDecide)
    }

    /// Endpoints that authenticate clients, so may verify a `private_key_jwt` assertion with
    /// keys fetched from the client's `jwks_uri`, or fetch a client's metadata document (an
    /// `https` `client_id`: the authorization endpoint too): only their functions link the
    /// HTTP client that fetches them (it adds about 0.27 MB zipped, which the read-only
    /// functions' 3 MB bar has no room for).
    pub const fn authenticates_clients(self) -> bool {
        matches!(
            self,
            Handler::Token
                | Handler::Authorize
                | Handler::Introspect
                | Handler::Revoke
                | Handler::DeviceAuthorization
                | Handler::PushedAuthorization
        )
    }

    /// Signing handlers that sign only when a client asks for it (a JARM authorization
    /// response, a signed introspection response): their functions link the signer but do not
    /// decrypt the signing key at init, so a cold start of the authorization endpoint waits on
    /// no KMS call; the first such response in a container pays it.
    pub const fn signs_on_request(self) -> bool {
        matches!(
            self,
            Handler::Authorize | Handler::Consent | Handler::Introspect
        )
    }

    /// Endpoints browser clients call with `fetch` (CORS per client's web origins), as the
    /// table's CORS column says.
    pub const fn cors(self) -> bool {
        matches!(row_of(self), Some(r) if r.cors)
    }
}

impl Handler {
    /// Handlers that list the registered clients (a `Query` on the table's kind index): the
    /// CORS endpoints (the clients' web origins), deleting an identity (its consents, one
    /// per client), and the admin API's list of clients.
    pub const fn lists_clients(self) -> bool {
        matches!(
            self,
            Handler::Preflight | Handler::DeviceDelete | Handler::Admin
        ) || self.cors()
    }
}

/// The largest photo upload's body: 1 MB of image in base64, and the signed request.
pub const PHOTO_BODY: usize = 1_450_000;

impl Handler {
    /// Handlers that read or write hosted photos (on Lambda: the functions that link the S3
    /// client), as the table's photos column says.
    pub const fn photos(self) -> bool {
        matches!(row_of(self), Some(r) if r.photos)
    }

    /// A larger request body than the server's default, where a handler needs one.
    pub const fn body_limit(self) -> Option<usize> {
        match self {
            Handler::DevicePhoto => Some(PHOTO_BODY),
            _ => None,
        }
    }
}

/// The handler of a Lambda function, by its name.
pub fn function_handler(function: &str) -> Option<Handler> {
    ROUTES
        .iter()
        .find(|r| r.function == function)
        .map(|r| r.handler)
}

/// The Lambda function that serves `handler` (its name in `functions/` and `template.yaml`).
pub fn function_of(handler: Handler) -> &'static str {
    ROUTES
        .iter()
        .find(|r| r.handler == handler)
        .map_or("unknown", |r| r.function)
}

/// The distinct function names, in table order.
pub fn functions() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for r in ROUTES {
        if !v.contains(&r.function) {
            v.push(r.function);
        }
    }
    v
}

/// The result of routing a request.
#[derive(Debug, PartialEq, Eq)]
pub enum Matched {
    /// The route, and its path parameters, percent-decoded.
    Found(&'static Route, HashMap<String, String>),
    /// The path exists with other methods: these.
    MethodNotAllowed(Vec<&'static str>),
    /// No route has this path.
    NotFound,
}

/// `req` as its handler wants it. A request that came by the function's own Lambda function
/// URL (the login-status function's, `SCANID_LOGIN_STATUS_URL`) has no API Gateway route
/// (`routeKey` `$default`) and so no path parameters: it gets those of the function's route its
/// method and path match, and `None` (a 404) when none does. Every other request is as API
/// Gateway routed it.
pub fn routed(endpoint: Endpoint, req: Request) -> Option<Request> {
    use lambda_http::request::RequestContext;
    use lambda_http::RequestExt;
    let by_function_url = matches!(
        req.request_context_ref(),
        Some(RequestContext::ApiGatewayV2(c)) if c.route_key.as_deref() == Some("$default")
    ) && req.path_parameters_ref().is_none_or(|p| p.is_empty());
    if !by_function_url {
        return Some(req);
    }
    match match_route(req.method().as_str(), req.uri().path()) {
        Matched::Found(r, params) if r.handler == endpoint.handler => {
            Some(req.with_path_parameters(params))
        }
        _ => None,
    }
}

/// Finds the route for `method` and `path` (the raw, still percent-encoded path).
pub fn match_route(method: &str, path: &str) -> Matched {
    match match_exact(method, path) {
        // API Gateway routes `/x/` as `/x`. Of this service's routes only the web app's shell
        // (its page needs the slash for its relative URLs) and the admin API (Keycloak's admin
        // client asks for `.../clients/` and `.../users/`) are ever asked for with the slash,
        // so only they are matched so here; everything else keeps one exact path.
        Matched::NotFound if path.len() > 1 && path.ends_with('/') => {
            match match_exact(method, &path[..path.len() - 1]) {
                found @ Matched::Found(r, _)
                    if matches!(
                        r.handler,
                        Handler::AppPages | Handler::AdminConsole | Handler::Admin
                    ) =>
                {
                    found
                }
                _ => Matched::NotFound,
            }
        }
        other => other,
    }
}

fn match_exact(method: &str, path: &str) -> Matched {
    let mut allowed = Vec::new();
    for r in ROUTES {
        if let Some(params) = match_path(r.path, path) {
            if r.method == method {
                return Matched::Found(r, params);
            }
            allowed.push(r.method);
        }
    }
    if allowed.is_empty() {
        Matched::NotFound
    } else {
        allowed.dedup();
        Matched::MethodNotAllowed(allowed)
    }
}

/// Matches `/a/{x}/b` against `/a/1/b`; parameters are percent-decoded, as API Gateway does.
/// The segments are compared first, and parameters decoded only for the route that matches:
/// every request is compared with the whole table, and decoding `{realm}` into a map for
/// each row sharing the prefix was a whole QR login's 3% of the server's instructions.
fn match_path(template: &str, path: &str) -> Option<HashMap<String, String>> {
    let mut t = template.split('/');
    let mut p = path.split('/');
    loop {
        match (t.next(), p.next()) {
            (None, None) => break,
            (Some(ts), Some(ps)) => {
                if param_name(ts).is_some() {
                    if ps.is_empty() {
                        return None;
                    }
                } else if ts != ps {
                    return None;
                }
            }
            _ => return None,
        }
    }
    // Like API Gateway: the route matches; the handler judges the values.
    Some(
        template
            .split('/')
            .zip(path.split('/'))
            .filter_map(|(ts, ps)| {
                let name = param_name(ts)?;
                let value = percent_encoding::percent_decode_str(ps).decode_utf8_lossy();
                Some((name.to_owned(), value.into_owned()))
            })
            .collect(),
    )
}

/// `x` of a template's segment `{x}`.
fn param_name(segment: &str) -> Option<&str> {
    segment.strip_prefix('{').and_then(|n| n.strip_suffix('}'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_by_the_function_url_gets_its_routes_parameters() {
        use lambda_http::aws_lambda_events::apigw::ApiGatewayV2httpRequestContext;
        use lambda_http::request::RequestContext;
        use lambda_http::RequestExt;
        let endpoint = endpoints::LOGIN_STATUS;
        let request = |method: &str, path: &str, route_key: &str| {
            let req: Request = http::Request::builder()
                .method(method)
                .uri(format!(
                    "https://abc.lambda-url.eu-west-1.on.aws{path}?session=x"
                ))
                .body(lambda_http::Body::Empty)
                .unwrap();
            let mut ctx = ApiGatewayV2httpRequestContext::default();
            ctx.route_key = Some(route_key.to_owned());
            req.with_request_context(RequestContext::ApiGatewayV2(ctx))
        };
        let status = "/realms/scanid/login-actions/status";
        let r = routed(endpoint, request("GET", status, "$default")).expect("its route");
        assert_eq!(
            r.path_parameters_ref().and_then(|p| p.first("realm")),
            Some("scanid")
        );
        // Another function's path, another method, a longer path: no route of this function.
        for (method, path) in [
            ("GET", "/realms/scanid/login-actions/consent"),
            ("POST", status),
            ("GET", "/realms/scanid/login-actions/status/x"),
            ("GET", "/"),
        ] {
            assert!(
                routed(endpoint, request(method, path, "$default")).is_none(),
                "{method} {path}"
            );
        }
        // API Gateway's requests are as it routed them.
        let gw = request(
            "GET",
            "/anything",
            "GET /realms/{realm}/login-actions/status",
        );
        let r = routed(endpoint, gw).expect("untouched");
        assert!(r.path_parameters_ref().is_none_or(|p| p.is_empty()));
    }

    /// A Lambda function URL's event as AWS documents it (payload 2.0: `routeKey` and `stage`
    /// `$default`, no `pathParameters`), parsed by lambda_http as the function's runtime parses
    /// it: routed, it gets the status route's realm.
    #[test]
    fn a_function_url_event_parsed_by_lambda_http_is_routed() {
        use lambda_http::RequestExt;
        let event = r#"{
          "version": "2.0",
          "routeKey": "$default",
          "rawPath": "/realms/scanid/login-actions/status",
          "rawQueryString": "session=abc&poll=def",
          "headers": {"accept": "application/json", "origin": "https://id.example.com",
                      "host": "abcdefgh.lambda-url.eu-west-1.on.aws"},
          "queryStringParameters": {"session": "abc", "poll": "def"},
          "requestContext": {
            "accountId": "123456789012", "apiId": "abcdefgh",
            "domainName": "abcdefgh.lambda-url.eu-west-1.on.aws", "domainPrefix": "abcdefgh",
            "http": {"method": "GET", "path": "/realms/scanid/login-actions/status",
                     "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7", "userAgent": "test"},
            "requestId": "id", "routeKey": "$default", "stage": "$default",
            "time": "29/Nov/2026:06:00:00 +0000", "timeEpoch": 1795845600000
          },
          "isBase64Encoded": false
        }"#;
        let req = lambda_http::request::from_str(event).expect("a function URL event");
        assert_eq!(req.uri().path(), "/realms/scanid/login-actions/status");
        let r = routed(endpoints::LOGIN_STATUS, req).expect("its route");
        assert_eq!(
            r.path_parameters_ref().and_then(|p| p.first("realm")),
            Some("scanid")
        );
        assert_eq!(crate::source_ip(&r), "203.0.113.7");
        // The same event for another function's handler: not its route.
        let req = lambda_http::request::from_str(event).unwrap();
        assert!(routed(endpoints::CONSENT, req).is_none());
    }

    #[test]
    fn matches_templates_and_decodes_params() {
        match match_route("GET", "/realms/scanid/protocol/openid-connect/certs") {
            Matched::Found(r, p) => {
                assert_eq!(r.handler, Handler::Jwks);
                assert_eq!(p["realm"], "scanid");
            }
            other => panic!("{other:?}"),
        }
        match match_route("GET", "/realms/a%20b/.well-known/openid-configuration") {
            Matched::Found(_, p) => assert_eq!(p["realm"], "a b"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            match_route("POST", "/realms/x/protocol/openid-connect/certs"),
            Matched::MethodNotAllowed(vec!["GET", "HEAD"])
        );
        assert_eq!(
            match_route("GET", "/realms//protocol/openid-connect/certs"),
            Matched::NotFound
        );
        assert_eq!(
            match_route("GET", "/realms/x/protocol/openid-connect/certs/"),
            Matched::NotFound
        );
        assert_eq!(match_route("GET", "/"), Matched::NotFound);
        // The web app's shell, with and without the slash (as API Gateway routes it).
        for p in ["/realms/x/app", "/realms/x/app/"] {
            match match_route("GET", p) {
                Matched::Found(r, _) => assert_eq!(r.handler, Handler::AppPages, "{p}"),
                other => panic!("{p}: {other:?}"),
            }
        }
        assert_eq!(match_route("GET", "/realms/x/app/scan/"), Matched::NotFound);
        match match_route("GET", "/realms/%ff/protocol/openid-connect/certs") {
            Matched::Found(_, p) => assert_eq!(
                p["realm"], "\u{fffd}",
                "bad UTF-8 reaches the handler, which 404s"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn head_is_routed_where_get_is_for_the_metadata() {
        for p in [
            "/realms/x/.well-known/openid-configuration",
            "/realms/x/.well-known/oauth-authorization-server",
            "/.well-known/oauth-authorization-server/realms/x",
            "/.well-known/oauth-protected-resource/realms/x",
            "/realms/x/.well-known/oauth-protected-resource",
            "/realms/x/protocol/openid-connect/certs",
        ] {
            let get = match match_route("GET", p) {
                Matched::Found(r, _) => r.handler,
                other => panic!("{other:?}"),
            };
            match match_route("HEAD", p) {
                Matched::Found(r, _) => {
                    assert_eq!((r.handler, r.function), (get, function_of(get)))
                }
                other => panic!("{p}: {other:?}"),
            }
        }
    }

    #[test]
    fn head_keeps_the_headers_and_drops_the_body() {
        let r = crate::json(200, &serde_json::json!({ "a": "bc" }));
        let h = without_body(r);
        assert_eq!(h.status(), 200);
        assert_eq!(h.headers()["content-length"], "10");
        assert_eq!(h.headers()["content-type"], "application/json");
        assert!(matches!(h.body(), lambda_http::Body::Empty));
    }

    #[test]
    fn the_columns_say_what_the_side_lists_said() {
        // The lists the columns replaced (issue 23): no handler's needs changed.
        let cors = [
            Handler::Token,
            Handler::Userinfo,
            Handler::Revoke,
            Handler::Logout,
        ];
        let photos = [Handler::DevicePhoto, Handler::Photo, Handler::DeviceDelete];
        let sign = [
            Handler::Token,
            Handler::Logout,
            Handler::DeviceDelete,
            Handler::DeviceKey,
            Handler::DeviceReport,
            // They sign the responses a client asks to be signed (JARM, RFC 9701).
            Handler::Authorize,
            Handler::Consent,
            Handler::Introspect,
        ];
        let read = [
            Handler::Discovery,
            Handler::Jwks,
            Handler::LoginStatus,
            // Userinfo writes since DPoP: a proof's jti is spent (RFC 9449 §11.1).
            Handler::DirectoryBySub,
            Handler::DirectoryByServiceId,
            Handler::DirectoryAvatar,
            Handler::KeycloakPages,
            Handler::AppPages,
            Handler::Photo,
            Handler::Preflight,
        ];
        // The 32 handlers there were when the columns replaced the lists (the two passkey
        // handlers last: write access, no CORS, no photos, as their rows say); a handler added
        // since is described by its row alone.
        for &h in &HANDLERS[..32] {
            assert_eq!(h.cors(), cors.contains(&h), "{h:?}");
            assert_eq!(h.photos(), photos.contains(&h), "{h:?}");
            let access = if sign.contains(&h) {
                Access::Sign
            } else if read.contains(&h) {
                Access::Read
            } else {
                Access::Write
            };
            assert_eq!(h.access(), access, "{h:?}");
        }
    }

    #[test]
    fn only_the_endpoints_that_show_pages_draw_error_pages() {
        let drawing: Vec<Handler> = HANDLERS
            .iter()
            .copied()
            .filter(|h| endpoint(*h).pages.is_some())
            .collect();
        assert_eq!(
            drawing,
            [
                Handler::Authorize,
                Handler::Consent,
                Handler::LoginPasskey,
                Handler::Logout,
                Handler::DevicePages,
            ]
        );
    }

    #[test]
    fn every_function_has_one_handler() {
        for f in functions() {
            let handlers: std::collections::HashSet<_> = ROUTES
                .iter()
                .filter(|r| r.function == f)
                .map(|r| r.handler)
                .collect();
            assert_eq!(handlers.len(), 1, "{f}");
        }
    }
}

//! What a Lambda function needs beyond its rows in [`ROUTES`](crate::routes::ROUTES): its
//! description, the settings and layers only it reads, the photo bucket actions its handler
//! uses, and the sample event its handler answers (`events/<name>.json`, with the status a
//! fresh service gives it).
//!
//! Everything else a function's ceremony says (IAM from the access column, the queue where
//! sessions end, the runner that links only what the handler needs) follows from the table;
//! [`generate`](crate::generate) writes it. A function without a row here gets
//! [`Function::DEFAULT`]: a new endpoint is a route row, a handler and a use case.

/// One function's extras.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    /// The function's name (its `functions/<name>` binary and route-table name).
    pub name: &'static str,
    /// Its template description; empty: its routes, `METHOD path`.
    pub description: &'static str,
    /// Environment variables only it reads (name, CloudFormation value).
    pub env: &'static [(&'static str, &'static str)],
    /// Its `Layers:` value in the template, if any.
    pub layers: Option<&'static str>,
    /// Its S3 actions on the photo bucket's objects; empty: by access (reads `GetObject`,
    /// writes `PutObject` and `DeleteObject`). Only for functions whose rows say `PHOTOS`.
    pub photo_actions: &'static [&'static str],
    /// It lists the photo bucket (`s3:ListBucket`): why (a template comment).
    pub photo_list: Option<&'static str>,
    /// Its memory in MB, where it differs from the template's global.
    pub memory: Option<u32>,
    /// Its timeout in seconds, where it differs from the template's global.
    pub timeout: Option<u32>,
    /// Its `ReservedConcurrentExecutions:` value in the template, if any.
    pub reserved_concurrency: Option<&'static str>,
    /// Its sample event.
    pub sample: Sample,
}

/// A function's sample event (`events/<name>.json`, an API Gateway HTTP API v2 event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Which of the function's routes, by its index among them.
    pub route: usize,
    /// The raw query string.
    pub query: &'static str,
    /// The body, if any.
    pub body: Option<Body>,
    /// The `accept` header.
    pub accept: &'static str,
    /// Headers after the usual ones.
    pub headers: &'static [(&'static str, &'static str)],
    /// The status a fresh service (no clients, no identities, no sessions) answers.
    pub status: u16,
}

/// A sample's body, with its content type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// `application/json`.
    Json(&'static str),
    /// `application/x-www-form-urlencoded`.
    Form(&'static str),
}

impl Sample {
    /// The first route, no query, no body, JSON accepted, and a 200.
    pub const DEFAULT: Sample = Sample {
        route: 0,
        query: "",
        body: None,
        accept: "application/json",
        headers: &[],
        status: 200,
    };
}

impl Function {
    /// A function with nothing of its own.
    pub const DEFAULT: Function = Function {
        name: "",
        description: "",
        env: &[],
        layers: None,
        photo_actions: &[],
        photo_list: None,
        memory: None,
        timeout: None,
        reserved_concurrency: None,
        sample: Sample::DEFAULT,
    };
}

/// The Web Push settings (RFC 8292), only where a push is made or its key is answered.
const VAPID: &[(&str, &str)] = &[
    ("SCANID_VAPID_PRIVATE_KEY", "!Ref VapidPrivateKey"),
    ("SCANID_VAPID_SUBJECT", "!Ref VapidSubject"),
];

/// Where the QR page polls from (`SCANID_LOGIN_STATUS_URL`), for the functions that render
/// it: the login-status function's own URL, unless the template polls through the API.
const STATUS_URL: &[(&str, &str)] = &[(
    "SCANID_LOGIN_STATUS_URL",
    "!If [HasStatusFunctionUrl, !GetAtt LoginStatusUrl.FunctionUrl, \"\"]",
)];

/// The sample value of a path parameter, by its name (`unknown` for any other).
pub const PARAMS: &[(&str, &str)] = &[
    ("realm", "scanid"),
    ("sub", "7c1a4b9e-3f2d-4e8a-9b6c-1d2e3f4a5b6c"),
    ("login_session_id", "unknown"),
    ("name", "alice"),
    ("file", "app.js"),
    ("login_id", "Xq3v9LmN2pQr8sTu"),
    ("service_id", "abcdefghjkmn"),
    (
        "hash",
        "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
    ),
];

/// The sample value of path parameter `name`.
pub fn param(name: &str) -> &'static str {
    PARAMS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("unknown", |(_, v)| v)
}

const fn sample(query: &'static str, body: Option<Body>, status: u16) -> Sample {
    Sample {
        query,
        body,
        status,
        ..Sample::DEFAULT
    }
}

const fn described(name: &'static str, description: &'static str, sample: Sample) -> Function {
    Function {
        name,
        description,
        sample,
        ..Function::DEFAULT
    }
}

const GEOIP_ENV: &[(&str, &str)] = &[
    ("SCANID_GEOIP_DB", "!Ref GeoIpDb"),
    (
        "SCANID_HIGH_USAGE_LOGINS_PER_HOUR",
        "!Ref HighUsageLoginsPerHour",
    ),
];
const GEOIP_LAYER: Option<&str> = Some("!If [HasGeoIpLayer, [!Ref GeoIpLayer], !Ref AWS::NoValue]");
const NOT_A_JWS: u16 = 400;
const NO_CLIENT: u16 = 401;
const NOT_FOUND: u16 = 404;

/// Every function's extras, in no particular order. The sample statuses: the events name no
/// real client, identity or session.
#[rustfmt::skip]
pub const FUNCTIONS: &[Function] = &[
    described("discovery", "GET and HEAD of the discovery document, also RFC 8414 Authorization Server Metadata", Sample::DEFAULT),
    described("jwks", "GET and HEAD /realms/{realm}/protocol/openid-connect/certs", Sample::DEFAULT),
    // An origin no client registered: no CORS headers.
    described("cors-preflight", "CORS preflights of the token, userinfo, revocation and logout endpoints", Sample {
        headers: &[
            ("origin", "https://spa.example.com"),
            ("access-control-request-method", "POST"),
            ("access-control-request-headers", "content-type"),
        ],
        status: 403,
        ..Sample::DEFAULT
    }),
    described("keycloak-pages", "The third-party-cookie probe and login-status iframe keycloak-js loads", Sample {
        accept: "text/html",
        ..Sample::DEFAULT
    }),
    // An unknown client: the error page, never a redirect.
    Function {
        env: STATUS_URL,
        ..described("authorize", "Authorization endpoint; validates the request and renders the QR page", sample(
            "client_id=unknown&redirect_uri=https%3A%2F%2Frp.example.com%2Fcb&response_type=code&state=s&nonce=n&scope=openid",
            None, 400,
        ))
    },
    // Unknown login sessions. Polled through its own URL too (template.yaml's LoginStatusUrl),
    // which no API Gateway throttles: its reserved concurrency bounds it (50 by default).
    Function {
        reserved_concurrency: Some("!If [HasLoginStatusConcurrency, !Ref LoginStatusConcurrency, !Ref AWS::NoValue]"),
        ..described("login-status", "What the QR page polls", sample("session=unknown", None, NOT_FOUND))
    },
    described("consent", "Consent page; issues the authorization code", sample("session=unknown", None, NOT_FOUND)),
    described("login-passkey", "Sign in with a passkey on the login page: a WebAuthn challenge, then the assertion",
        sample("session=b3f1c2d4e5f60718", Some(Body::Json("{}")), NOT_FOUND)),
    described("app-signup", "App sign-up (device key registration)",
        sample("", Some(Body::Json(r#"{"registration":"not-a-jws"}"#)), NOT_A_JWS)),
    Function {
        env: GEOIP_ENV,
        layers: GEOIP_LAYER,
        ..described("app-scan", "What the app reads after scanning a QR code",
            sample("session=unknown&challenge=unknown", None, NOT_FOUND))
    },
    Function {
        env: GEOIP_ENV,
        layers: GEOIP_LAYER,
        ..described("app-decide", "App approval or denial of a login session",
            sample("", Some(Body::Json(r#"{"approval":"not-a-jws"}"#)), NOT_A_JWS))
    },
    // The web app's script. Its shell publishes the VAPID public key the web app subscribes
    // to Web Push with.
    Function {
        env: VAPID,
        ..described("app-pages", "The scanid web app: its shell and files", Sample { route: 1, ..Sample::DEFAULT })
    },
    // A free name.
    described("app-name", "Whether a name is free (the web app sign-up form); lookups are counted per address", Sample::DEFAULT),
    Function {
        photo_actions: &["s3:DeleteObject"],
        photo_list: Some("Listing {sub}/: every object of a deleted identity goes, also one no record names."),
        ..described("app-delete", "An identity deletes itself; ends its sessions (signs back-channel logout tokens)",
            sample("", Some(Body::Json(r#"{"deletion":"not-a-jws"}"#)), NOT_A_JWS))
    },
    // It answers the VAPID public key apps subscribe with (Web Push).
    Function {
        env: VAPID,
        ..described("app-activity", "An identity's recent logins, its waiting CIBA requests and push subscriptions, for its app",
            sample("", Some(Body::Json(r#"{"activity":"not-a-jws"}"#)), NOT_A_JWS))
    },
    // A new WebAuthn challenge.
    described("app-passkeys", "Passkeys: WebAuthn challenges, an identity's keys listed, added (verifies registrations and assertions) and removed",
        sample("", Some(Body::Json("{}")), 201)),
    Function {
        photo_actions: &["s3:PutObject", "s3:DeleteObject"],
        photo_list: Some("An upload whose identity was deleted meanwhile removes its objects ({sub}/)."),
        ..described("app-photo", "A profile photo upload, stored in the photo bucket",
            sample("", Some(Body::Json(r#"{"upload":"not-a-jws","image":""}"#)), NOT_A_JWS))
    },
    // No such photo.
    described("photos", "Hosted profile photos, from the photo bucket", sample("", None, NOT_FOUND)),
    // Unknown client credentials; no token.
    described("token", "Token endpoint", sample("", Some(Body::Form(
        "grant_type=authorization_code&code=unknown&redirect_uri=https%3A%2F%2Frp.example.com%2Fcb&client_id=unknown&client_secret=wrong",
    )), NO_CLIENT)),
    described("introspect", "Token introspection (RFC 7662)",
        sample("", Some(Body::Form("token=unknown&client_id=unknown&client_secret=wrong")), NO_CLIENT)),
    described("userinfo", "UserInfo endpoint", sample("", None, NO_CLIENT)),
    described("revoke", "Token revocation (RFC 7009)",
        sample("", Some(Body::Form("token=unknown&client_id=unknown&client_secret=wrong")), NO_CLIENT)),
    // Registration is closed and the sample's initial access token is nobody's.
    Function {
        env: &[
            ("SCANID_OPEN_CLIENT_REGISTRATION", "!Ref OpenClientRegistration"),
            ("SCANID_REGISTRATION_RATE_PER_HOUR", "!Ref RegistrationRatePerHour"),
        ],
        ..described("client-registration", "Dynamic client registration (RFC 7591) and management (RFC 7592)", Sample {
            body: Some(Body::Json(r#"{"redirect_uris":["https://rp.example/cb"],"client_name":"Sample"}"#)),
            headers: &[("authorization", "Bearer not-an-initial-access-token")],
            status: NO_CLIENT,
            ..Sample::DEFAULT
        })
    },
    // It pushes a new CIBA request to the person's apps (Web Push, VAPID).
    Function {
        env: VAPID,
        ..described("device-authorization", "Device authorization endpoint (RFC 8628) and the CIBA endpoint; queues the Web Push of a CIBA request",
            sample("", Some(Body::Form("client_id=unknown&client_secret=wrong&scope=openid")), NO_CLIENT))
    },
    described("par", "Pushed authorization requests (RFC 9126): the request validated and stored, its request_uri answered",
        sample("", Some(Body::Form("client_id=unknown&client_secret=wrong&response_type=code")), NO_CLIENT)),
    // The code entry form, prefilled.
    Function {
        env: STATUS_URL,
        ..described("device-pages", "Device grant verification page (RFC 8628): type the code, then the QR login", Sample {
            query: "user_code=BCDF-GHJK",
            accept: "text/html",
            ..Sample::DEFAULT
        })
    },
    // No id_token_hint: the confirmation page.
    described("logout", "RP-initiated logout, Keycloak's back-channel logout; signs back-channel logout tokens", Sample::DEFAULT),
    described("app-profile", "App profile update",
        sample("", Some(Body::Json(r#"{"update":"not-a-jws"}"#)), NOT_A_JWS)),
    described("app-key", "App device-key rotation; with end_sessions, ends every session (signs back-channel logout tokens)",
        sample("", Some(Body::Json(r#"{"rotation":"not-a-jws"}"#)), NOT_A_JWS)),
    described("app-report", "\"This wasn't me\" on a recent login, and \"sign out everywhere\": revokes tokens, ends sessions (signs back-channel logout tokens)",
        sample("", Some(Body::Json(r#"{"report":"not-a-jws"}"#)), NOT_A_JWS)),
    // Unknown identities.
    described("directory-profile", "Directory profile by subject", sample("", None, NOT_FOUND)),
    described("directory-by-service-id", "Directory profile by service identifier", sample("", None, NOT_FOUND)),
    described("directory-avatar", "Directory avatar redirect", sample("", None, NOT_FOUND)),
    // No bearer token.
    // It queries the events table (template.yaml's EventsTable).
    Function {
        env: &[
            ("SCANID_EVENTS_TABLE", "!Ref EventsTable"),
            ("SCANID_EVENT_RETENTION_DAYS", "!Ref EventRetentionDays"),
        ],
        ..described("admin-api", "Keycloak's admin REST API: server info, the realm, clients and their secrets, identities, events, keys, realm import (service accounts and console persons with admin roles); signs back-channel logout tokens",
            sample("", None, NO_CLIENT))
    },
    // `/admin` is sent on to `/admin/` (the page's relative URLs need the slash).
    described("admin-console", "The admin console: its page (writes the console's built-in client when it differs) and files",
        sample("", None, 302)),
];

/// The extras of function `name` ([`Function::DEFAULT`], named as the table names it, if it
/// has none).
pub fn of(name: &str) -> Function {
    FUNCTIONS
        .iter()
        .find(|f| f.name == name)
        .copied()
        .unwrap_or(Function {
            name: crate::routes::functions()
                .into_iter()
                .find(|f| *f == name)
                .unwrap_or(""),
            ..Function::DEFAULT
        })
}

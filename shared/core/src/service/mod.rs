//! Services: what several use cases share, each in a room named for it. Use cases import
//! services; a service never imports a use case (the `layers` test holds both), so no use
//! case leans on another (node-oidc-provider's `lib/shared/` and `lib/helpers/`).
//!
//! * [`signed_request`]: the check of every signed app request and the write that spends
//!   its `jti`; `webauthn`: the relying party and the server's challenges.
//! * [`sessions`]: the SSO session a cookie proves, and the end of sessions; [`consents`]: what
//!   the consent step reads (a remembered consent, the identity and client it shows).
//! * [`issuance`]: the signed tokens every grant hands out; [`client_auth`]: client
//!   authentication, [`client_secrets`] the sealed secrets of `client_secret_jwt` clients;
//!   [`grants`]: whether a grant still stands; [`live_tokens`]: whether an
//!   access token is live; [`exchange`]: delegation by token exchange (RFC 8693); [`dpop`]: DPoP
//!   proofs.
//! * `limits`: rate limits.
//! * [`assessment`]: where a QR login came from, judged; [`login_history`]: the identity's
//!   recent logins; [`login_watch`]: the login page's held status polls; `photos`: hosted
//!   photos no record names any more.
//! * [`erase`]: deleting an identity (its app, the CLI, the admin API).
//! * [`auth_response`]: the authorization response, and its signed JARM form.
//! * [`pushed`]: the pushed authorization request a `request_uri` names (RFC 9126);
//!   [`request_objects`]: signed request objects (RFC 9101), pushed or by value.
//! * [`rotation`]: the signing keys' rotation steps (the CLI's `scanid keys`, the admin API).
//! * [`app_error`]: the error of the app API; [`admin`]: who may call the admin API, and its
//!   error.

pub mod admin;
pub mod app_error;
pub mod assessment;
pub mod auth_response;
pub mod backchannel;
pub mod client_auth;
pub mod client_documents;
pub mod client_secrets;
pub mod consents;
pub mod dpop;
pub mod erase;
pub mod exchange;
pub mod grants;
pub mod issuance;
pub(crate) mod limits;
pub mod live_tokens;
pub mod login_history;
pub mod login_watch;
pub(crate) mod photos;
pub mod push;
pub mod pushed;
pub mod request_objects;
pub mod rotation;
pub mod sessions;
pub mod signed_request;
pub(crate) mod webauthn;

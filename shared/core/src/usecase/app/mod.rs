//! The app API's use cases (app protocol §1, §3, §4), one file per thing the scanid app does:
//! sign up, scan a QR login, decide it, update the profile, manage the keys, host the photo,
//! read the recent logins, report one, list and withdraw delegations, delete the identity. Every write is a request signed
//! by one of the identity's keys, checked by [`crate::service::signed_request`]; its `jti` is
//! spent in the same transaction as the write, so a replay is refused.
//!
//! None of these files imports another: what they share are services
//! ([`crate::service`]). The items are re-exported here, as the HTTP layer names them.

pub mod activity;
pub mod backchannel;
pub mod decide;
pub mod delegations;
pub mod delete;
pub mod keys;
pub mod photo;
pub mod profile;
pub mod push;
pub mod report;
pub mod scan;
pub mod sign_out;
pub mod signup;

pub use activity::recent_logins;
pub use backchannel::{backchannel_requests, open_backchannel, OpenedBackchannel, PendingRequest};
pub use decide::decide;
pub use delegations::{delegations, withdraw, Delegation};
pub use delete::{delete_identity, erase};
pub use keys::{
    add_passkey, keys, keys_for_operator, new_challenge, remove_key, replace_key_by_operator,
    rotate_key, Challenge, DeviceKey, Keys, PasskeyView,
};
pub use photo::{hosted_photo, upload_photo};
pub use profile::update_profile;
pub use push::{application_server_key, subscribe, withdraw_push};
pub use report::{report_login, Reported};
pub use scan::{scan, scan_from, ScanBy, Scanned};
pub use sign_out::sign_out_everywhere;
pub use signup::{name_available, signup};

pub use crate::protocol::app_request::Decision;
pub use crate::service::app_error::AppError;
pub use crate::service::assessment::{assess, Assessment};

// Test support (the `test-support` feature): the suite's functions and the doubles' fields
// are named for what they hold; the module documents them, not each item.
#![allow(missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The adapter test suite: every storage adapter must pass it (STYLE.md practice 3).
//!
//! An adapter's test module invokes [`adapter_suite!`](crate::adapter_suite) with an async
//! factory returning `(store, guard)`; the guard lives as long as the test (a temp dir, a table).

mod clients;
mod codes;
mod counters;
mod device_grants;
mod events;
mod grants;
mod identities;
mod passkeys;
mod photos;
mod qr_logins;
mod records;

pub use clients::*;
pub use codes::*;
pub use counters::*;
pub use device_grants::*;
pub use events::*;
pub use grants::*;
pub use identities::*;
pub use passkeys::*;
pub use photos::*;
pub use qr_logins::*;
pub use records::*;

use std::sync::Arc;

use super::{
    Backend, ClientStore, Cond, Counters, InitialAccessTokens, Key, Kind, Record, StoreError, Write,
};
use crate::clock::Timestamp;
use crate::domain::client::{Client, ClientType};
use crate::protocol::GrantType;
use crate::protocol::{ClientId, RedirectUri, Scopes, SessionId, Subject};

/// Generates one `#[tokio::test]` per suite function for an adapter.
#[macro_export]
macro_rules! adapter_suite {
    ($factory:expr) => {
        mod adapter_suite {
            #[allow(unused_imports)]
            use super::*;
            $crate::adapter_suite!(@tests $factory;
                get_put_absent, expiry_is_checked_on_every_read, version_conditions,
                consume_is_single_use, concurrent_consume_has_one_winner,
                concurrent_updates_have_one_winner, transactions_are_all_or_nothing,
                conditional_delete, list_by_kind, client_store_round_trip, counters_are_atomic_and_expire,
                rate_limit_counters_count_per_window,
                identity_uniqueness_is_enforced, concurrent_signups_claiming_one_service_id_have_one_winner,
                identity_deletion_frees_the_name_and_keeps_the_service_id,
                a_deleted_identity_name_is_held_until_its_quarantine_ends,
                concurrent_transactions_fail_alone, a_redeemed_code_points_to_its_grant,
                a_code_is_redeemed_as_its_grant_and_first_refresh_token,
                a_refresh_family_rotates_in_its_grants_record,
                a_code_exchange_whose_answer_was_lost_is_its_own_on_retry,
                grants_and_refresh_tokens_of_the_previous_shape_are_honoured,
                initial_access_tokens_are_spent_once_per_use_and_expire,
                a_self_registered_client_keeps_its_registration,
                a_client_assertion_is_accepted_once,
                a_dpop_proof_is_accepted_once,
                device_authorizations_are_found_by_user_code_and_expire,
                backchannel_requests_are_listed_for_their_person,
                push_subscriptions_are_kept_per_identity,
                a_device_code_is_redeemed_once,
                an_identity_keeps_the_places_it_approved_logins_from,
                a_history_entry_read_to_its_time_hides_no_session,
                a_reported_login_is_marked_with_its_jti_spent,
                a_session_s_grants_are_revoked_until_the_marker_expires,
                a_scanned_qr_login_keeps_its_number_scanner_and_cancellation,
                eventual_reads_check_expiry_and_write_through,
                webauthn_challenges_are_spent_once_and_expire,
                passkeys_are_found_by_credential_and_by_identity,
                a_passkey_use_is_one_conditional_write,
                the_last_key_is_never_removed,
                a_spend_that_loses_leaves_nothing_behind,
                a_login_completes_once_by_the_session_it_starts,
                a_client_document_is_read_as_a_client_until_it_expires);
        }
    };
    (@tests $factory:expr; $($name:ident),*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() {
                let (store, _guard) = $factory.await;
                $crate::store::suite::$name(std::sync::Arc::new(store)).await;
            }
        )*
    };
}

const T0: Timestamp = Timestamp::from_secs(1_800_000_000);

fn rec(id: &str, n: i64, expires_at: Option<i64>) -> Record {
    Record::new(
        Key::new(Kind::Test, id),
        &serde_json::json!({ "n": n }),
        expires_at,
    )
    .unwrap()
}

/// Ids unique per run, so suites may share one DynamoDB table.
fn id(name: &str) -> String {
    format!("{name}-{}", uuid::Uuid::new_v4())
}

fn identity(name: &str, service_id: &str) -> crate::domain::identity::Identity {
    crate::domain::identity::Identity {
        sub: Subject::new(uuid::Uuid::new_v4().to_string()),
        service_id: service_id.to_owned(),
        name: name.to_owned(),
        display_name: "Suite".into(),
        profile_photo: None,
        created_at: T0,
        updated_at: None,
        public_key: "pk".into(),
        country_code: "SE".into(),
        kind: crate::domain::identity::IdentityType::User,
        groups: vec![],
        disabled: false,
        tokens_not_before: None,
        device_key_retired: false,
        admin_roles: Vec::new(),
    }
}

fn short(prefix: &str) -> String {
    let mut s = id(prefix).replace('-', "");
    s.truncate(30);
    s
}

/// Of two racing spends, exactly one is [`Outcome::Done`](super::Outcome::Done): (the winner's, the loser's) `T`.
fn one_wins<T>((a, ta): (super::Outcome, T), (b, tb): (super::Outcome, T)) -> (T, T) {
    assert_eq!(
        [a, b]
            .iter()
            .filter(|o| **o == super::Outcome::Done)
            .count(),
        1,
        "{a:?} {b:?}"
    );
    if a == super::Outcome::Done {
        (ta, tb)
    } else {
        (tb, ta)
    }
}

#[cfg(test)]
mod memory_photos {
    crate::photo_suite!(async { (crate::store::photos::MemoryPhotos::default(), ()) });
}

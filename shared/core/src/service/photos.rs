//! The hosted photos several use cases touch: a replaced photo is removed once no record
//! names it (a profile update, a photo upload).

use crate::context::Context;
use crate::domain::identity::Identity;
use crate::domain::photo;

/// Removes the hosted photo `before` had when `after` no longer shows it. Best effort: a
/// failure leaves an unreferenced object, and is logged.
pub(crate) async fn forget_replaced_photo(ctx: &Context, before: &Identity, after: &Identity) {
    let own = |i: &Identity| {
        i.profile_photo
            .as_deref()
            .and_then(|u| photo::own_object(&i.sub, u))
    };
    let Some(old) = own(before) else {
        return;
    };
    if own(after) == Some(old.clone()) {
        return;
    }
    if let Some(p) = &ctx.photos {
        if let Err(e) = p.delete_photo(&old).await {
            tracing::warn!(error = %e, "removing a replaced photo");
        }
    }
}

//! The QR's rotating challenge: one per time step from the login's secret, accepted within
//! its lifetime, never before its step, and once.

use super::*;

/// What a poll token is the HMAC of (see [`QrLogin::poll_token`]).
const POLL_TOKEN_LABEL: &[u8] = b"scanid login status poll";

impl QrLogin {
    pub(super) fn challenge_at(&self, step: i64) -> String {
        let key = hmac::Key::new(hmac::HMAC_SHA256, self.secret.expose().as_bytes());
        let tag = hmac::sign(&key, &step.to_be_bytes());
        URL_SAFE_NO_PAD.encode(&tag.as_ref()[..16])
    }

    /// The login page's read-only token for its status (`?poll=`), where the page polls from
    /// another origin that the browser sends no cookie to (`SCANID_LOGIN_STATUS_URL`: a Lambda
    /// function URL). `HMAC(secret, label)`, so nothing more is stored; the label is longer
    /// than a step's 8 bytes, so no challenge is ever a token. It reads only what the page has
    /// (its codes, the number, where to go next); every step that acts on the login (the
    /// consent page, its POST) still asks for the browser's cookie.
    pub fn poll_token(&self) -> String {
        let key = hmac::Key::new(hmac::HMAC_SHA256, self.secret.expose().as_bytes());
        URL_SAFE_NO_PAD.encode(hmac::sign(&key, POLL_TOKEN_LABEL).as_ref())
    }

    /// Is `token` this login's [`Self::poll_token`]? (Constant time.)
    pub fn poll_token_matches(&self, token: &str) -> bool {
        verify_slices_are_equal(self.poll_token().as_bytes(), token.as_bytes()).is_ok()
    }

    /// The challenge the QR shows now.
    pub fn current_challenge(&self, now: Timestamp) -> String {
        self.challenge_at(now.secs().div_euclid(CHALLENGE_STEP_SECS))
    }

    /// The challenges of the current step and the next `count - 1`, each with the time its
    /// step begins: the page redraws the QR from them on its own.
    pub fn upcoming_challenges(&self, now: Timestamp, count: i64) -> Vec<(Timestamp, String)> {
        self.upcoming_challenges_after(now, count, None)
    }

    /// [`Self::upcoming_challenges`] without the steps that begin at or before `after`: what a
    /// page that has the codes up to `after` lacks (all of them for `None`).
    pub fn upcoming_challenges_after(
        &self,
        now: Timestamp,
        count: i64,
        after: Option<Timestamp>,
    ) -> Vec<(Timestamp, String)> {
        let step = now.secs().div_euclid(CHALLENGE_STEP_SECS);
        (step..step + count.max(1))
            .map(|s| Timestamp::from_secs(s * CHALLENGE_STEP_SECS))
            .filter(|at| after.is_none_or(|a| *at > a))
            .map(|at| {
                (
                    at,
                    self.challenge_at(at.secs().div_euclid(CHALLENGE_STEP_SECS)),
                )
            })
            .collect()
    }

    /// Does `challenge` belong to a step that began less than `ttl_secs` ago? A future step's
    /// challenge is not fresh: nobody could have seen it yet.
    pub fn challenge_is_fresh(&self, challenge: &str, now: Timestamp, ttl_secs: i64) -> bool {
        self.fresh_step(challenge, now, ttl_secs).is_some()
    }

    /// The step of `challenge` if it is fresh ([`Self::challenge_is_fresh`]).
    pub(super) fn fresh_step(&self, challenge: &str, now: Timestamp, ttl_secs: i64) -> Option<i64> {
        let now = now.secs();
        let step = now.div_euclid(CHALLENGE_STEP_SECS);
        (0..=ttl_secs.div_euclid(CHALLENGE_STEP_SECS))
            .map(|i| step - i)
            .filter(|s| now - s * CHALLENGE_STEP_SECS < ttl_secs)
            .find(|s| {
                verify_slices_are_equal(self.challenge_at(*s).as_bytes(), challenge.as_bytes())
                    .is_ok()
            })
    }

    /// The step logins count their scanned steps from: the one they were created in.
    pub(super) fn first_step(&self) -> i64 {
        self.created_at.secs().div_euclid(CHALLENGE_STEP_SECS)
    }

    pub(super) fn scanned_challenge(&self, challenge: &str) -> bool {
        let same = |c: &str| verify_slices_are_equal(c.as_bytes(), challenge.as_bytes()).is_ok();
        self.scanned.iter().any(|c| same(c))
            || self
                .scanned_steps
                .iter()
                .any(|s| same(&self.challenge_at(self.first_step() + s)))
    }

    /// The challenges accepted at scan time, oldest first.
    pub fn scanned_challenges(&self) -> Vec<String> {
        let derived = self
            .scanned_steps
            .iter()
            .map(|s| self.challenge_at(self.first_step() + s));
        self.scanned.iter().cloned().chain(derived).collect()
    }

    /// Remembers the challenge of `step` as accepted (the oldest forgotten past
    /// [`SCANNED_KEPT`]).
    pub(super) fn remember_scan(&mut self, step: i64) {
        self.scanned_steps.push(step - self.first_step());
        if self.scanned.len() + self.scanned_steps.len() > SCANNED_KEPT {
            if self.scanned.is_empty() {
                self.scanned_steps.remove(0);
            } else {
                self.scanned.remove(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::domain::login::tests::{session, session_seeded, TTL};

    #[test]
    fn q2_challenges_rotate_every_second_and_age_out() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let s = session(t0);
        let c0 = s.current_challenge(t0);
        assert_eq!(c0.len(), 22, "128 bits");
        assert_ne!(
            s.current_challenge(t0.plus_secs(1)),
            c0,
            "rotates every second"
        );
        assert!(s.challenge_is_fresh(&c0, t0, TTL));
        assert!(s.challenge_is_fresh(&c0, t0.plus_secs(2), TTL));
        assert!(
            !s.challenge_is_fresh(&c0, t0.plus_secs(3), TTL),
            "three seconds after its step began it is dead"
        );
        assert!(
            s.challenge_is_fresh(&c0, t0.plus_secs(29), 30),
            "the TTL is a setting"
        );
        let next = s.current_challenge(t0.plus_secs(1));
        assert!(
            !s.challenge_is_fresh(&next, t0, TTL),
            "a future step's challenge"
        );
        assert!(!s.challenge_is_fresh("AAAAAAAAAAAAAAAAAAAAAA", t0, TTL));
        let other = session_seeded(t0, 6);
        assert_ne!(other.current_challenge(t0), c0, "per-session secret");
        // The page gets the upcoming ones, each with the second its step begins.
        let up = s.upcoming_challenges(t0, CHALLENGES_AHEAD);
        assert_eq!(up.len(), CHALLENGES_AHEAD as usize);
        assert_eq!(up[0], (t0, c0));
        assert_eq!(up[1], (t0.plus_secs(1), next));
        // Enough to redraw until the next poll and a margin.
        assert!(CHALLENGES_AHEAD * CHALLENGE_STEP_SECS * 1000 > i64::from(POLL_IDLE_MS) * 2);
        // A page that has the codes up to a second gets only the later ones, the same codes.
        let later = Timestamp::from_millis(t0.millis() + 1500);
        let all = s.upcoming_challenges(later, CHALLENGES_AHEAD);
        let lacking = s.upcoming_challenges_after(later, CHALLENGES_AHEAD, Some(t0.plus_secs(3)));
        assert_eq!(lacking, all[3..].to_vec());
        assert_eq!(lacking[0].0, t0.plus_secs(4));
        // Up to a second already begun, or long ago: all of them; past the last one: none.
        assert_eq!(s.upcoming_challenges_after(later, 7, Some(t0)), all);
        assert_eq!(
            s.upcoming_challenges_after(later, 7, Some(Timestamp::from_secs(0))),
            all
        );
        assert!(s
            .upcoming_challenges_after(later, 7, Some(t0.plus_secs(8)))
            .is_empty());
        assert_eq!(s.upcoming_challenges_after(later, 7, None), all);
    }

    #[test]
    fn the_poll_token_is_the_logins_own_and_no_challenge() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let s = session(t0);
        let token = s.poll_token();
        assert_eq!(token.len(), 43, "256 bits, base64url");
        assert_eq!(s.poll_token(), token, "the same for the login's whole life");
        assert!(s.poll_token_matches(&token));
        // Another login's token, a challenge of this one, a prefix, nothing: refused.
        let other = session_seeded(t0, 6);
        assert_ne!(other.poll_token(), token, "per-login secret");
        assert!(!s.poll_token_matches(&other.poll_token()));
        assert!(!s.poll_token_matches(&s.current_challenge(t0)));
        assert!(!s.poll_token_matches(&token[..42]));
        assert!(!s.poll_token_matches(""));
        // No step's challenge starts as the token does (they are different MACs).
        for (_, c) in s.upcoming_challenges(t0, CHALLENGES_AHEAD) {
            assert!(!token.starts_with(&c));
        }
    }
}

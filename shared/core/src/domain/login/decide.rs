//! A scan and the phone's decision: number matching (the number and its decoys), one phone
//! per login, decided at most once, and a passkey's sign-in.

use super::*;

impl QrLogin {
    /// What the app offers once scanned: the number and two decoys, shuffled (empty before
    /// the scan). The decoys and their order are derived from the login's secret
    /// (`HMAC-SHA256(secret, "number-choices" || i)`), so the record stores only the number
    /// and a rescan offers the same three.
    pub fn number_choices(&self) -> Vec<u8> {
        if !self.stored_choices.is_empty() {
            return self.stored_choices.clone();
        }
        match self.number {
            Some(number) => choices_for(number, &SecretStream::new(&self.secret)),
            None => Vec::new(),
        }
    }

    /// Cancels the login for good (`status: denied` with the reason).
    pub(super) fn cancel(&mut self, reason: CancelReason) {
        self.status = LoginStatus::Denied;
        self.cancelled = Some(reason);
    }

    /// `scanner` scanned `challenge`. Accepted (and remembered, so the challenge is spent and
    /// a decision may name it) if the session is pending and live, the challenge fresh and
    /// unused, and nobody else scanned before; the first accepted scan draws the number.
    /// [`ScanError::Cancelled`] leaves `self` cancelled, to be written.
    pub fn accept_scan(
        &mut self,
        challenge: &str,
        scanner: &Scanner,
        ttl_secs: i64,
        now: Timestamp,
        rng: &dyn Random,
    ) -> Result<(), ScanError> {
        let step = match self.fresh_step(challenge, now, ttl_secs) {
            Some(step)
                if self.status == LoginStatus::Pending
                    && !self.expired(now)
                    && !self.scanned_challenge(challenge) =>
            {
                step
            }
            _ => return Err(ScanError::NotFound),
        };
        match &self.scanned_by {
            Some(Scanner::Identity(first)) if *scanner == Scanner::Identity(first.clone()) => {}
            Some(_) => {
                self.cancel(CancelReason::SecondDevice);
                return Err(ScanError::Cancelled(CancelReason::SecondDevice));
            }
            None => {
                self.scanned_by = Some(scanner.clone());
                self.number = Some(draw_number(rng));
            }
        }
        self.remember_scan(step);
        Ok(())
    }

    /// A device authorization's login scanned by its user code (the person compared the code
    /// with the device's screen; no page shows a number): the current challenge, accepted.
    pub fn accept_user_code_scan(&mut self, now: Timestamp) -> String {
        let step = now.secs().div_euclid(CHALLENGE_STEP_SECS);
        self.remember_scan(step);
        let c = self.challenge_at(step);
        self.scanned_by = Some(Scanner::Anonymous);
        c
    }

    /// The app decided as `sub`, naming `number` (required to approve when the scan drew one),
    /// with its device key or a passkey (`with`): an approval must reach the `acr` the
    /// request requires ([`DecideError::AcrNotMet`], nothing changed: the person may approve
    /// again with a passkey). Errors say what to answer; [`DecideError::Cancelled`] leaves
    /// `self` cancelled, to be written.
    pub fn decide(
        &mut self,
        sub: &str,
        challenge: &str,
        (approve, with): (bool, Method),
        number: Option<i64>,
        now: Timestamp,
    ) -> Result<(), DecideError> {
        if self.expired(now) || !self.scanned_challenge(challenge) {
            return Err(DecideError::NotFound);
        }
        if self.status != LoginStatus::Pending {
            return Err(DecideError::AlreadyDecided);
        }
        if let Some(Scanner::Identity(first)) = &self.scanned_by {
            if first.as_str() != sub {
                self.cancel(CancelReason::SecondDevice);
                return Err(DecideError::Cancelled(CancelReason::SecondDevice));
            }
        }
        if approve {
            if let Some(expected) = self.number {
                match number {
                    None => return Err(DecideError::MissingNumber),
                    Some(n) if n == i64::from(expected) => {}
                    Some(_) => {
                        self.cancel(CancelReason::WrongNumber);
                        return Err(DecideError::Cancelled(CancelReason::WrongNumber));
                    }
                }
            }
            if let Some(required) = self
                .request
                .claims
                .acr
                .required()
                .filter(|r| with.acr() < *r)
            {
                return Err(DecideError::AcrNotMet(required));
            }
        }
        self.status = if approve {
            LoginStatus::Approved {
                sub: Subject::new(sub),
                auth_time: now,
                approved_with: with,
            }
        } else {
            LoginStatus::Denied
        };
        Ok(())
    }

    /// A WebAuthn challenge for "Sign in with a passkey" on this login's page: `nonce` (16
    /// random bytes) and `HMAC-SHA256(secret, "passkey-sign-in" || nonce)`'s first 16 bytes,
    /// so only this login's own challenges are accepted for it ([`Self::owns_passkey_challenge`])
    /// and the record stores nothing more (the store spends each challenge once).
    pub fn passkey_challenge(&self, nonce: &[u8; 16]) -> Vec<u8> {
        let mut out = nonce.to_vec();
        out.extend_from_slice(&self.passkey_tag(nonce).as_ref()[..16]);
        out
    }

    fn passkey_tag(&self, nonce: &[u8]) -> hmac::Tag {
        let key = hmac::Key::new(hmac::HMAC_SHA256, self.secret.expose().as_bytes());
        let mut msg = b"passkey-sign-in".to_vec();
        msg.extend_from_slice(nonce);
        hmac::sign(&key, &msg)
    }

    /// Was `challenge` made by [`Self::passkey_challenge`] for this login?
    pub fn owns_passkey_challenge(&self, challenge: &[u8]) -> bool {
        challenge.len() == 32
            && verify_slices_are_equal(
                &self.passkey_tag(&challenge[..16]).as_ref()[..16],
                &challenge[16..],
            )
            .is_ok()
    }

    /// A verified passkey of `sub` signed in on this login's page: approved as
    /// [`Method::PasskeySignIn`] while pending and live, for the person the request accepts
    /// and at any `acr` it requires (`3` meets every level).
    /// `method` is [`Method::PasskeySignIn`], or what a passkey enrolled by a device key is
    /// capped at ([`crate::domain::passkey::Passkey::level`]).
    pub fn sign_in_with_passkey(
        &mut self,
        sub: &str,
        method: Method,
        now: Timestamp,
    ) -> Result<(), DecideError> {
        if self.expired(now) || self.device_grant.is_some() {
            return Err(DecideError::NotFound);
        }
        if self.status != LoginStatus::Pending {
            return Err(DecideError::AlreadyDecided);
        }
        if let Some(required) = self
            .request
            .claims
            .acr
            .required()
            .filter(|r| method.acr() < *r)
        {
            return Err(DecideError::AcrNotMet(required));
        }
        self.status = LoginStatus::Approved {
            sub: Subject::new(sub),
            auth_time: now,
            approved_with: method,
        };
        Ok(())
    }
}

/// Why a decision was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecideError {
    /// Unknown or expired session, or a challenge it never accepted.
    NotFound,
    /// The session was decided already.
    AlreadyDecided,
    /// An approval without the number the scan drew.
    MissingNumber,
    /// The login is cancelled now (a wrong number, another identity than the scanner).
    Cancelled(CancelReason),
    /// The approval does not reach the `acr` the request (or its client) requires.
    AcrNotMet(Acr),
}

/// Why a scan was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanError {
    /// Unknown, expired or decided session; a stale, future, unknown or spent challenge.
    NotFound,
    /// Another phone scanned first: the login is cancelled now.
    Cancelled(CancelReason),
}

/// A number in `0..n` (`n` > 0), uniform, from `rng`.
fn below(rng: &dyn Random, n: u8) -> u8 {
    // Rejection sampling: 256 is no multiple of most `n`.
    let limit = 256 - 256 % u16::from(n);
    loop {
        let mut b = [0u8];
        rng.fill(&mut b);
        if u16::from(b[0]) < limit {
            return b[0] % n;
        }
    }
}

/// The number to match (10..=99), uniform from `rng`.
pub fn draw_number(rng: &dyn Random) -> u8 {
    10 + below(rng, 90)
}

/// The three choices the app offers for `number`: it and two distinct decoys (10..=99),
/// shuffled, all drawn from `rng`.
pub fn choices_for(number: u8, rng: &dyn Random) -> Vec<u8> {
    let mut choices = vec![number];
    while choices.len() < 3 {
        let d = 10 + below(rng, 90);
        if !choices.contains(&d) {
            choices.push(d);
        }
    }
    // Fisher-Yates.
    for i in (1..choices.len()).rev() {
        let j = usize::from(below(rng, u8::try_from(i + 1).unwrap_or(1)));
        choices.swap(i, j);
    }
    choices
}

/// A deterministic byte stream from a login's secret, `HMAC-SHA256(secret, "number-choices" ||
/// i)` for i = 0, 1, ...: the decoys drawn from it are the same at every read and unknown
/// without the secret (which never leaves the server). The label keeps it apart from the
/// challenges (`HMAC-SHA256(secret, step)`, an 8-byte message).
struct SecretStream {
    key: hmac::Key,
    block: AtomicU64,
}

impl SecretStream {
    fn new(secret: &Secret) -> Self {
        Self {
            key: hmac::Key::new(hmac::HMAC_SHA256, secret.expose().as_bytes()),
            block: AtomicU64::new(0),
        }
    }
}

impl Random for SecretStream {
    fn fill(&self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(32) {
            let i = self.block.fetch_add(1, Ordering::Relaxed);
            let mut msg = b"number-choices".to_vec();
            msg.extend_from_slice(&i.to_be_bytes());
            let tag = hmac::sign(&self.key, &msg);
            chunk.copy_from_slice(&tag.as_ref()[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::domain::login::tests::{alice, session, session_seeded, TTL};
    use crate::random::SeededRandom;

    /// Every refusal of a scan, one row: what the scan presents, and when.
    #[test]
    fn q2_every_refused_scan() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let rng = SeededRandom::new(9);
        let base = session(t0);
        let c0 = base.current_challenge(t0);
        let bob = Scanner::Identity(Subject::new("bob"));
        // (name, the first scan (scanner, challenge at, scanned at) if any, the scan, want)
        type Scan = (Scanner, i64, i64);
        type Row<'a> = (&'a str, Option<Scan>, Scan, Result<(), ScanError>);
        let table: &[Row] = &[
            ("fresh", None, (alice(), 0, 0), Ok(())),
            ("2 s later", None, (alice(), 0, 2), Ok(())),
            (
                "stale: 4 s later",
                None,
                (alice(), 0, 4),
                Err(ScanError::NotFound),
            ),
            (
                "stale: 3 s later",
                None,
                (alice(), 0, 3),
                Err(ScanError::NotFound),
            ),
            (
                "future challenge",
                None,
                (alice(), 1, 0),
                Err(ScanError::NotFound),
            ),
            (
                "replayed challenge",
                Some((alice(), 0, 0)),
                (alice(), 0, 1),
                Err(ScanError::NotFound),
            ),
            (
                "same identity, new challenge",
                Some((alice(), 0, 0)),
                (alice(), 1, 1),
                Ok(()),
            ),
            (
                "second device",
                Some((alice(), 0, 0)),
                (bob.clone(), 1, 1),
                Err(ScanError::Cancelled(CancelReason::SecondDevice)),
            ),
            (
                "any scan after an anonymous one",
                Some((Scanner::Anonymous, 0, 0)),
                (Scanner::Anonymous, 1, 1),
                Err(ScanError::Cancelled(CancelReason::SecondDevice)),
            ),
            (
                "an identity after an anonymous one",
                Some((Scanner::Anonymous, 0, 0)),
                (alice(), 1, 1),
                Err(ScanError::Cancelled(CancelReason::SecondDevice)),
            ),
            (
                "after expiry",
                None,
                (alice(), LOGIN_TTL_SECS, LOGIN_TTL_SECS),
                Err(ScanError::NotFound),
            ),
        ];
        for (name, first, (who, at, when), want) in table {
            let mut s = base.clone();
            if let Some((w, a, n)) = first {
                let c = s.current_challenge(t0.plus_secs(*a));
                s.accept_scan(&c, w, TTL, t0.plus_secs(*n), &rng).unwrap();
            }
            let c = s.current_challenge(t0.plus_secs(*at));
            let got = s.accept_scan(&c, who, TTL, t0.plus_secs(*when), &rng);
            assert_eq!(got, *want, "{name}");
            match want {
                Ok(()) => assert!(s.is_scanned() && s.number.is_some(), "{name}"),
                Err(ScanError::Cancelled(r)) => {
                    assert_eq!(s.public_status(t0), "denied", "{name}");
                    assert_eq!(s.cancel_reason(), Some(*r), "{name}");
                }
                Err(ScanError::NotFound) => {
                    assert_eq!(s.status, LoginStatus::Pending, "{name}");
                    assert_eq!(s.cancel_reason(), None, "{name}");
                }
            }
        }
        assert_eq!(c0, base.current_challenge(t0));
    }

    #[test]
    fn the_first_scan_draws_the_number_and_a_rescan_keeps_it() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let rng = SeededRandom::new(3);
        let mut s = session(t0);
        s.accept_scan(&s.current_challenge(t0), &alice(), TTL, t0, &rng)
            .unwrap();
        let n = s.number.unwrap();
        assert!((10..=99).contains(&n));
        let choices = s.number_choices();
        assert_eq!(choices.len(), 3);
        assert!(choices.contains(&n));
        let mut distinct = choices.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "two distinct decoys");
        assert!(choices.iter().all(|c| (10..=99).contains(c)));
        let t1 = t0.plus_secs(1);
        s.accept_scan(&s.current_challenge(t1), &alice(), TTL, t1, &rng)
            .unwrap();
        assert_eq!((s.number, s.number_choices()), (Some(n), choices));
        // Over many draws the number takes every place among the choices, and every value.
        let mut places = [0; 3];
        let mut seen = std::collections::HashSet::new();
        for seed in 0..2000 {
            let rng = SeededRandom::new(seed);
            let n = draw_number(&rng);
            let c = choices_for(n, &rng);
            places[c.iter().position(|x| *x == n).unwrap()] += 1;
            seen.insert(n);
        }
        assert!(places.iter().all(|p| *p > 500), "{places:?}");
        assert_eq!(seen.len(), 90);
    }

    /// Every refusal of a decision, one row.
    #[test]
    fn every_refused_decision() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let rng = SeededRandom::new(4);
        let mut scanned = session(t0);
        let c = scanned.current_challenge(t0);
        scanned.accept_scan(&c, &alice(), TTL, t0, &rng).unwrap();
        let n = i64::from(scanned.number.unwrap());
        let wrong = i64::from(
            *scanned
                .number_choices()
                .iter()
                .find(|x| i64::from(**x) != n)
                .unwrap(),
        );
        let mut anonymous = session(t0);
        anonymous
            .accept_scan(&c, &Scanner::Anonymous, TTL, t0, &rng)
            .unwrap();
        let na = i64::from(anonymous.number.unwrap());
        let fresh = session(t0);
        let later = t0.plus_secs(60);
        // (name, login, sub, challenge, approve, number, want)
        #[allow(clippy::type_complexity)]
        let table: &[(
            &str,
            &QrLogin,
            &str,
            &str,
            bool,
            Option<i64>,
            Result<(), DecideError>,
        )] = &[
            (
                "right number, a minute later",
                &scanned,
                "alice",
                &c,
                true,
                Some(n),
                Ok(()),
            ),
            (
                "deny needs no number",
                &scanned,
                "alice",
                &c,
                false,
                None,
                Ok(()),
            ),
            (
                "not scanned",
                &fresh,
                "alice",
                &c,
                true,
                Some(n),
                Err(DecideError::NotFound),
            ),
            (
                "another challenge",
                &scanned,
                "alice",
                "AAAAAAAAAAAAAAAAAAAAAA",
                true,
                Some(n),
                Err(DecideError::NotFound),
            ),
            (
                "missing number",
                &scanned,
                "alice",
                &c,
                true,
                None,
                Err(DecideError::MissingNumber),
            ),
            (
                "wrong number",
                &scanned,
                "alice",
                &c,
                true,
                Some(wrong),
                Err(DecideError::Cancelled(CancelReason::WrongNumber)),
            ),
            (
                "a number out of range",
                &scanned,
                "alice",
                &c,
                true,
                Some(100),
                Err(DecideError::Cancelled(CancelReason::WrongNumber)),
            ),
            (
                "other sub than the scanner",
                &scanned,
                "bob",
                &c,
                true,
                Some(n),
                Err(DecideError::Cancelled(CancelReason::SecondDevice)),
            ),
            (
                "other sub denying",
                &scanned,
                "bob",
                &c,
                false,
                None,
                Err(DecideError::Cancelled(CancelReason::SecondDevice)),
            ),
            (
                "any sub after an anonymous scan",
                &anonymous,
                "bob",
                &c,
                true,
                Some(na),
                Ok(()),
            ),
        ];
        for (name, login, sub, challenge, approve, number, want) in table {
            let mut s = (*login).clone();
            let got = s.decide(
                sub,
                challenge,
                (*approve, Method::DeviceKey),
                *number,
                later,
            );
            assert_eq!(got, *want, "{name}");
            match want {
                Ok(()) if *approve => assert!(matches!(s.status, LoginStatus::Approved { .. })),
                Ok(()) => assert_eq!(
                    (s.public_status(later), s.cancel_reason()),
                    ("denied", None)
                ),
                Err(DecideError::Cancelled(r)) => {
                    assert_eq!(s.public_status(later), "denied", "{name}");
                    assert_eq!(s.cancel_reason(), Some(*r), "{name}");
                    // Cancelled for good: the right number afterwards is too late.
                    assert_eq!(
                        s.decide("alice", &c, (true, Method::DeviceKey), Some(n), later),
                        Err(DecideError::AlreadyDecided),
                        "{name}"
                    );
                }
                Err(_) => assert_eq!(s.status, LoginStatus::Pending, "{name}"),
            }
        }
    }

    #[test]
    fn an_approval_below_the_required_acr_changes_nothing_and_a_passkey_may_approve_then() {
        use crate::domain::authn::AcrRequest;
        let t0 = Timestamp::from_secs(1_800_000_000);
        let rng = SeededRandom::new(1);
        let mut s = session(t0);
        s.request.claims.acr = AcrRequest::of(["2"], true);
        let c = s.current_challenge(t0);
        s.accept_scan(&c, &alice(), TTL, t0, &rng).unwrap();
        let n = s.number.map(i64::from);
        let before = s.clone();
        assert_eq!(
            s.decide("alice", &c, (true, Method::DeviceKey), n, t0),
            Err(DecideError::AcrNotMet(Acr::UserVerified))
        );
        assert_eq!(s, before);
        // A wrong number still cancels for good, whatever approved it.
        let mut wrong = s.clone();
        let other = wrong
            .number_choices()
            .into_iter()
            .find(|x| Some(i64::from(*x)) != n);
        assert!(matches!(
            wrong.decide(
                "alice",
                &c,
                (true, Method::DeviceKey),
                other.map(i64::from),
                t0
            ),
            Err(DecideError::Cancelled(CancelReason::WrongNumber))
        ));
        // A denial needs no level.
        let mut denied = s.clone();
        denied
            .decide("alice", &c, (false, Method::DeviceKey), None, t0)
            .unwrap();
        assert_eq!(denied.status, LoginStatus::Denied);
        s.decide("alice", &c, (true, Method::PasskeyUv), n, t0)
            .unwrap();
        assert_eq!(
            s.status,
            LoginStatus::Approved {
                sub: Subject::new("alice"),
                auth_time: t0,
                approved_with: Method::PasskeyUv
            }
        );
        // Stored as the protocol names it; a device key's approval stores nothing more.
        let v = serde_json::to_value(&s.status).unwrap();
        assert_eq!(v["approved_with"], "passkey-uv");
        let old: LoginStatus = serde_json::from_value(
            serde_json::json!({ "status": "approved", "sub": "alice", "auth_time": 1 }),
        )
        .unwrap();
        assert!(matches!(
            old,
            LoginStatus::Approved {
                approved_with: Method::DeviceKey,
                ..
            }
        ));
        let v = serde_json::to_value(&old).unwrap();
        assert!(v.get("approved_with").is_none(), "{v}");
    }

    #[test]
    fn a_passkey_challenge_belongs_to_its_login_and_signs_it_in_once() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let mut s = session(t0);
        let other = session_seeded(t0, 9);
        let c = s.passkey_challenge(&[7; 16]);
        assert_eq!(c.len(), 32);
        assert!(s.owns_passkey_challenge(&c));
        assert!(
            !other.owns_passkey_challenge(&c),
            "another login's challenge"
        );
        let mut forged = c.clone();
        forged[31] ^= 1;
        assert!(!s.owns_passkey_challenge(&forged));
        assert!(!s.owns_passkey_challenge(&c[..16]));
        assert!(!s.owns_passkey_challenge(&[]));
        // Expired, or for a device authorization: no.
        assert_eq!(
            s.clone()
                .sign_in_with_passkey("alice", Method::PasskeySignIn, s.expires_at),
            Err(DecideError::NotFound)
        );
        let mut dg = s.clone();
        dg.device_grant = Some("h".into());
        assert_eq!(
            dg.sign_in_with_passkey("alice", Method::PasskeySignIn, t0),
            Err(DecideError::NotFound)
        );
        s.sign_in_with_passkey("alice", Method::PasskeySignIn, t0)
            .unwrap();
        assert_eq!(
            s.approved(t0).map(|a| a.method),
            Some(Method::PasskeySignIn)
        );
        assert_eq!(
            s.sign_in_with_passkey("alice", Method::PasskeySignIn, t0),
            Err(DecideError::AlreadyDecided)
        );
    }

    #[test]
    fn decided_once_and_only_for_a_scanned_challenge() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let rng = SeededRandom::new(1);
        let mut s = session(t0);
        let c = s.current_challenge(t0);
        assert!(s.accept_scan(&c, &alice(), TTL, t0, &rng).is_ok());
        let n = s.number.map(i64::from);
        s.decide("alice", &c, (true, Method::DeviceKey), n, t0.plus_secs(60))
            .unwrap();
        assert!(matches!(s.status, LoginStatus::Approved { .. }));
        assert_eq!(
            s.decide(
                "alice",
                &c,
                (false, Method::DeviceKey),
                None,
                t0.plus_secs(61)
            ),
            Err(DecideError::AlreadyDecided)
        );
        let t = t0.plus_secs(62);
        assert_eq!(
            s.accept_scan(&s.current_challenge(t), &alice(), TTL, t, &rng),
            Err(ScanError::NotFound),
            "decided sessions cannot be scanned"
        );
        assert_eq!(s.public_status(t0), "approved");
    }
}

//! Web Push from scanid to the person's app: the message encryption of RFC 8291 (the
//! `aes128gcm` content coding of RFC 8188, one record), the VAPID authorization of RFC 8292,
//! and the RFC 8030 request both make up. Only aws-lc-rs: ECDH P-256, HMAC-SHA256 (the HKDF
//! steps, each one block long), AES-128-GCM.

use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM};
use aws_lc_rs::agreement::{self, PrivateKey, UnparsedPublicKey, ECDH_P256};
use aws_lc_rs::hmac;
use aws_lc_rs::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use crate::clock::Timestamp;
use crate::random::Random;

/// How long the VAPID token is valid (RFC 8292 §2: at most 24 hours).
pub const VAPID_LIFETIME_SECS: i64 = 12 * 3600;
/// The record size written in the header (RFC 8188 §2.1); the message is one record.
const RECORD_SIZE: u32 = 4096;
/// The longest plaintext scanid sends (RFC 8291 §4: 3993 octets fit one 4096-octet record).
pub const MAX_PLAINTEXT: usize = 3993;

/// Why a message could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PushError {
    /// The subscription's `p256dh` is not an uncompressed P-256 point, or its `auth` is not
    /// 16 octets.
    #[error("the subscription's keys are not a P-256 public key and a 16-octet secret")]
    BadSubscriptionKeys,
    /// The VAPID key is not a P-256 private key.
    #[error("the VAPID key is not a P-256 private key")]
    BadVapidKey,
    /// The plaintext does not fit one record.
    #[error("the message is too long")]
    TooLong,
    /// The cryptographic library refused (should not happen).
    #[error("encryption failed")]
    Crypto,
}

impl From<aws_lc_rs::error::Unspecified> for PushError {
    fn from(_: aws_lc_rs::error::Unspecified) -> Self {
        PushError::Crypto
    }
}

/// scanid's VAPID key pair (RFC 8292): signs the token every push request carries; its
/// public key is the `applicationServerKey` the app subscribes with.
pub struct VapidKey {
    pair: EcdsaKeyPair,
    public: Vec<u8>,
}

impl std::fmt::Debug for VapidKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the private key.
        f.debug_struct("VapidKey")
            .field("public", &self.public_b64())
            .finish_non_exhaustive()
    }
}

impl VapidKey {
    /// The key whose private scalar is `d` (32 octets, big-endian).
    pub fn from_scalar(d: &[u8]) -> Result<Self, PushError> {
        let private =
            PrivateKey::from_private_key(&ECDH_P256, d).map_err(|_| PushError::BadVapidKey)?;
        let public = private
            .compute_public_key()
            .map_err(|_| PushError::BadVapidKey)?
            .as_ref()
            .to_vec();
        let pair = EcdsaKeyPair::from_private_key_and_public_key(
            &ECDSA_P256_SHA256_FIXED_SIGNING,
            d,
            &public,
        )
        .map_err(|_| PushError::BadVapidKey)?;
        Ok(Self { pair, public })
    }

    /// A new key from `random` (a scalar out of range, about one in 2^32, is drawn again);
    /// with its private scalar in base64url, the setting's form.
    pub fn generate(random: &dyn Random) -> (Self, String) {
        loop {
            let mut d = [0u8; 32];
            random.fill(&mut d);
            if let Ok(k) = Self::from_scalar(&d) {
                return (k, URL_SAFE_NO_PAD.encode(d));
            }
        }
    }

    /// The key whose private scalar is `d` in base64url (the setting's form).
    pub fn from_b64(d: &str) -> Result<Self, PushError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(d.trim().trim_end_matches('='))
            .map_err(|_| PushError::BadVapidKey)?;
        Self::from_scalar(&bytes)
    }

    /// The public key, uncompressed (65 octets), base64url: the `applicationServerKey` and the
    /// `k` of the authorization.
    pub fn public_b64(&self) -> String {
        URL_SAFE_NO_PAD.encode(&self.public)
    }

    /// The `Authorization` header value for a push to `endpoint` (RFC 8292 §3):
    /// `vapid t=<ES256 JWT: aud the endpoint's origin, exp, sub>, k=<public key>`.
    pub fn authorization(
        &self,
        endpoint: &str,
        subject: &str,
        now: Timestamp,
    ) -> Result<String, PushError> {
        let aud = origin(endpoint).ok_or(PushError::BadSubscriptionKeys)?;
        let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({
            "aud": aud,
            "exp": now.secs() + VAPID_LIFETIME_SECS,
            "sub": subject,
        });
        let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
        let input = format!("{header}.{claims}");
        let sig = self
            .pair
            .sign(&aws_lc_rs::rand::SystemRandom::new(), input.as_bytes())?;
        Ok(format!(
            "vapid t={input}.{}, k={}",
            URL_SAFE_NO_PAD.encode(sig.as_ref()),
            self.public_b64()
        ))
    }
}

/// `scheme://host[:port]` of an absolute URL (the VAPID `aud`).
pub fn origin(endpoint: &str) -> Option<String> {
    let u = url::Url::parse(endpoint).ok()?;
    u.host_str()?;
    Some(u.origin().ascii_serialization())
}

/// The keys of a subscription (the browser's `PushSubscription.toJSON().keys`).
#[derive(Debug, Clone)]
pub struct ReceiverKeys {
    /// `p256dh`: the user agent's public key, uncompressed (65 octets).
    pub p256dh: Vec<u8>,
    /// `auth`: the 16-octet authentication secret.
    pub auth: Vec<u8>,
}

impl ReceiverKeys {
    /// The keys from their base64url forms, checked (a point on the curve, 16 octets).
    pub fn from_b64(p256dh: &str, auth: &str) -> Result<Self, PushError> {
        let d = |s: &str| {
            URL_SAFE_NO_PAD
                .decode(s.trim_end_matches('='))
                .map_err(|_| PushError::BadSubscriptionKeys)
        };
        let keys = Self {
            p256dh: d(p256dh)?,
            auth: d(auth)?,
        };
        if keys.p256dh.len() != 65 || keys.p256dh.first() != Some(&4) || keys.auth.len() != 16 {
            return Err(PushError::BadSubscriptionKeys);
        }
        // A point that is not on the curve fails the agreement: try one now.
        let probe = PrivateKey::generate(&ECDH_P256)?;
        agreement::agree(
            &probe,
            UnparsedPublicKey::new(&ECDH_P256, &keys.p256dh),
            PushError::BadSubscriptionKeys,
            |_| Ok(()),
        )?;
        Ok(keys)
    }
}

/// Encrypts `plaintext` for `to` (RFC 8291 §3.4, RFC 8188 §2) with a fresh sender key and
/// salt drawn from `rng`: the body of the push request.
pub fn encrypt(
    plaintext: &[u8],
    to: &ReceiverKeys,
    rng: &dyn Random,
) -> Result<Vec<u8>, PushError> {
    let mut salt = [0u8; 16];
    rng.fill(&mut salt);
    // A random scalar is below the order but for a negligible chance: draw again then.
    for _ in 0..4 {
        let mut d = [0u8; 32];
        rng.fill(&mut d);
        if let Ok(key) = PrivateKey::from_private_key(&ECDH_P256, &d) {
            return encrypt_with(plaintext, to, &key, &salt);
        }
    }
    Err(PushError::Crypto)
}

/// HMAC-SHA256 of `parts` under `key`.
fn hmac(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let k = hmac::Key::new(hmac::HMAC_SHA256, key);
    let mut ctx = hmac::Context::with_key(&k);
    for p in parts {
        ctx.update(p);
    }
    ctx.sign().as_ref().to_vec()
}

/// The encryption with a given sender key and salt (the test vector's).
fn encrypt_with(
    plaintext: &[u8],
    to: &ReceiverKeys,
    sender: &PrivateKey,
    salt: &[u8; 16],
) -> Result<Vec<u8>, PushError> {
    if plaintext.len() > MAX_PLAINTEXT {
        return Err(PushError::TooLong);
    }
    let as_public = sender.compute_public_key()?.as_ref().to_vec();
    let ecdh_secret = agreement::agree(
        sender,
        UnparsedPublicKey::new(&ECDH_P256, &to.p256dh),
        PushError::BadSubscriptionKeys,
        |s| Ok(s.to_vec()),
    )?;
    // RFC 8291 §3.3: IKM = HKDF(auth, ecdh_secret, "WebPush: info" 0 ua_public as_public, 32).
    let prk_key = hmac(&to.auth, &[&ecdh_secret]);
    let ikm = hmac(
        &prk_key,
        &[b"WebPush: info\0", &to.p256dh, &as_public, &[1]],
    );
    // RFC 8188 §2.2, §2.3: the content encryption key and the nonce.
    let prk = hmac(salt, &[&ikm]);
    let cek = hmac(&prk, &[b"Content-Encoding: aes128gcm\0", &[1]]);
    let nonce = hmac(&prk, &[b"Content-Encoding: nonce\0", &[1]]);
    let key = LessSafeKey::new(UnboundKey::new(
        &AES_128_GCM,
        cek.get(..16).ok_or(PushError::Crypto)?,
    )?);
    let nonce = Nonce::try_assume_unique_for_key(nonce.get(..12).ok_or(PushError::Crypto)?)?;
    // One record, the last: the plaintext, the delimiter 2, no padding.
    let mut record = Vec::with_capacity(plaintext.len() + 17);
    record.extend_from_slice(plaintext);
    record.push(2);
    key.seal_in_place_append_tag(nonce, Aad::empty(), &mut record)?;
    // The header: salt, record size, the key id (the sender's public key).
    let mut body = Vec::with_capacity(86 + record.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(65);
    body.extend_from_slice(&as_public);
    body.extend_from_slice(&record);
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Vec<u8> {
        URL_SAFE_NO_PAD.decode(s).expect("base64url")
    }

    // RFC 8291 Appendix A.
    const UA_PUBLIC: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";
    const AS_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
    const AS_PUBLIC: &str =
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
    const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
    const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

    #[test]
    fn the_rfc_8291_test_vector_is_reproduced_byte_for_byte() {
        let to = ReceiverKeys::from_b64(UA_PUBLIC, AUTH).expect("keys");
        let sender = PrivateKey::from_private_key(&ECDH_P256, &b(AS_PRIVATE)).expect("key");
        assert_eq!(
            URL_SAFE_NO_PAD.encode(sender.compute_public_key().expect("public").as_ref()),
            AS_PUBLIC
        );
        let salt: [u8; 16] = b(SALT).try_into().expect("16 octets");
        let body = encrypt_with(
            b"When I grow up, I want to be a watermelon",
            &to,
            &sender,
            &salt,
        )
        .expect("encrypted");
        assert_eq!(URL_SAFE_NO_PAD.encode(body), BODY);
    }

    #[test]
    fn a_fresh_message_has_the_header_and_a_new_key_each_time() {
        let to = ReceiverKeys::from_b64(UA_PUBLIC, AUTH).expect("keys");
        let rng = crate::random::SeededRandom::new(7);
        let one = encrypt(b"{}", &to, &rng).expect("one");
        let two = encrypt(b"{}", &to, &rng).expect("two");
        assert_eq!(one.len(), 86 + 3 + 16);
        assert_eq!(one.get(16..21), Some(&[0, 0, 16, 0, 65][..]));
        assert_ne!(one.get(..86), two.get(..86));
        assert_eq!(
            encrypt(&[0; MAX_PLAINTEXT + 1], &to, &rng),
            Err(PushError::TooLong)
        );
    }

    #[test]
    fn a_generated_key_reads_back_from_its_setting() {
        let rng = crate::random::SeededRandom::new(7);
        let (k, d) = VapidKey::generate(&rng);
        assert_eq!(VapidKey::from_b64(&d).unwrap().public_b64(), k.public_b64());
        assert_eq!(k.public_b64().len(), 87, "65 octets, uncompressed");
        let (other, _) = VapidKey::generate(&rng);
        assert_ne!(other.public_b64(), k.public_b64());
    }

    #[test]
    fn bad_subscription_keys_are_refused() {
        assert!(ReceiverKeys::from_b64(UA_PUBLIC, "AAAA").is_err());
        assert!(ReceiverKeys::from_b64("BAAA", AUTH).is_err());
        // 65 octets starting with 4, but not a point on the curve.
        let off = URL_SAFE_NO_PAD.encode([4u8; 65]);
        assert!(ReceiverKeys::from_b64(&off, AUTH).is_err());
        assert!(ReceiverKeys::from_b64("not base64!", AUTH).is_err());
    }

    #[test]
    fn the_vapid_header_is_an_es256_jwt_for_the_push_service_origin() {
        let key = VapidKey::from_b64(AS_PRIVATE).expect("key");
        assert_eq!(key.public_b64(), AS_PUBLIC);
        let now = Timestamp::from_secs(1_700_000_000);
        let h = key
            .authorization(
                "https://push.example.net:8443/wpush/v2/abc?x=1",
                "mailto:ops@example.com",
                now,
            )
            .expect("header");
        let rest = h.strip_prefix("vapid t=").expect("scheme");
        let (jwt, k) = rest.split_once(", k=").expect("k");
        assert_eq!(k, AS_PUBLIC);
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let claims: serde_json::Value = serde_json::from_slice(&b(parts[1])).expect("claims");
        assert_eq!(claims["aud"], "https://push.example.net:8443");
        assert_eq!(claims["sub"], "mailto:ops@example.com");
        assert_eq!(claims["exp"], 1_700_000_000 + VAPID_LIFETIME_SECS);
        let public = aws_lc_rs::signature::UnparsedPublicKey::new(
            &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED,
            b(AS_PUBLIC),
        );
        public
            .verify(
                format!("{}.{}", parts[0], parts[1]).as_bytes(),
                &b(parts[2]),
            )
            .expect("signature by the VAPID key");
        assert!(VapidKey::from_b64("AAAA").is_err());
    }
}

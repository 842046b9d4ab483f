//! Randomness is passed in, so tests are exact and repeatable (STYLE.md practice 6).

use std::sync::atomic::{AtomicU64, Ordering};

use aws_lc_rs::rand::SecureRandom;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// A source of random bytes.
pub trait Random: Send + Sync {
    /// Fills `buf` with random bytes (never fails: aborts the process rather than hand out weak ones).
    fn fill(&self, buf: &mut [u8]);
}

/// The operating system's CSPRNG through aws-lc-rs.
#[derive(Debug, Default)]
pub struct SystemRandom(aws_lc_rs::rand::SystemRandom);

impl SystemRandom {
    /// The system's generator.
    pub fn new() -> Self {
        Self(aws_lc_rs::rand::SystemRandom::new())
    }
}

impl Random for SystemRandom {
    fn fill(&self, buf: &mut [u8]) {
        // aws-lc's RAND_bytes aborts the process rather than return failure; a failure here
        // cannot be handled meaningfully, so fall back to zeroing would be wrong: abort instead.
        if self.0.fill(buf).is_err() {
            std::process::abort();
        }
    }
}

/// A deterministic generator for tests: SHA-256 in counter mode over a seed.
#[derive(Debug)]
pub struct SeededRandom {
    seed: u64,
    counter: AtomicU64,
}

impl SeededRandom {
    /// A generator whose bytes follow from `seed` alone.
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            counter: AtomicU64::new(0),
        }
    }
}

impl Random for SeededRandom {
    fn fill(&self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(32) {
            let n = self.counter.fetch_add(1, Ordering::SeqCst);
            let mut input = [0u8; 16];
            input[..8].copy_from_slice(&self.seed.to_be_bytes());
            input[8..].copy_from_slice(&n.to_be_bytes());
            let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &input);
            chunk.copy_from_slice(&d.as_ref()[..chunk.len()]);
        }
    }
}

/// `n` random bytes, base64url without padding: codes, tokens, ids (docs/requirements.md T8 wants
/// at least 16 bytes, i.e. 128 bits).
pub fn token(rng: &dyn Random, n: usize) -> String {
    let mut buf = vec![0u8; n];
    rng.fill(&mut buf);
    URL_SAFE_NO_PAD.encode(buf)
}

/// A random UUID v4, from the injected source.
pub fn uuid_v4(rng: &dyn Random) -> uuid::Uuid {
    let mut b = [0u8; 16];
    rng.fill(&mut b);
    uuid::Builder::from_random_bytes(b).into_uuid()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_is_repeatable_and_distinct() {
        let a = SeededRandom::new(7);
        let b = SeededRandom::new(7);
        assert_eq!(token(&a, 32), token(&b, 32));
        assert_ne!(token(&a, 32), token(&a, 32));
        assert_eq!(token(&a, 32).len(), 43);
    }

    #[test]
    fn uuid_is_v4() {
        let u = uuid_v4(&SystemRandom::new());
        assert_eq!(u.get_version_num(), 4);
    }
}

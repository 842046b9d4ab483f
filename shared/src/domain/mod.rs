//! The decisions. Nothing here knows about HTTP, Lambda or AWS (STYLE.md practice 5).

pub mod client;
pub mod discovery;

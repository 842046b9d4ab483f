//! One module per group of endpoints. Each handler: parse, call the domain, render.

pub mod metadata;

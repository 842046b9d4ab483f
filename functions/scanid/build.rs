//! Links `scanid` with packed relative relocations (ELF `DT_RELR`, `-z pack-relative-relocs`)
//! where the linker and the C library it runs on support them (binutils 2.38, glibc 2.36).
//!
//! `scanid` is a position-independent executable, so the loader relocates it at every start:
//! about 55,000 relative relocations, 1.25 MB of `.rela.dyn` that the loader reads (and keeps
//! resident) before `main`. Packed, they take a few kilobytes. Nothing else changes: the
//! executable stays position-independent (ASLR), and the code is the same.
//!
//! The probe links and runs a one-line C program with the flag, with the C compiler Rust
//! links with on this target (`cc`), so a toolchain or C library without `DT_RELR` gets the
//! usual relocations instead of a link error or an executable its loader refuses. Only for a
//! native Linux GNU build: a cross build's executable runs elsewhere. The Lambda functions are
//! other packages (their `provided.al2023` has glibc 2.34) and are not touched.
//! `SCANID_NO_RELR=1` turns it off.

include!("relr.rs");

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=relr.rs");
    println!("cargo:rerun-if-env-changed=SCANID_NO_RELR");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let native = var("HOST") == var("TARGET");
    if !native
        || var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("SCANID_NO_RELR") == "1"
    {
        return;
    }
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    if packs_relative_relocations(&out.join("relr-probe")) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

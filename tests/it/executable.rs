//! The `scanid` executable itself: linked with packed relative relocations (`DT_RELR`) wherever
//! the toolchain and the C library support them (functions/scanid/build.rs), so the loader
//! does not read and keep 1.25 MB of `.rela.dyn` at every start; and still position-independent.

use std::io::Write as _;
use std::process::{Command, Stdio};

use scanid_tests::scanid_bin;

/// Whether `cc` links and runs a program with `-z pack-relative-relocs` here: the build
/// script's own probe, repeated.
fn toolchain_packs_relocations(dir: &std::path::Path) -> bool {
    let out = dir.join("probe");
    let Ok(mut child) = Command::new("cc")
        .args(["-x", "c", "-", "-o"])
        .arg(&out)
        .arg("-Wl,-z,pack-relative-relocs")
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"int main(void) { return 0; }\n")
        .unwrap();
    child.wait().unwrap().success() && Command::new(&out).status().unwrap().success()
}

#[test]
fn the_executable_packs_its_relative_relocations_and_stays_position_independent() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let header = Command::new("readelf")
        .args(["--file-header", "--dynamic", "--wide"])
        .arg(scanid_bin())
        .output()
        .expect("readelf (binutils, which links Rust on Linux)");
    assert!(header.status.success());
    let text = String::from_utf8_lossy(&header.stdout);
    assert!(
        text.contains("DYN (Position-Independent Executable file)"),
        "scanid must stay a PIE (ASLR):\n{text}"
    );
    if toolchain_packs_relocations(dir.path()) {
        assert!(
            text.contains("(RELR)"),
            "cc packs relative relocations here, but scanid was linked without them:\n{text}"
        );
    }
}

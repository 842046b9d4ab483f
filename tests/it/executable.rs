//! The `scanid` executable itself: linked with packed relative relocations (`DT_RELR`) wherever
//! the toolchain and the C library support them (functions/scanid/build.rs), so the loader
//! does not read and keep 1.25 MB of `.rela.dyn` at every start; and still position-independent.

use std::process::Command;

use scanid_tests::scanid_bin;

// The build script's own probe (`packs_relative_relocations`), the same code.
include!("../../functions/scanid/relr.rs");

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
    if packs_relative_relocations(&dir.path().join("probe")) {
        assert!(
            text.contains("(RELR)"),
            "cc packs relative relocations here, but scanid was linked without them:\n{text}"
        );
    }
}

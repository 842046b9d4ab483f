// The probe of `-z pack-relative-relocs`, shared by the build script (`build.rs`, which links
// `scanid` with the flag when it passes) and the test that holds the executable to it
// (`tests/it/executable.rs`), so that the two cannot disagree about this machine. Included
// (`include!`) by both: a build script cannot depend on a crate of the workspace.

/// Whether `cc` (the C compiler Rust links with) links a one-line C program with
/// `-z pack-relative-relocs` at `out` and the program then runs: the linker and the C library
/// both support packed relative relocations (`DT_RELR`).
fn packs_relative_relocations(out: &std::path::Path) -> bool {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let child = Command::new("cc")
        .args(["-x", "c", "-", "-o"])
        .arg(out)
        .arg("-Wl,-z,pack-relative-relocs")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        if stdin.write_all(b"int main(void) { return 0; }\n").is_err() {
            return false;
        }
    }
    let linked = child.wait().is_ok_and(|s| s.success());
    linked && Command::new(out).status().is_ok_and(|s| s.success())
}

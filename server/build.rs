//! Records the commit the binary was built from (`--version` prints it).
//!
//! `HERALD_COMMIT` (set by release builds) wins; otherwise `git rev-parse`
//! when the source is a git checkout; otherwise `unknown`.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=HERALD_COMMIT");
    let git_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.git");
    for watched in ["HEAD", "refs/heads", "packed-refs"] {
        let path = git_dir.join(watched);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let commit = std::env::var("HERALD_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=HERALD_COMMIT={}", commit.trim());
}

fn git_commit() -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let commit = String::from_utf8(out.stdout).ok()?;
    let commit = commit.trim();
    (!commit.is_empty()).then(|| commit.to_string())
}

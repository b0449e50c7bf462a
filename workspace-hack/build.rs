// A build script makes cargo apply the [build-dependencies] section of Cargo.toml (the features
// of the crates that build scripts and proc macros use).
fn main() {}

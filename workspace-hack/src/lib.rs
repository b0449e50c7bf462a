//! No code: this crate exists for its dependencies. Every crate of the workspace depends on it,
//! and it depends on each shared dependency with the union of the features the workspace uses,
//! so any package selection compiles each dependency once with one feature set. Managed by
//! `cargo hakari` (see its Cargo.toml).

//! The wire types of Keeper's REST contract (`sandbox/openapi.yaml`).
//!
//! These types are the single Rust rendering of that document: Herald's
//! Keeper client (`herald_core::keeper`, which re-exports this crate as
//! `keeper::model`) deserializes them and the sandbox Keeper serializes them,
//! so the two cannot drift apart silently; the contract tests hold both to the
//! OpenAPI document. The crate holds nothing else, so the sandbox builds
//! without Herald's core.
//!
//! Attribute values are dynamic in a Domain (their type comes from the schema),
//! so they are [`serde_json::Value`]; everything else has a type.
//!
//! What the output caps never cut (an identifier an agent passes back: a
//! ref, a Revision id, a branch, a name; a cursor; a `where` predicate) is
//! a field whose schema type is [`Uncut`] (`#[schemars(with =
//! "Uncut<String>")]`): `render::caps::Identifiers` reads the mark, and an
//! unmarked field (a new one included) is cut like any text.

#[macro_use]
mod macros;
mod open;
pub use open::*;
mod common;
pub use common::*;
mod schema;
pub use schema::*;
mod reads;
pub use reads::*;
mod provenance;
pub use provenance::*;
mod revisions;
pub use revisions::*;
mod agent;
pub use agent::*;
mod uncut;
pub use uncut::{IDENTIFIER_MARK, Uncut, uncut};

//! Tool arguments: the argument types whose bounds are declared once (their
//! schema and their check come from the same numbers), the arguments every
//! Lorebase tool shares, and the parsing that names a bad argument.
//!
//! - `parse`: typed parsing that names a bad argument ([`Arg`]);
//! - `failure`: every `[validation-failed]` error of Herald's own checks,
//!   built in one place;
//! - `bounded`: the bounded types (`Int<1, 200>`, `Names<50>`, `Ref`, ...);
//! - `shaped`: the types with a shape (`Flag<true>`, `ApiName`, `Slug`,
//!   `Where`, ...); both write their schemas with `macros`' `argument_schema!`;
//! - `checks`: every argument error of a call gathered in one answer ([`Checks`]);
//! - `query`: `lorebase_query`'s query DSL and its bounds;
//! - `common`: `domain`, `branch`, `at`, `format` ([`Common`], [`Scope`]);
//! - `names`: the one check of argument names, for every built-in tool;
//! - `lenient`: the KB tools' argument types, read leniently (every issue
//!   at once, a count clamped).

#[macro_use]
mod macros;
mod bounded;
mod checks;
mod common;
mod failure;
mod lenient;
mod names;
mod parse;
mod query;
mod shaped;

pub(crate) use bounded::{Int, Name, Names, QueryVector, Ref, Refs, Revision, Text};
pub(crate) use checks::Checks;
pub(crate) use common::{Common, Scope, shared_schemas, take_common};
pub(crate) use failure::{invalid, listed};
pub(crate) use lenient::{LenientCount, LenientText, issue};
pub(crate) use macros::tool_arguments;
pub(crate) use names::{check_names, declared_names};
pub(crate) use parse::{Arg, Arguments, field_name, joined, parse, take};
pub(crate) use query::QueryDsl;
pub(crate) use shaped::{AnyObject, ApiName, Flag, Levels, Slug, Where, with_predicate_grammar};

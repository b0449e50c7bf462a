//! Tool arguments: the argument types whose bounds are declared once (their
//! schema and their check come from the same numbers), the arguments every
//! Lorebase tool shares, and the parsing that names a bad argument.
//!
//! - `parse`: typed parsing and `[validation-failed]` errors ([`Arg`]);
//! - `bounded`: the bounded types (`Int<1, 200>`, `Names<50>`, `Ref`, ...);
//! - `shaped`: the types with a shape (`Flag<true>`, `ApiName`, `Slug`,
//!   `Where`, ...); both write their schemas with `macros`' `argument_schema!`;
//! - `checks`: every argument error of a call gathered in one answer ([`Checks`]);
//! - `common`: `domain`, `branch`, `at`, `format` ([`Common`], [`Scope`]).

#[macro_use]
mod macros;
mod bounded;
mod checks;
mod common;
mod parse;
mod shaped;

pub(crate) use bounded::{Int, Name, Names, QueryVector, Ref, Refs, Revision, Text};
pub(crate) use checks::Checks;
pub(crate) use common::{Common, Scope, shared_schemas, take_common};
pub(crate) use parse::{Arg, ECHOED_NAME_CHARS, invalid, joined, parse};
pub(crate) use shaped::{
    AnyObject, ApiName, Flag, Levels, PREDICATE_GRAMMAR, Slug, Where, with_predicate_grammar,
};

//! Tool arguments: the argument types whose bounds are declared once (their
//! schema and their check come from the same numbers), the arguments every
//! Lorebase tool shares, and the parsing that names a bad argument.
//!
//! - `parse`: typed parsing and `[validation-failed]` errors ([`Arg`]);
//! - `bounded`: the bounded types (`Int<1, 200>`, `Names<50>`, `Ref`, ...);
//! - `common`: `domain`, `branch`, `at`, `format` ([`Common`], [`Scope`]).

mod bounded;
mod common;
mod parse;

pub(crate) use bounded::{
    AnyObject, ApiName, Flag, Int, Levels, Name, Names, PREDICATE_GRAMMAR, QueryVector, Ref, Refs,
    Revision, Slug, Text, Where, with_predicate_grammar,
};
pub(crate) use common::{Common, Scope, shared_schemas, take_common};
pub(crate) use parse::{Arg, invalid, joined, parse};

//! The one way a wire type says that a field is never cut by the output
//! caps (`herald_core::render::caps`): its schema type is [`Uncut`].

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;

/// The schema key that marks a value never cut. Only [`Uncut`] and
/// [`uncut`] write it; `herald_core::tools` removes it from the published
/// schemas.
pub const IDENTIFIER_MARK: &str = "x-identifier";

/// The schema of `T`, marked never cut ([`IDENTIFIER_MARK`]): the one way a
/// wire type says that a field is an identifier an agent passes back (a
/// Revision id, a ref, a branch), a cursor or a predicate, which a cut would
/// make wrong rather than short. Used as a field's schema type only:
/// `#[schemars(with = "Uncut<String>")]`, `with = "Option<Uncut<String>>"`.
pub struct Uncut<T>(std::marker::PhantomData<T>);

impl<T: JsonSchema> JsonSchema for Uncut<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Uncut_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = generator.subschema_for::<T>();
        schema.insert(IDENTIFIER_MARK.into(), true.into());
        schema
    }
}

/// A hand-written schema (the KB tools' output fields), marked as [`Uncut`]
/// marks a derived one.
pub fn uncut(mut schema: Value) -> Value {
    if let Value::Object(obj) = &mut schema {
        obj.insert(IDENTIFIER_MARK.into(), Value::Bool(true));
    }
    schema
}

//! `argument_schema!`: the JSON Schema of an argument type, written once per type.

/// Implements `JsonSchema` for an argument type: always inline, named after
/// the type (with its bounds).
macro_rules! argument_schema {
    (impl<$(const $bound:ident: $bound_ty:ty),*> $ty:ty, $name:expr, |$generator:ident| $schema:expr) => {
        impl<$(const $bound: $bound_ty),*> JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }

            fn json_schema($generator: &mut SchemaGenerator) -> Schema {
                $schema
            }
        }
    };
    ($ty:ty, $name:expr, |$generator:ident| $schema:expr) => {
        argument_schema!(impl<> $ty, $name, |$generator| $schema);
    };
}

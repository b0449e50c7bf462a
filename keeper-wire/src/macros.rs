//! The macros of the wire types.
//!
//! - `wire_enum!`: every set of names on the wire (problem codes, origin
//!   types, statuses) is declared with it, so the variants, their wire names,
//!   `as_str`, `ALL`, `Display`, serde, the JSON Schema
//!   (`{"type": "string", "enum": [...]}`) and [`super::WireEnum`] come from one
//!   list. The enum itself is closed: it is what Herald sends and what an
//!   argument may hold. Keeper's answers hold [`super::Open`]`<Enum>`, which
//!   also carries a name a newer Keeper sends, unchanged.
//! - `wire_schema!`: a JSON Schema written by hand for a wire type whose
//!   serde shape the derive cannot see (a ref as a string, a flattened struct).

/// Implements `JsonSchema` for `$ty` (inline) with the schema `$schema`.
macro_rules! wire_schema {
    ($ty:ty, |$generator:ident| $schema:expr) => {
        impl schemars::JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }

            fn json_schema($generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                $schema
            }
        }
    };
}

/// Declares a wire enum: `Variant = "wire-name"` per line, with its docs.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident = $wire:literal
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $(
                $(#[$variant_meta])*
                #[serde(rename = $wire)]
                $variant,
            )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: [Self; [$($wire),+].len()] = [$(Self::$variant),+];

            /// The name as on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire,)+
                }
            }
        }

        impl $crate::WireEnum for $name {
            const ALL: &'static [Self] = &Self::ALL;

            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        wire_schema!($name, |_generator| {
            schemars::json_schema!({"type": "string", "enum": [$($wire),+]})
        });
    };
}

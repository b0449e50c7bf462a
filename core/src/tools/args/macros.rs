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

/// A tool's own arguments, declared once: `tool_arguments! { /// doc
/// pub(crate) struct GetArgs => GetChecked { /// doc
/// r#ref: Ref, links: Option<Flag<false>> } }` is the struct a call's
/// arguments parse into (serde; its JSON Schema, each field's doc comment
/// the description a model sees) and `GetChecked`, the same fields each
/// checked by its type ([`super::Arg`]): a failure is named by its field
/// (`r#ref` is `ref`, as serde and schemars name it), and every failure of
/// a call is gathered in one answer, in the fields' order, or in the order
/// `=> GetChecked checked in (links, r#ref)` gives (every field, once: one
/// left out does not compile).
macro_rules! tool_arguments {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident => $checked:ident checked in ($($order:ident),+ $(,)?) {
            $(
                $(#[$field_meta:meta])*
                $field:ident: $ty:ty
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
        $vis struct $name {
            $(
                $(#[$field_meta])*
                $field: $ty,
            )+
        }

        #[doc = concat!("[`", stringify!($name), "`], each argument checked.")]
        #[derive(Debug)]
        $vis struct $checked {
            $(
                #[doc = concat!("`", stringify!($field), "`, checked.")]
                pub(crate) $field: <$ty as $crate::tools::args::Arg>::Checked,
            )+
        }

        impl $crate::tools::args::Arguments for $name {
            type Checked = $checked;

            fn check(self) -> Result<$checked, $crate::error::ToolError> {
                let mut v = $crate::tools::args::Checks::default();
                $(
                    let $order = v.keep($crate::tools::args::Arg::check(
                        self.$order,
                        $crate::tools::args::field_name(stringify!($order)),
                    ));
                )+
                v.done()?;
                match ($($field,)+) {
                    ($(Some($field),)+) => Ok($checked { $($field,)+ }),
                    // `done` fails whenever a check did.
                    _ => Err($crate::tools::args::invalid("arguments", "could not be checked")),
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident => $checked:ident {
            $(
                $(#[$field_meta:meta])*
                $field:ident: $ty:ty
            ),+ $(,)?
        }
    ) => {
        tool_arguments! {
            $(#[$meta])*
            $vis struct $name => $checked checked in ($($field),+) {
                $(
                    $(#[$field_meta])*
                    $field: $ty
                ),+
            }
        }
    };
}

pub(crate) use tool_arguments;

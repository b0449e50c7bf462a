//! The argument types with a shape rather than a size: a flag and its
//! default, an api name, a task slug, a predicate, resolution levels, any
//! object. As in `bounded`, each type's schema and check come from one place.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::failure::invalid;
use super::parse::Arg;
use crate::error::ToolError;
use crate::keeper::model::{OriginType, Predicate, ResolveLevel, SchemaDetail};

/// A boolean whose default (what leaving it out means) is `DEFAULT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Flag<const DEFAULT: bool>(bool);

argument_schema!(
    impl<const DEFAULT: bool> Flag<DEFAULT>,
    format!("Flag_{DEFAULT}"),
    |_generator| {
        json_schema!({"type": "boolean", "default": DEFAULT})
    }
);

impl<const DEFAULT: bool> Flag<DEFAULT> {
    /// The value given, else the default.
    pub(crate) fn or_default(flag: Option<Self>) -> bool {
        flag.map_or(DEFAULT, |f| f.0)
    }

    /// The value given, if any (passed on for Keeper to default).
    pub(crate) fn given(flag: Option<Self>) -> Option<bool> {
        flag.map(|f| f.0)
    }
}

/// Arguments whose type is their whole check (a flag, Keeper's wire enums,
/// an Operation's parameters, checked by Keeper).
macro_rules! unchecked {
    ($(impl<$(const $bound:ident: $bound_ty:ty),*> $ty:ty),+ $(,)?) => {
        $(
            impl<$(const $bound: $bound_ty),*> Arg for $ty {
                type Checked = Self;

                fn check(self, _arg: &str) -> Result<Self, ToolError> {
                    Ok(self)
                }
            }
        )+
    };
}

unchecked!(
    impl<const DEFAULT: bool> Flag<DEFAULT>,
    impl<> SchemaDetail,
    impl<> OriginType,
    impl<> Map<String, Value>,
);

/// The characters a text argument may hold: its first, the others, and its
/// length in bytes (the api name's and the slug's check).
struct Shape {
    first: fn(char) -> bool,
    rest: fn(char) -> bool,
    max: usize,
}

impl Shape {
    /// `value` when it is not empty, its first character passes `first`,
    /// every other `rest`, and it is at most `max` bytes; otherwise the
    /// `invalid` error of `arg`, saying what it `must` be.
    fn check(
        &self,
        value: String,
        arg: &str,
        must: impl FnOnce() -> String,
    ) -> Result<String, ToolError> {
        let mut chars = value.chars();
        let ok =
            chars.next().is_some_and(self.first) && chars.all(self.rest) && value.len() <= self.max;
        if ok {
            Ok(value)
        } else {
            Err(invalid(arg, must()))
        }
    }
}

/// The longest api name of an Operation.
const API_NAME_MAX: usize = 128;

/// An api name (an Operation's): `[A-Za-z_][A-Za-z0-9_]*`, at most 128.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct ApiName(String);

// Its shape and length are checked, not shown (like a name's: `bounded::Name`).
argument_schema!(
    ApiName,
    "ApiName",
    |_generator| json_schema!({"type": "string"})
);

impl Arg for ApiName {
    type Checked = String;

    fn check(self, arg: &str) -> Result<String, ToolError> {
        let shape = Shape {
            first: |ch| ch.is_ascii_alphabetic() || ch == '_',
            rest: |ch| ch.is_ascii_alphanumeric() || ch == '_',
            max: API_NAME_MAX,
        };
        shape.check(self.0, arg, || {
            "must be an api name such as flag_supplier_risk".into()
        })
    }
}

/// The longest task slug.
const SLUG_MAX: usize = 63;

/// A task slug: lowercase letters, digits and `-`, at most 63, not starting
/// with `-`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Slug(String);

argument_schema!(Slug, "Slug", |_generator| json_schema!({
    "type": "string", "pattern": format!("^[a-z0-9][a-z0-9-]{{0,{}}}$", SLUG_MAX - 1)
}));

impl Arg for Slug {
    type Checked = String;

    fn check(self, arg: &str) -> Result<String, ToolError> {
        let shape = Shape {
            first: |ch| ch.is_ascii_lowercase() || ch.is_ascii_digit(),
            rest: |ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-',
            max: SLUG_MAX,
        };
        shape.check(self.0, arg, || {
            format!(
                "must be a short slug: lowercase letters, digits or '-', at most {SLUG_MAX} (for example fix-risk-s1001)"
            )
        })
    }
}

/// A filter predicate of the query DSL (an object); its grammar is appended
/// to the argument's description by [`with_predicate_grammar`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Where(Predicate);

argument_schema!(Where, "Where", |_generator| json_schema!({
    "type": "object", "minProperties": 1
}));

impl Arg for Where {
    type Checked = Predicate;

    fn check(self, _arg: &str) -> Result<Predicate, ToolError> {
        Ok(self.0)
    }
}

/// The grammar of a predicate, as the `where` arguments describe it.
pub(crate) const PREDICATE_GRAMMAR: &str = "{\"attr\": a, \"op\": eq|ne|in|lt|lte|gt|gte|contains|exists, \"value\": v}, or and/or: [p, ...], not: p.";

/// Appends [`PREDICATE_GRAMMAR`] to a `where` argument's description
/// (`#[schemars(transform = with_predicate_grammar)]`).
pub(crate) fn with_predicate_grammar(schema: &mut Schema) {
    let described = schema
        .get("description")
        .and_then(serde_json::Value::as_str)
        .map(|d| format!("{d} {PREDICATE_GRAMMAR}"));
    if let Some(description) = described {
        schema.insert("description".into(), description.into());
    }
}

/// Resolution levels to try: each at most once.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Levels(Vec<ResolveLevel>);

argument_schema!(Levels, "Levels", |generator| {
    let level = generator.subschema_for::<ResolveLevel>().to_value();
    json_schema!({
        "type": "array", "maxItems": ResolveLevel::ALL.len(), "uniqueItems": true, "items": level
    })
});

impl Arg for Levels {
    type Checked = Vec<ResolveLevel>;

    fn check(self, _arg: &str) -> Result<Vec<ResolveLevel>, ToolError> {
        Ok(self.0)
    }
}

/// Any JSON object (an Operation's parameters, checked by Keeper).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AnyObject;

argument_schema!(
    AnyObject,
    "AnyObject",
    |_generator| json_schema!({"type": "object"})
);

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn shapes_are_the_schema_and_the_check() {
        let slug: Slug = serde_json::from_value(json!("Not A Slug")).unwrap();
        assert!(slug.check("task").is_err());
        let schema = Slug::json_schema(&mut SchemaGenerator::default());
        assert_eq!(
            schema.get("pattern"),
            Some(&json!("^[a-z0-9][a-z0-9-]{0,62}$"))
        );
        let name: ApiName = serde_json::from_value(json!("flag supplier")).unwrap();
        assert_eq!(
            name.check("operation").unwrap_err().issues[0].path,
            "operation"
        );
        assert!(Flag::<true>::or_default(None));
        assert!(!Flag::<true>::or_default(Some(Flag(false))));
        assert_eq!(Flag::<true>::given(None), None);
    }

    /// The first character, the others and the length, each refused alone.
    #[test]
    fn api_names_and_slugs_check_first_rest_and_length() {
        let name = |s: &str| ApiName(s.into()).check("operation");
        assert_eq!(name("_flag_2").unwrap(), "_flag_2");
        assert_eq!(name(&"a".repeat(API_NAME_MAX)).unwrap().len(), API_NAME_MAX);
        for bad in ["", "2flag", "flag-risk", &"a".repeat(API_NAME_MAX + 1)] {
            let err = name(bad).unwrap_err();
            assert!(format!("{err:?}").contains("api name"), "{bad}: {err:?}");
        }
        let slug = |s: &str| Slug(s.into()).check("task");
        assert_eq!(slug("0fix-risk").unwrap(), "0fix-risk");
        assert_eq!(slug(&"a".repeat(SLUG_MAX)).unwrap().len(), SLUG_MAX);
        for bad in ["", "-fix", "Fix", "fix_risk", &"a".repeat(SLUG_MAX + 1)] {
            let err = slug(bad).unwrap_err();
            assert!(format!("{err:?}").contains("at most 63"), "{bad}: {err:?}");
        }
    }
}

//! The argument types whose bounds are declared once: each type's JSON
//! Schema (what a model sees) and its check (what the handler enforces) come
//! from the same numbers. Each parses like the plain value it wraps (the same
//! serde messages for a wrong type) and is checked by [`Arg::check`].
//!
//! A `Schema` put inside another goes in as a `Value` (`to_value()`):
//! serializing a `Schema` reorders its keywords.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::parse::{Arg, invalid};
use crate::error::ToolError;
use crate::keeper::model::{Predicate, RecordRef, RefParseError, ResolveLevel};

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

/// An integer within `MIN..=MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Int<const MIN: u32, const MAX: u32>(u32);

argument_schema!(
    impl<const MIN: u32, const MAX: u32> Int<MIN, MAX>,
    format!("Int_{MIN}_{MAX}"),
    |_generator| {
        json_schema!({"type": "integer", "minimum": MIN, "maximum": MAX})
    }
);

impl<const MIN: u32, const MAX: u32> Int<MIN, MAX> {
    /// A number from elsewhere (a field of a wire type), to be checked the same way.
    pub(crate) fn new(value: u32) -> Self {
        Self(value)
    }
}

impl<const MIN: u32, const MAX: u32> Arg for Int<MIN, MAX> {
    type Checked = u32;

    fn check(self, arg: &str) -> Result<u32, ToolError> {
        if (MIN..=MAX).contains(&self.0) {
            Ok(self.0)
        } else {
            Err(invalid(arg, format!("must be between {MIN} and {MAX}")))
        }
    }
}

/// A non-empty text of at most `MAX` characters (a question, a message).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Text<const MAX: usize>(String);

/// A name sent to Keeper (a Domain, a branch, a tag, a cursor): non-empty, at
/// most `MAX` characters, no control characters.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Name<const MAX: usize>(String);

argument_schema!(
    impl<const MAX: usize> Text<MAX>,
    format!("Text_{MAX}"),
    |_generator| {
        json_schema!({"type": "string", "minLength": 1, "maxLength": MAX})
    }
);

argument_schema!(
    impl<const MAX: usize> Name<MAX>,
    format!("Name_{MAX}"),
    |generator| {
        Text::<MAX>::json_schema(generator)
    }
);

impl<const MAX: usize> Arg for Text<MAX> {
    type Checked = String;

    fn check(self, arg: &str) -> Result<String, ToolError> {
        bounded_text(arg, self.0, MAX)
    }
}

impl<const MAX: usize> Arg for Name<MAX> {
    type Checked = String;

    fn check(self, arg: &str) -> Result<String, ToolError> {
        let value = bounded_text(arg, self.0, MAX)?;
        if value.chars().any(char::is_control) {
            return Err(invalid(arg, "must not contain control characters"));
        }
        Ok(value)
    }
}

impl<const MAX: usize> Name<MAX> {
    /// A name from elsewhere (a configured default), to be checked the same way.
    pub(crate) fn new(value: String) -> Self {
        Self(value)
    }
}

fn bounded_text(arg: &str, value: String, max: usize) -> Result<String, ToolError> {
    if value.trim().is_empty() {
        return Err(invalid(arg, "must not be empty"));
    }
    if value.chars().count() > max {
        return Err(invalid(arg, format!("must be at most {max} characters")));
    }
    Ok(value)
}

/// The longest api name in a list of names.
const NAME_MAX: usize = 128;

/// A list of at most `MAX` api names (Kinds, Relations, Traits, attributes).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Names<const MAX: usize>(Vec<String>);

argument_schema!(
    impl<const MAX: usize> Names<MAX>,
    format!("Names_{MAX}"),
    |generator| {
        let item = Name::<NAME_MAX>::json_schema(generator).to_value();
        json_schema!({"type": "array", "items": item, "maxItems": MAX})
    }
);

impl<const MAX: usize> Arg for Names<MAX> {
    type Checked = Vec<String>;

    fn check(self, arg: &str) -> Result<Vec<String>, ToolError> {
        if self.0.len() > MAX {
            return Err(invalid(arg, format!("at most {MAX} names")));
        }
        for (i, v) in self.0.iter().enumerate() {
            Name::<NAME_MAX>(v.clone()).check(&format!("{arg}[{i}]"))?;
        }
        Ok(self.0)
    }
}

/// The pattern of a `Kind/key` ref.
const REF_PATTERN: &str = "^[A-Za-z_][A-Za-z0-9_]*/.+$";

/// A `Kind/key` ref (for example `Supplier/S-1001`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Ref(String);

argument_schema!(Ref, "Ref", |_generator| json_schema!({
    "type": "string", "pattern": REF_PATTERN, "minLength": 3, "maxLength": 385
}));

impl Arg for &Ref {
    type Checked = RecordRef;

    fn check(self, arg: &str) -> Result<RecordRef, ToolError> {
        self.0
            .parse()
            .map_err(|e: RefParseError| invalid(arg, e.to_string()))
    }
}

impl Arg for Ref {
    type Checked = RecordRef;

    fn check(self, arg: &str) -> Result<RecordRef, ToolError> {
        (&self).check(arg)
    }
}

/// A list of 1 to `MAX` refs, each checked (`seeds[2]` names a bad one).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Refs<const MAX: usize>(Vec<Ref>);

argument_schema!(
    impl<const MAX: usize> Refs<MAX>,
    format!("Refs_{MAX}"),
    |generator| {
        let mut item = Ref::json_schema(generator);
        item.insert("description".into(), "A Record ref, Kind/key.".into());
        let item = item.to_value();
        json_schema!({"type": "array", "items": item, "minItems": 1, "maxItems": MAX})
    }
);

impl<const MAX: usize> Arg for Refs<MAX> {
    type Checked = Vec<RecordRef>;

    fn check(self, arg: &str) -> Result<Vec<RecordRef>, ToolError> {
        if self.0.is_empty() {
            return Err(invalid(arg, "must name at least one Record"));
        }
        if self.0.len() > MAX {
            return Err(invalid(arg, format!("at most {MAX} Records")));
        }
        self.0
            .iter()
            .enumerate()
            .map(|(i, r)| r.check(&format!("{arg}[{i}]")))
            .collect()
    }
}

/// A Revision id, full (64 hex digits) or a prefix of 8 or more hex digits;
/// checked to lowercase.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Revision(String);

argument_schema!(Revision, "Revision", |_generator| json_schema!({
    "type": "string", "pattern": "^[0-9a-fA-F]{8,64}$"
}));

impl Arg for Revision {
    type Checked = String;

    fn check(self, arg: &str) -> Result<String, ToolError> {
        let value = self.0;
        let ok = (8..=64).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_hexdigit());
        if ok {
            Ok(value.to_ascii_lowercase())
        } else {
            Err(invalid(
                arg,
                "must be a Revision id: 64 hex digits, or a prefix of 8 or more",
            ))
        }
    }
}

/// The most numbers in a query embedding.
const VECTOR_MAX: usize = 4096;

/// A query embedding the agent computed: 1 to 4096 finite numbers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub(crate) struct QueryVector(Vec<f32>);

argument_schema!(QueryVector, "QueryVector", |_generator| json_schema!({
    "type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": VECTOR_MAX
}));

impl Arg for QueryVector {
    type Checked = Vec<f32>;

    fn check(self, arg: &str) -> Result<Vec<f32>, ToolError> {
        let v = self.0;
        if v.is_empty() || v.len() > VECTOR_MAX {
            return Err(invalid(arg, format!("must have 1 to {VECTOR_MAX} numbers")));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(invalid(arg, "numbers must be finite"));
        }
        Ok(v)
    }
}

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

impl<const DEFAULT: bool> Arg for Flag<DEFAULT> {
    type Checked = bool;

    fn check(self, _arg: &str) -> Result<bool, ToolError> {
        Ok(self.0)
    }
}

impl<const DEFAULT: bool> Flag<DEFAULT> {
    /// The value given, else the default.
    pub(crate) fn or_default(flag: Option<Self>) -> bool {
        flag.map_or(DEFAULT, |f| f.0)
    }
}

/// The longest api name of an Operation.
const API_NAME_MAX: usize = 128;

/// An api name (an Operation's): `[A-Za-z_][A-Za-z0-9_]*`, at most 128.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct ApiName(String);

argument_schema!(ApiName, "ApiName", |_generator| json_schema!({
    "type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "maxLength": API_NAME_MAX
}));

impl Arg for ApiName {
    type Checked = String;

    fn check(self, arg: &str) -> Result<String, ToolError> {
        let value = self.0;
        let mut chars = value.chars();
        let ok = chars
            .next()
            .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
            && chars.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            && value.len() <= API_NAME_MAX;
        if ok {
            Ok(value)
        } else {
            Err(invalid(
                arg,
                "must be an api name such as flag_supplier_risk",
            ))
        }
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
        let value = self.0;
        let mut chars = value.chars();
        let ok = chars
            .next()
            .is_some_and(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit())
            && chars.all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
            && value.len() <= SLUG_MAX;
        if ok {
            Ok(value)
        } else {
            Err(invalid(
                arg,
                format!(
                    "must be a short slug: lowercase letters, digits or '-', at most {SLUG_MAX} (for example fix-risk-s1001)"
                ),
            ))
        }
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
pub(crate) const PREDICATE_GRAMMAR: &str = "A predicate is {\"attr\": name, \"op\": eq|ne|in|lt|lte|gt|gte|contains|exists, \"value\": v}, {\"and\": [p, ...]}, {\"or\": [p, ...]} or {\"not\": p}.";

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
    use super::*;
    use serde_json::json;

    fn parsed<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn refs_and_revisions_are_checked() {
        assert!(parsed::<Ref>(json!("Supplier/S-1001")).check("ref").is_ok());
        let e = parsed::<Ref>(json!("S-1001")).check("ref").unwrap_err();
        assert_eq!(e.issues[0].path, "ref");
        let e = parsed::<Refs<5>>(json!(["A/1", "bad"]))
            .check("seeds")
            .unwrap_err();
        assert_eq!(e.issues[0].path, "seeds[1]");
        assert_eq!(
            parsed::<Revision>(json!("97CE9A2C"))
                .check("since")
                .unwrap(),
            "97ce9a2c"
        );
        assert!(parsed::<Revision>(json!("97ce9a2")).check("since").is_err());
        assert!(
            parsed::<Revision>(json!("zzzzzzzzzz"))
                .check("since")
                .is_err()
        );
    }

    #[test]
    fn bounds_are_the_schema_and_the_check() {
        let mut generator = SchemaGenerator::default();
        let schema = Int::<1, 200>::json_schema(&mut generator);
        assert_eq!(schema.get("minimum"), Some(&json!(1)));
        assert_eq!(schema.get("maximum"), Some(&json!(200)));
        let e = parsed::<Int<1, 200>>(json!(201))
            .check("limit")
            .unwrap_err();
        assert_eq!(
            e.message,
            "invalid argument `limit`: must be between 1 and 200"
        );
        assert_eq!(
            parsed::<Int<1, 200>>(json!(200)).check("limit").unwrap(),
            200
        );
        let e = parsed::<Names<2>>(json!(["a", "b", "c"]))
            .check("kinds")
            .unwrap_err();
        assert_eq!(e.issues[0].message, "at most 2 names");
        let e = parsed::<Name<8>>(json!("a\u{7}b"))
            .check("branch")
            .unwrap_err();
        assert_eq!(e.issues[0].message, "must not contain control characters");
        let e = parsed::<Text<3>>(json!("abcd")).check("q").unwrap_err();
        assert_eq!(e.issues[0].message, "must be at most 3 characters");
        assert!(parsed::<Slug>(json!("Not A Slug")).check("task").is_err());
        let slug = Slug::json_schema(&mut generator);
        assert_eq!(
            slug.get("pattern"),
            Some(&json!("^[a-z0-9][a-z0-9-]{0,62}$"))
        );
        assert!(Flag::<true>::or_default(None));
    }
}

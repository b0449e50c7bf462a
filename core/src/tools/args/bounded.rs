//! The argument types whose bounds are declared once: each type's JSON
//! Schema (what a model sees) and its check (what the handler enforces) come
//! from the same numbers. Each parses like the plain value it wraps (the same
//! serde messages for a wrong type) and is checked by [`Arg::check`].
//!
//! A `Schema` put inside another goes in as a `Value` (`to_value()`):
//! serializing a `Schema` reorders its keywords. The types with a shape
//! rather than a size are in `shaped`.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::failure::invalid;
use super::parse::Arg;
use crate::error::ToolError;
use crate::keeper::model::{RecordRef, RefParseError};

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

// A text's length is checked, not shown: a model never writes a question
// of 1,000 characters, and every host re-sends the list each turn.
argument_schema!(
    impl<const MAX: usize> Text<MAX>,
    format!("Text_{MAX}"),
    |_generator| {
        json_schema!({"type": "string"})
    }
);

// Likewise a name's length (a Domain, a cursor).
argument_schema!(
    impl<const MAX: usize> Name<MAX>,
    format!("Name_{MAX}"),
    |_generator| {
        json_schema!({"type": "string"})
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
        // The bound is checked, not shown: no call names 50 Kinds.
        let item = Name::<NAME_MAX>::json_schema(generator).to_value();
        json_schema!({"type": "array", "items": item})
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

/// A `Kind/key` ref (for example `Supplier/S-1001`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(crate) struct Ref(String);

// A ref's shape (`Kind/key`, its lengths) is checked by its parser and said
// in the description of each argument that takes one, not shown as a pattern.
argument_schema!(Ref, "Ref", |_generator| json_schema!({"type": "string"}));

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
        let item = Ref::json_schema(generator).to_value();
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

// Its shape is said in the description of each argument that takes one.
argument_schema!(
    Revision,
    "Revision",
    |_generator| json_schema!({"type": "string"})
);

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
        assert_eq!(e.message, "invalid argument `limit`");
        assert_eq!(e.issues[0].message, "must be between 1 and 200");
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
    }
}

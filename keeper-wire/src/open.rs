//! Names a newer Keeper may send: [`Open`]`<E>` is a wire enum's known
//! variant or, for a name this contract does not list, the name itself.
//!
//! A Keeper one release ahead adds values (a coverage signal
//! `low_confidence`, an origin type, a Proposal status, a problem code)
//! before Herald learns them. Every enum in Keeper's answers is `Open`, so
//! such an answer is read, rendered with the new name as it is, and
//! serialized back unchanged in the `json` format. Arguments and requests
//! keep the closed enum: Herald only sends names it knows.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A closed set of names on the wire, declared with `wire_enum!`.
pub trait WireEnum: Copy + PartialEq + 'static {
    /// Every known value, in declaration order.
    const ALL: &'static [Self];

    /// The name as on the wire.
    fn as_str(self) -> &'static str;

    /// The known value with this wire name.
    fn from_wire(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == name)
    }
}

/// A wire enum's value as Keeper sent it: a known variant, or a name this
/// contract does not list (kept as it is).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Open<E> {
    /// A value Herald knows.
    Known(E),
    /// A value Herald does not know, as Keeper wrote it (boxed: an
    /// `Open<E>` is two words, so errors that carry one stay small).
    Other(Box<str>),
}

impl<E: WireEnum> Open<E> {
    /// The value for a wire name: known when it is one, else kept as it is.
    pub fn from_wire(name: &str) -> Self {
        E::from_wire(name).map_or_else(|| Self::Other(name.into()), Self::Known)
    }

    /// The known value, if it is one.
    pub fn known(&self) -> Option<E> {
        match self {
            Self::Known(e) => Some(*e),
            Self::Other(_) => None,
        }
    }

    /// The name as on the wire (the new name as it is, for an unknown one).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Known(e) => e.as_str(),
            Self::Other(name) => name,
        }
    }
}

impl<E> From<E> for Open<E> {
    fn from(e: E) -> Self {
        Self::Known(e)
    }
}

impl<E: WireEnum> PartialEq<E> for Open<E> {
    fn eq(&self, other: &E) -> bool {
        self.known() == Some(*other)
    }
}

impl<E: WireEnum> fmt::Display for Open<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<E: WireEnum> Serialize for Open<E> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de, E: WireEnum> Deserialize<'de> for Open<E> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = Cow::<'de, str>::deserialize(d)?;
        Ok(Self::from_wire(&name))
    }
}

/// A string; the known names are `examples`, not an `enum`: an answer that
/// carries a newer name still conforms to the tool's output schema.
impl<E: WireEnum> schemars::JsonSchema for Open<E> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Open".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let known: Vec<&str> = E::ALL.iter().map(|e| e.as_str()).collect();
        schemars::json_schema!({"type": "string", "examples": known})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CoverageKind, ProblemCode};
    use serde_json::json;

    #[test]
    fn known_names_are_known_and_new_ones_kept_as_they_are() {
        let known: Open<CoverageKind> = serde_json::from_value(json!("missing_values")).unwrap();
        assert_eq!(known, Open::Known(CoverageKind::MissingValues));
        assert_eq!(known, CoverageKind::MissingValues);
        let new: Open<CoverageKind> = serde_json::from_value(json!("low_confidence")).unwrap();
        assert_eq!(new, Open::Other("low_confidence".into()));
        assert_eq!(std::mem::size_of::<Open<ProblemCode>>(), 16);
        assert_eq!(new.to_string(), "low_confidence");
        assert_eq!(new.known(), None);
        assert_eq!(serde_json::to_value(&new).unwrap(), json!("low_confidence"));
        assert_eq!(
            serde_json::to_value(&known).unwrap(),
            json!("missing_values")
        );
        let code: Open<ProblemCode> = Open::from_wire("conflict");
        assert_eq!(code.as_str(), "conflict");
        assert!(serde_json::from_value::<Open<ProblemCode>>(json!(3)).is_err());
    }
}

//! `lorebase_query`'s `query`: the query DSL, the wire type Keeper receives
//! as it is ([`Query`]), with the bounds of its `kind` and `limit` declared
//! by their types, as every argument's are, and checked with their paths
//! (`query.kind`, `query.limit`).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::bounded::{Int, Name};
use super::checks::Checks;
use super::parse::Arg;
use super::shaped::PREDICATE_GRAMMAR;
use crate::error::ToolError;
use crate::keeper::model::Query;

/// `query.kind`: an api name of at most this many characters.
const QUERY_KIND_MAX: usize = 128;

/// `query.kind`'s type.
type QueryKind = Name<QUERY_KIND_MAX>;

/// `query.limit`'s type: the page size.
type QueryLimit = Int<1, 1000>;

/// A query of the DSL.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub(crate) struct QueryDsl(Query);

// The schema of the DSL, with the bounds the check enforces.
argument_schema!(QueryDsl, "QueryDsl", |generator| {
    let strings = serde_json::json!({"type": "array", "items": {"type": "string"}});
    let mut limit = QueryLimit::json_schema(generator);
    limit.insert("description".into(), "Page size.".into());
    let limit = limit.to_value();
    json_schema!({
        "type": "object",
        // The field's doc comment takes this place.
        "description": "",
        "properties": {
            "kind": {"type": "string", "minLength": 1, "description": "The Kind to read."},
            "where": {"type": "object", "minProperties": 1,
                      "description": format!("Filter: {PREDICATE_GRAMMAR}")},
            "select": {"type": "array", "items": {"type": "string"},
                       "description": "Attributes to return; default all."},
            "include": {"type": "array", "items": {"type": "object",
                "properties": {"relation": {"type": "string"}, "select": strings},
                "required": ["relation"]},
                "description": "Linked Records per row."},
            "aggregate": {"type": "object", "properties": {"group_by": {"type": "string"}},
                "required": ["group_by"], "additionalProperties": false,
                "description": "Count per value."},
            "order_by": {"type": "string", "description": "`attr`, or `-attr` descending."},
            "limit": limit,
            "coverage": {"type": "boolean", "description": "`false`: no coverage lines."}
        },
        "required": ["kind"],
        "additionalProperties": false
    })
});

impl Arg for QueryDsl {
    type Checked = Query;

    fn check(self, arg: &str) -> Result<Query, ToolError> {
        let query = self.0;
        let mut v = Checks::default();
        v.keep(QueryKind::new(query.kind.clone()).check(&format!("{arg}.kind")));
        v.keep(
            query
                .limit
                .map(QueryLimit::new)
                .check(&format!("{arg}.limit")),
        );
        v.done()?;
        Ok(query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Both bounds, each named by its path, in one error.
    #[test]
    fn kind_and_limit_are_checked_with_their_paths() {
        let query: QueryDsl = serde_json::from_value(json!({"kind": "", "limit": 0})).unwrap();
        let e = query.check("query").unwrap_err();
        let paths: Vec<&str> = e.issues.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["query.kind", "query.limit"]);
        let ok: QueryDsl =
            serde_json::from_value(json!({"kind": "Product", "limit": 1000})).unwrap();
        assert_eq!(ok.check("query").unwrap().limit, Some(1000));
    }
}

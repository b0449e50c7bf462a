//! Completion of the resource templates' and the prompt's arguments, where
//! Keeper can list the values: Kinds and lenses from the schema, Record keys
//! from a query on the Kind's key attribute. Keeper has no endpoint that
//! lists Domains, so `domain` completes to the configured default only.
//!
//! Completion is a convenience: a failing Keeper call gives no values, never
//! an error.

use std::collections::HashMap;

use herald_core::keeper::Credential;
use herald_core::keeper::model::{
    CompareOp, Predicate, Query, QueryRequest, ReadAt, SchemaDetail, SchemaParams,
};
use herald_core::tools::Toolbox;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, Reference};
use serde_json::Value;

use crate::mcp::prompt::GUIDE_NAME;
use crate::mcp::resources::{LENS_TEMPLATE, RECORD_TEMPLATE, SCHEMA_TEMPLATE};

/// Most values returned (the MCP limit is 100).
pub(crate) const MAX_VALUES: usize = 50;

/// What to complete: one argument of a template or of the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A Domain name.
    Domain,
    /// A Kind of the Domain.
    Kind,
    /// A lens of the Domain.
    Lens,
    /// A key of a Record of the Kind.
    Key,
    /// Nothing to offer.
    Nothing,
}

/// Which argument a request completes.
pub(crate) fn target(reference: &Reference, argument: &str) -> Target {
    let known_ref = match reference {
        Reference::Resource(r) => {
            [SCHEMA_TEMPLATE, LENS_TEMPLATE, RECORD_TEMPLATE].contains(&r.uri.as_str())
        }
        Reference::Prompt(p) => p.name == GUIDE_NAME,
        _ => false,
    };
    if !known_ref {
        return Target::Nothing;
    }
    match (reference, argument) {
        (_, "domain") => Target::Domain,
        (Reference::Resource(r), "kind") if r.uri == RECORD_TEMPLATE => Target::Kind,
        (Reference::Resource(r), "key") if r.uri == RECORD_TEMPLATE => Target::Key,
        (Reference::Resource(r), "lens") if r.uri == LENS_TEMPLATE => Target::Lens,
        _ => Target::Nothing,
    }
}

/// Answers `completion/complete`.
pub(crate) async fn complete(
    toolbox: &Toolbox,
    request: &CompleteRequestParams,
    credential: Option<&Credential>,
) -> CompleteResult {
    let prefix = request.argument.value.as_str();
    let context: HashMap<String, String> = request
        .context
        .as_ref()
        .and_then(|c| c.arguments.clone())
        .unwrap_or_default();
    let default_domain = toolbox.settings().domain.clone();
    let domain = context
        .get("domain")
        .filter(|d| !d.is_empty())
        .cloned()
        .or(default_domain.clone());
    let values = match (
        target(&request.r#ref, &request.argument.name),
        credential,
        domain,
    ) {
        (Target::Domain, _, _) => default_domain.into_iter().collect(),
        (Target::Nothing, _, _) | (_, None, _) | (_, _, None) => Vec::new(),
        (Target::Kind, Some(cred), Some(domain)) => {
            schema_names(toolbox, cred, &domain, false).await
        }
        (Target::Lens, Some(cred), Some(domain)) => {
            schema_names(toolbox, cred, &domain, true).await
        }
        (Target::Key, Some(cred), Some(domain)) => match context.get("kind") {
            Some(kind) => keys(toolbox, cred, &domain, kind, prefix).await,
            None => Vec::new(),
        },
    };
    CompleteResult::new(info(values, prefix))
}

/// Keeps the values that start with `prefix` (case-insensitively), sorted,
/// at most [`MAX_VALUES`], saying whether there were more.
pub(crate) fn info(values: Vec<String>, prefix: &str) -> CompletionInfo {
    let lower = prefix.to_lowercase();
    let mut matching: Vec<String> = values
        .into_iter()
        .filter(|v| v.to_lowercase().starts_with(&lower))
        .collect();
    matching.sort();
    matching.dedup();
    let total = matching.len();
    matching.truncate(MAX_VALUES);
    CompletionInfo::with_pagination(matching, u32::try_from(total).ok(), total > MAX_VALUES)
        .unwrap_or_default()
}

/// The Kinds (or the lenses) of a Domain.
async fn schema_names(
    toolbox: &Toolbox,
    credential: &Credential,
    domain: &str,
    lenses: bool,
) -> Vec<String> {
    let params = SchemaParams {
        read: read_at(toolbox),
        kinds: None,
        detail: Some(SchemaDetail::Summary),
    };
    match toolbox.keeper().schema(credential, domain, &params).await {
        Ok(schema) if lenses => schema.lenses.into_iter().map(|l| l.name).collect(),
        Ok(schema) => schema.kinds.into_iter().map(|k| k.name).collect(),
        Err(e) => {
            tracing::debug!(error = %e, "completion: schema read failed");
            Vec::new()
        }
    }
}

/// Keys of Records of `kind` containing `prefix` in their key attribute.
async fn keys(
    toolbox: &Toolbox,
    credential: &Credential,
    domain: &str,
    kind: &str,
    prefix: &str,
) -> Vec<String> {
    let params = SchemaParams {
        read: read_at(toolbox),
        kinds: Some(kind.to_string()),
        detail: Some(SchemaDetail::Summary),
    };
    let key_attr = match toolbox.keeper().schema(credential, domain, &params).await {
        Ok(schema) => match schema.kinds.into_iter().find(|k| k.name == kind) {
            Some(k) => k.key,
            None => return Vec::new(),
        },
        Err(e) => {
            tracing::debug!(error = %e, "completion: schema read failed");
            return Vec::new();
        }
    };
    let where_predicate = (!prefix.is_empty()).then(|| Predicate::Compare {
        attr: key_attr.clone(),
        op: CompareOp::Contains,
        value: Some(Value::String(prefix.to_string())),
    });
    let request = QueryRequest {
        read: read_at(toolbox),
        query: Query {
            kind: kind.to_string(),
            where_predicate,
            select: Some(vec![key_attr]),
            order_by: None,
            limit: Some(100),
            coverage: Some(false),
            ..Default::default()
        },
        cursor: None,
    };
    match toolbox.keeper().query(credential, domain, &request).await {
        Ok(answer) => answer.rows.into_iter().map(|r| r.record.key).collect(),
        Err(e) => {
            tracing::debug!(error = %e, "completion: query failed");
            Vec::new()
        }
    }
}

fn read_at(toolbox: &Toolbox) -> ReadAt {
    ReadAt {
        branch: toolbox.settings().branch.clone(),
        at: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        let record = Reference::for_resource(RECORD_TEMPLATE);
        assert_eq!(target(&record, "domain"), Target::Domain);
        assert_eq!(target(&record, "kind"), Target::Kind);
        assert_eq!(target(&record, "key"), Target::Key);
        assert_eq!(target(&record, "lens"), Target::Nothing);
        let lens = Reference::for_resource(LENS_TEMPLATE);
        assert_eq!(target(&lens, "lens"), Target::Lens);
        assert_eq!(target(&lens, "kind"), Target::Nothing);
        let prompt = Reference::for_prompt(GUIDE_NAME);
        assert_eq!(target(&prompt, "domain"), Target::Domain);
        assert_eq!(target(&prompt, "task"), Target::Nothing);
        let other = Reference::for_resource("file:///{x}");
        assert_eq!(target(&other, "domain"), Target::Nothing);
        assert_eq!(
            target(&Reference::for_prompt("other"), "domain"),
            Target::Nothing
        );
    }

    #[test]
    fn info_filters_sorts_and_caps() {
        let i = info(
            vec![
                "Supplier".into(),
                "Part".into(),
                "site".into(),
                "Supplier".into(),
            ],
            "s",
        );
        assert_eq!(i.values, ["Supplier", "site"]);
        assert_eq!(i.has_more, Some(false));
        let many: Vec<String> = (0..120).map(|n| format!("S-{n:04}")).collect();
        let i = info(many, "S-");
        assert_eq!(i.values.len(), MAX_VALUES);
        assert_eq!(i.total, Some(120));
        assert_eq!(i.has_more, Some(true));
    }
}

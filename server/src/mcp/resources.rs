//! The resources: `lorebase://{domain}/schema` (the schema summary),
//! `lorebase://{domain}/lenses/{lens}` (a lens with its resolved members) and
//! `lorebase://{domain}/{kind}/{key}` (one Record), for hosts that attach
//! resources to the context.
//!
//! The schema and the Record are the compact text a model gets from
//! `lorebase_schema` and `lorebase_get`; the lens is JSON built from Keeper's
//! full schema. Every read carries the caller's credential, as tool calls do.

use herald_core::keeper::Credential;
use herald_core::keeper::model::{ReadAt, RecordRef, Schema, SchemaDetail, SchemaParams};
use herald_core::tools::{ResourceRead, ToolCallError, Toolbox};
use rmcp::ErrorData as McpError;
use rmcp::model::{ErrorCode, ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use serde_json::{Map, Value, json};

/// The URI scheme.
pub(crate) const SCHEME: &str = "lorebase://";
/// The schema template.
pub(crate) const SCHEMA_TEMPLATE: &str = "lorebase://{domain}/schema";
/// The lens template.
pub(crate) const LENS_TEMPLATE: &str = "lorebase://{domain}/lenses/{lens}";
/// The Record template.
pub(crate) const RECORD_TEMPLATE: &str = "lorebase://{domain}/{kind}/{key}";

/// A parsed resource URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResourceUri {
    /// `lorebase://{domain}/schema`.
    Schema {
        /// The Domain.
        domain: String,
    },
    /// `lorebase://{domain}/lenses/{lens}`.
    Lens {
        /// The Domain.
        domain: String,
        /// The lens's api name.
        lens: String,
    },
    /// `lorebase://{domain}/{kind}/{key}` (the key may contain `/`).
    Record {
        /// The Domain.
        domain: String,
        /// The Record.
        record: RecordRef,
    },
}

impl ResourceUri {
    /// What an audit line names of a read of `uri`: its template and its
    /// Domain (never a Record's key or a lens name: like a tool call's
    /// argument values, they are not logged).
    pub(crate) fn audited(uri: &str) -> (&'static str, String) {
        match Self::parse(uri) {
            Ok(Self::Schema { domain }) => (SCHEMA_TEMPLATE, domain),
            Ok(Self::Lens { domain, .. }) => (LENS_TEMPLATE, domain),
            Ok(Self::Record { domain, .. }) => (RECORD_TEMPLATE, domain),
            Err(_) => ("(not a Lorebase resource URI)", String::new()),
        }
    }
}

/// Why a URI is not one of Herald's resources.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "not a Lorebase resource URI: {0:?} (expected lorebase://{{domain}}/schema, lorebase://{{domain}}/lenses/{{lens}} or lorebase://{{domain}}/{{kind}}/{{key}})"
)]
pub(crate) struct UriError(pub String);

impl ResourceUri {
    /// Parses a URI; segments are percent-decoded.
    pub(crate) fn parse(uri: &str) -> Result<Self, UriError> {
        let err = || UriError(uri.chars().take(200).collect());
        let rest = uri.strip_prefix(SCHEME).ok_or_else(err)?;
        if rest.contains(['?', '#']) {
            return Err(err());
        }
        let mut segments = rest.split('/');
        let domain = decode(segments.next().ok_or_else(err)?).ok_or_else(err)?;
        if domain.is_empty() {
            return Err(err());
        }
        let raw: Vec<&str> = segments.collect();
        match raw.as_slice() {
            ["schema"] => Ok(Self::Schema { domain }),
            ["lenses", lens] => {
                let lens = decode(lens).filter(|l| !l.is_empty()).ok_or_else(err)?;
                Ok(Self::Lens { domain, lens })
            }
            [kind, key @ ..] if !key.is_empty() => {
                let kind = decode(kind).ok_or_else(err)?;
                let key = decode(&key.join("/")).ok_or_else(err)?;
                let record = format!("{kind}/{key}").parse().map_err(|_| err())?;
                Ok(Self::Record { domain, record })
            }
            _ => Err(err()),
        }
    }

    /// The URI of this resource (segments percent-encoded as needed).
    pub(crate) fn to_uri(&self) -> String {
        match self {
            Self::Schema { domain } => format!("{SCHEME}{}/schema", encode(domain)),
            Self::Lens { domain, lens } => {
                format!("{SCHEME}{}/lenses/{}", encode(domain), encode(lens))
            }
            Self::Record { domain, record } => format!(
                "{SCHEME}{}/{}/{}",
                encode(domain),
                encode(&record.kind),
                record
                    .key
                    .split('/')
                    .map(encode)
                    .collect::<Vec<_>>()
                    .join("/")
            ),
        }
    }
}

/// Percent-decodes one segment; `None` for a bad escape or invalid UTF-8.
pub(crate) fn decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Percent-encodes one segment (everything but RFC 3986 unreserved characters).
pub(crate) fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The three templates (`resources/templates/list`).
pub(crate) fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(SCHEMA_TEMPLATE, "schema")
            .with_title("Lorebase Domain schema")
            .with_description(
                "The schema summary of a Domain: Kinds with attribute types, Relations, Operations, lenses and search modes (as lorebase_schema gives it).",
            )
            .with_mime_type("text/plain"),
        ResourceTemplate::new(LENS_TEMPLATE, "lens")
            .with_title("Lorebase lens")
            .with_description(
                "A lens (a read preset of the schema) with its resolved members: the Kinds with their attributes, the Traits and the Relations it follows.",
            )
            .with_mime_type("application/json"),
        ResourceTemplate::new(RECORD_TEMPLATE, "record")
            .with_title("Lorebase Record")
            .with_description(
                "One Record (Kind/key) with its values and Link counts per Relation (as lorebase_get gives it).",
            )
            .with_mime_type("text/plain"),
    ]
}

/// The concrete resources (`resources/list`): the schema of the default
/// Domain, when one is configured.
pub(crate) fn listed(default_domain: Option<&str>) -> Vec<Resource> {
    default_domain
        .map(|domain| {
            let uri = ResourceUri::Schema {
                domain: domain.to_string(),
            }
            .to_uri();
            Resource::new(uri, format!("{domain} schema"))
                .with_title(format!("Schema of the {domain} Domain"))
                .with_description("The schema summary of the default Domain.")
                .with_mime_type("text/plain")
        })
        .into_iter()
        .collect()
}

/// Reads one resource with the caller's credential. A read that fails
/// because the resource is not there (a URI Herald does not serve, a record
/// or lens Keeper does not have) names the `uri` in the error's data
/// (SEP-2164).
pub(crate) async fn read(
    toolbox: &Toolbox,
    uri: &str,
    credential: &Credential,
) -> Result<ReadResourceResult, McpError> {
    read_uri(toolbox, uri, credential).await.map_err(|mut e| {
        let missing = [ErrorCode::RESOURCE_NOT_FOUND, ErrorCode::INVALID_PARAMS].contains(&e.code);
        if missing && e.data.is_none() {
            e.data = Some(json!({"uri": uri}));
        }
        e
    })
}

async fn read_uri(
    toolbox: &Toolbox,
    uri: &str,
    credential: &Credential,
) -> Result<ReadResourceResult, McpError> {
    let parsed =
        ResourceUri::parse(uri).map_err(|e| McpError::invalid_params(e.to_string(), None))?;
    let (text, mime) = match &parsed {
        ResourceUri::Schema { domain } => {
            let read = ResourceRead::Schema { domain };
            (read_text(toolbox, read, credential).await?, "text/plain")
        }
        ResourceUri::Record { domain, record } => {
            let record = record.to_string();
            let read = ResourceRead::Record {
                domain,
                record: &record,
            };
            (read_text(toolbox, read, credential).await?, "text/plain")
        }
        ResourceUri::Lens { domain, lens } => {
            let schema = full_schema(toolbox, domain, credential).await?;
            let body = lens_members(&schema, lens).ok_or_else(|| {
                let names: Vec<&str> = schema.lenses.iter().map(|l| l.name.as_str()).collect();
                McpError::resource_not_found(
                    format!(
                        "[not-found] no lens {lens:?} in Domain {domain}; lenses: {}",
                        if names.is_empty() {
                            "(none)".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                    Some(json!({"uri": uri})),
                )
            })?;
            let text = serde_json::to_string_pretty(&body)
                .map_err(|e| McpError::internal_error(e.to_string(), None))?;
            (text, "application/json")
        }
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type(mime),
    ]))
}

/// Reads Keeper for a resource; its tool error becomes the protocol error.
async fn read_text(
    toolbox: &Toolbox,
    read: ResourceRead<'_>,
    credential: &Credential,
) -> Result<String, McpError> {
    // Unrecorded as a tool call: the read itself is audited (read_resource).
    let out = toolbox
        .read_for_resource(read, credential)
        .await
        .map_err(|e: ToolCallError| McpError::internal_error(e.to_string(), None))?;
    if out.is_error {
        return Err(problem_error(out.text));
    }
    Ok(out.text)
}

/// A failed read as a protocol error: `not-found` is the MCP "resource not
/// found" (-32002), `validation-failed` invalid params, the rest internal
/// errors; the message is the full `[code] message ... next:` text.
pub(crate) fn problem_error(text: String) -> McpError {
    if text.starts_with("[not-found]") {
        McpError::resource_not_found(text, None)
    } else if text.starts_with("[validation-failed]") {
        McpError::invalid_params(text, None)
    } else {
        McpError::internal_error(text, None)
    }
}

/// Keeper's full schema of `domain` on the default branch.
pub(crate) async fn full_schema(
    toolbox: &Toolbox,
    domain: &str,
    credential: &Credential,
) -> Result<Schema, McpError> {
    let params = SchemaParams {
        read: ReadAt {
            branch: toolbox.settings().branch.clone(),
            at: None,
        },
        kinds: None,
        detail: Some(SchemaDetail::Full),
    };
    toolbox
        .keeper()
        .schema(credential, domain, &params)
        .await
        .map_err(|e| problem_error(e.to_string()))
}

/// A lens with its resolved members, or `None` when the schema has no such lens.
pub(crate) fn lens_members(schema: &Schema, lens: &str) -> Option<Value> {
    let def = schema.lenses.iter().find(|l| l.name == lens)?;
    let kinds: Vec<&_> = schema
        .kinds
        .iter()
        .filter(|k| def.kinds.contains(&k.name))
        .collect();
    let traits: Vec<&_> = schema
        .traits
        .iter()
        .filter(|t| def.traits.contains(&t.name))
        .collect();
    let relations: Vec<&_> = schema
        .relations
        .iter()
        .filter(|r| def.relations.contains(&r.name))
        .collect();
    let mut out = Map::new();
    out.insert("domain".into(), json!(schema.domain));
    out.insert("branch".into(), json!(schema.branch));
    out.insert("revision".into(), json!(schema.revision));
    out.insert("lens".into(), json!(def.name));
    if let Some(d) = &def.description {
        out.insert("description".into(), json!(d));
    }
    if let Some(d) = def.depth {
        out.insert("depth".into(), json!(d));
    }
    if let Some(b) = def.token_budget {
        out.insert("token_budget".into(), json!(b));
    }
    out.insert("kinds".into(), json!(kinds));
    out.insert("traits".into(), json!(traits));
    out.insert("relations".into(), json!(relations));
    Some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_templates() {
        assert_eq!(
            ResourceUri::parse("lorebase://supply/schema"),
            Ok(ResourceUri::Schema {
                domain: "supply".into()
            })
        );
        assert_eq!(
            ResourceUri::parse("lorebase://supply/lenses/risk"),
            Ok(ResourceUri::Lens {
                domain: "supply".into(),
                lens: "risk".into()
            })
        );
        assert_eq!(
            ResourceUri::parse("lorebase://supply/Supplier/S-1001"),
            Ok(ResourceUri::Record {
                domain: "supply".into(),
                record: RecordRef::new("Supplier", "S-1001")
            })
        );
    }

    #[test]
    fn keys_may_hold_slashes_and_escapes() {
        let parsed = ResourceUri::parse("lorebase://retail/Doc/a/b%20c").unwrap();
        assert_eq!(
            parsed,
            ResourceUri::Record {
                domain: "retail".into(),
                record: RecordRef::new("Doc", "a/b c")
            }
        );
        assert_eq!(parsed.to_uri(), "lorebase://retail/Doc/a/b%20c");
    }

    #[test]
    fn round_trips() {
        for uri in [
            "lorebase://supply/schema",
            "lorebase://supply/lenses/risk_review",
            "lorebase://supply/Supplier/S-1001",
        ] {
            assert_eq!(ResourceUri::parse(uri).unwrap().to_uri(), uri);
        }
    }

    #[test]
    fn rejects_what_is_not_a_resource() {
        for bad in [
            "",
            "lorebase://",
            "lorebase:///schema",
            "lorebase://supply",
            "lorebase://supply/",
            "lorebase://supply/lenses/",
            "lorebase://supply/Supplier",
            "lorebase://supply/Supplier/",
            "lorebase://supply/1Bad/x",
            "lorebase://supply/Supplier/S-1?x=1",
            "lorebase://supply/Supplier/%zz",
            "lorebase://supply/Supplier/%ff",
            "lorebase://supply/Supplier/%4",
            "file:///etc/passwd",
            "LOREBASE://supply/schema",
        ] {
            assert!(ResourceUri::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn error_messages_are_bounded() {
        let long = format!("lorebase://{}", "x".repeat(10_000));
        let err = ResourceUri::parse(&long).unwrap_err();
        assert!(err.to_string().len() < 500);
    }

    #[test]
    fn listed_only_with_a_default_domain() {
        assert!(listed(None).is_empty());
        let l = listed(Some("supply"));
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].uri, "lorebase://supply/schema");
    }

    #[test]
    fn templates_are_the_three() {
        let t: Vec<String> = templates().into_iter().map(|t| t.uri_template).collect();
        assert_eq!(t, [SCHEMA_TEMPLATE, LENS_TEMPLATE, RECORD_TEMPLATE]);
    }

    #[test]
    fn problem_codes_map_to_protocol_errors() {
        assert_eq!(
            problem_error("[not-found] x".into()).code,
            rmcp::model::ErrorCode::RESOURCE_NOT_FOUND
        );
        assert_eq!(
            problem_error("[validation-failed] x".into()).code,
            rmcp::model::ErrorCode::INVALID_PARAMS
        );
        assert_eq!(
            problem_error("[forbidden] x".into()).code,
            rmcp::model::ErrorCode::INTERNAL_ERROR
        );
    }
}

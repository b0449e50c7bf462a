//! The tools this Herald serves: the toolbox's definitions narrowed by the
//! tool selection (`--read-only`, `--tools`, `--exclude-tools`, or
//! `herald.tools.*`), and their MCP form (`tools/list`).

use std::borrow::Cow;
use std::sync::Arc;

use herald_core::config::ToolSelection;
use herald_core::remote::NAME_SEPARATOR;
use herald_core::tools::ToolDefinition;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

use crate::error::ServerError;

/// The served tools, in table order, with their MCP definitions.
#[derive(Debug, Clone)]
pub struct ServedTools {
    tools: Vec<Tool>,
}

impl ServedTools {
    /// Narrows `all` by `selection`. A name in the allow list that is not
    /// among `all` is an error (a typo would otherwise silently serve
    /// nothing), unless it has the shape of a remote tool (`<server>__<tool>`,
    /// discovered later and served by the handler): that is only logged. A
    /// denied name that does not exist is only logged.
    pub fn select(
        all: Vec<ToolDefinition>,
        selection: &ToolSelection,
    ) -> Result<Self, ServerError> {
        let known = |name: &str| all.iter().any(|d| d.name == name);
        if let Some(allow) = &selection.allow {
            let unknown: Vec<&str> = allow
                .iter()
                .map(String::as_str)
                .filter(|n| !known(n) && !n.contains(NAME_SEPARATOR))
                .collect();
            if !unknown.is_empty() {
                let names: Vec<&str> = all.iter().map(|d| d.name.as_str()).collect();
                return Err(ServerError::Settings(format!(
                    "tools.allow names tools that are not served here: {}; available: {}",
                    unknown.join(", "),
                    names.join(", ")
                )));
            }
        }
        for denied in &selection.deny {
            if !known(denied) {
                tracing::warn!(tool = %denied, "tools.deny names a tool that does not exist");
            }
        }
        let tools = all
            .iter()
            .filter(|d| selection.allow.as_ref().is_none_or(|a| a.contains(&d.name)))
            .filter(|d| !selection.deny.contains(&d.name))
            .filter(|d| !selection.read_only || d.annotations.read_only_hint)
            .map(to_mcp_tool)
            .collect();
        Ok(Self { tools })
    }

    /// The MCP definitions, in table order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The MCP definition of `name`, when served.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The served names, in table order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_ref()).collect()
    }
}

/// One definition in its MCP form: name, title, description, input and
/// output schemas, annotations.
pub fn to_mcp_tool(def: &ToolDefinition) -> Tool {
    let mut tool = Tool::new(
        Cow::Owned(def.name.clone()),
        Cow::Owned(def.description.clone()),
        Arc::new(schema_object(&def.input_schema)),
    );
    tool.title = Some(def.title.clone());
    tool.output_schema = def
        .output_schema
        .as_ref()
        .map(|s| Arc::new(schema_object(s)));
    let a = def.annotations;
    tool.annotations = Some(ToolAnnotations::from_raw(
        Some(def.title.clone()),
        Some(a.read_only_hint),
        Some(a.destructive_hint),
        Some(a.idempotent_hint),
        Some(a.open_world_hint),
    ));
    tool
}

/// A schema as a JSON object (a non-object schema would be a bug in the
/// table; it becomes an object schema that accepts anything).
fn schema_object(schema: &Value) -> JsonObject {
    match schema {
        Value::Object(map) => map.clone(),
        _ => {
            let mut map = JsonObject::new();
            map.insert("type".into(), Value::String("object".into()));
            map
        }
    }
}

#[cfg(test)]
mod tests {
    use herald_core::tools::ToolAnnotations as CoreAnnotations;
    use serde_json::json;

    use super::*;

    fn def(name: &str, read_only: bool) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            title: format!("Title of {name}"),
            description: format!("What {name} does"),
            input_schema: json!({"type": "object", "properties": {"domain": {"type": "string"}}}),
            output_schema: Some(json!({"type": "object"})),
            annotations: CoreAnnotations {
                read_only_hint: read_only,
                destructive_hint: false,
                idempotent_hint: read_only,
                open_world_hint: true,
            },
        }
    }

    fn table() -> Vec<ToolDefinition> {
        vec![
            def("lorebase_get", true),
            def("lorebase_schema", true),
            def("lorebase_execute", false),
        ]
    }

    #[test]
    fn everything_by_default() {
        let served = ServedTools::select(table(), &ToolSelection::default()).unwrap();
        assert_eq!(
            served.names(),
            ["lorebase_get", "lorebase_schema", "lorebase_execute"]
        );
    }

    #[test]
    fn read_only_drops_writers() {
        let sel = ToolSelection {
            read_only: true,
            ..Default::default()
        };
        let served = ServedTools::select(table(), &sel).unwrap();
        assert_eq!(served.names(), ["lorebase_get", "lorebase_schema"]);
        assert!(served.get("lorebase_execute").is_none());
    }

    #[test]
    fn allow_and_deny_lists() {
        let sel = ToolSelection {
            allow: Some(vec!["lorebase_execute".into(), "lorebase_get".into()]),
            deny: vec!["lorebase_execute".into(), "no_such_tool".into()],
            ..Default::default()
        };
        let served = ServedTools::select(table(), &sel).unwrap();
        assert_eq!(served.names(), ["lorebase_get"]);
    }

    #[test]
    fn remote_shaped_allowed_names_are_left_to_discovery() {
        let sel = ToolSelection {
            allow: Some(vec!["lorebase_get".into(), "runbooks__search".into()]),
            ..Default::default()
        };
        let served = ServedTools::select(table(), &sel).unwrap();
        assert_eq!(served.names(), ["lorebase_get"]);
    }

    #[test]
    fn unknown_allowed_name_is_a_settings_error() {
        let sel = ToolSelection {
            allow: Some(vec!["lorebase_gte".into()]),
            ..Default::default()
        };
        let err = ServedTools::select(table(), &sel).unwrap_err();
        assert!(err.to_string().contains("lorebase_gte"), "{err}");
        assert!(err.to_string().contains("lorebase_get"), "{err}");
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn mcp_form_keeps_schemas_and_annotations() {
        let tool = to_mcp_tool(&def("lorebase_execute", false));
        let v = serde_json::to_value(&tool).unwrap();
        assert_eq!(v["name"], "lorebase_execute");
        assert_eq!(v["title"], "Title of lorebase_execute");
        assert_eq!(v["inputSchema"]["type"], "object");
        assert_eq!(v["outputSchema"], json!({"type": "object"}));
        assert_eq!(v["annotations"]["readOnlyHint"], false);
        assert_eq!(v["annotations"]["destructiveHint"], false);
        assert_eq!(v["annotations"]["openWorldHint"], true);
    }
}

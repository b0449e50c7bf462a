//! The tools this Herald serves (the toolbox's definitions, narrowed by the
//! tool selection in core: `--read-only`, `--tools`, `--exclude-tools`, or
//! `herald.tools.*`), in their MCP form (`tools/list`).

use std::borrow::Cow;
use std::sync::Arc;

use herald_core::tools::ToolDefinition;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

/// The served tools, in table order, with their MCP definitions.
#[derive(Debug, Clone)]
pub struct ServedTools {
    tools: Vec<Tool>,
}

impl ServedTools {
    /// The built-in tools served (the toolbox's local definitions, already
    /// narrowed by the tool selection), in their MCP form.
    pub fn new(served: Vec<ToolDefinition>) -> Self {
        Self {
            tools: served.iter().map(to_mcp_tool).collect(),
        }
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
    tool.meta = def.meta.clone().map(rmcp::model::MetaObject);
    // `destructiveHint` and `idempotentHint` mean something only for a tool
    // that is not read-only (MCP), so a read-only tool leaves them out; the
    // tool's own `title` is not repeated.
    let writes = !a.read_only_hint;
    tool.annotations = Some(ToolAnnotations::from_raw(
        None,
        Some(a.read_only_hint),
        writes.then_some(a.destructive_hint),
        writes.then_some(a.idempotent_hint),
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
            meta: None,
        }
    }

    #[test]
    fn every_served_tool_in_order() {
        let served = ServedTools::new(vec![
            def("lorebase_get", true),
            def("lorebase_execute", false),
        ]);
        assert_eq!(served.names(), ["lorebase_get", "lorebase_execute"]);
        assert!(served.get("lorebase_execute").is_some());
        assert!(served.get("lorebase_schema").is_none());
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

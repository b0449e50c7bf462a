//! The MCP form of the tools (`tools/list`): made once for the built-in
//! tools ([`ToolForms`]), on each list for the remote ones. Which tools a
//! caller sees is never decided here: it is its [`ToolView`]'s answer
//! (core's `tools::ToolView`, the one owner of "is this tool served?").

use std::borrow::Cow;
use std::sync::Arc;

use herald_core::remote::RemoteTools;
use herald_core::tools::{ToolDefinition, ToolView};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

/// The MCP form of every built-in tool, in table order, made once.
#[derive(Debug, Clone)]
pub struct ToolForms {
    built_in: Vec<Tool>,
}

impl ToolForms {
    /// The MCP form of the toolbox's built-in definitions
    /// ([`herald_core::tools::Toolbox::built_in_definitions`]).
    pub fn new(built_in: Vec<ToolDefinition>) -> Self {
        Self {
            built_in: built_in.iter().map(to_mcp_tool).collect(),
        }
    }

    /// The built-in tools `view` serves, in table order.
    pub fn built_in<'a>(&'a self, view: &'a ToolView<'_>) -> impl Iterator<Item = &'a Tool> {
        self.built_in.iter().filter(|t| view.serves(&t.name))
    }

    /// Every tool `view` serves: the built-in ones, then the remote ones
    /// discovered so far.
    pub fn served(&self, view: &ToolView<'_>) -> Vec<Tool> {
        let mut tools: Vec<Tool> = self.built_in(view).cloned().collect();
        tools.extend(view.remote_definitions().iter().map(to_mcp_tool));
        tools
    }

    /// The tool called `name`, when `view` serves it (a remote one found
    /// in `remote`, the toolbox's).
    pub fn served_tool(
        &self,
        view: &ToolView<'_>,
        remote: &RemoteTools,
        name: &str,
    ) -> Option<Tool> {
        if !view.serves(name) {
            return None;
        }
        if let Some(tool) = self.built_in.iter().find(|t| t.name == name) {
            return Some(tool.clone());
        }
        remote.find(name).map(|t| to_mcp_tool(&t.definition))
    }

    /// Whether `name` is a built-in tool that only reads (no write, no
    /// remote server's tool).
    pub fn is_built_in_read(&self, name: &str) -> bool {
        self.built_in.iter().any(|t| {
            t.name == name && t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true)
        })
    }

    /// The names of the built-in tools `view` serves, in table order.
    pub fn names<'a>(&'a self, view: &ToolView<'_>) -> Vec<&'a str> {
        let served = self.built_in.iter().filter(|t| view.serves(&t.name));
        served.map(|t| t.name.as_ref()).collect()
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
    fn the_view_decides_which_forms_are_served() {
        let mut settings = herald_core::config::Settings::default();
        settings.tools.deny = vec!["lorebase_execute".into()];
        let toolbox = herald_core::tools::Toolbox::new(settings).unwrap();
        let forms = ToolForms::new(toolbox.built_in_definitions());
        let view = toolbox.view(None, herald_core::tools::Audience::OneAgent);
        let names = forms.names(&view);
        assert_eq!(names.len(), 13);
        assert!(!names.contains(&"lorebase_execute"));
        let remote = toolbox.remote();
        assert!(
            forms
                .served_tool(&view, remote, "lorebase_execute")
                .is_none()
        );
        assert!(forms.served_tool(&view, remote, "lorebase_get").is_some());
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

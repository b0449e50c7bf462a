//! The MCP Apps views (extension `io.modelcontextprotocol/ui`): a graph of
//! Records and Links, a provenance timeline and a query chart, each one
//! self-contained HTML file (built from `views/` by esbuild, embedded here)
//! served as a `ui://` resource and named by its tools' `_meta.ui.resourceUri`.
//!
//! Negotiated: only a client whose capabilities declare the extension with
//! the `text/html;profile=mcp-app` MIME type (and only with `ui.enabled`)
//! gets `_meta.ui` on tools, the `ui://` resources listed and readable, and
//! the extension in the server's capabilities. Every other client gets the
//! same answers as without this module.
//!
//! Tool results are never changed: the model keeps reading the compact text.
//! A view gets its data by calling its tool again through the host with
//! `format: "json"` (a call the host makes for the view, not for the model).
//! Tools a view must never call (`lorebase_execute`, every remote server's
//! tool) carry `visibility: ["model"]`, which the host enforces (a remote
//! server's output never reaches a view); the views themselves only call
//! Herald's read tools.

use rmcp::model::{
    ClientCapabilities, MetaObject, ReadResourceResult, Resource, ResourceContents,
    ServerCapabilities, Tool,
};
use serde_json::{Value, json};

/// The extension's identifier.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of a view.
pub(crate) const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// One view: its resource and the tools it shows.
struct View {
    uri: &'static str,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    tools: &'static [&'static str],
    html: &'static str,
}

/// Every view, with its HTML as built by `views/build.mjs`.
const VIEWS: &[View] = &[
    View {
        uri: "ui://lorebase-herald/graph.html",
        name: "graph",
        title: "Records and Links",
        description: "Records as nodes coloured by Kind, Links as edges labelled by Relation; \
                      click a Record for its values, expand it to its neighbours.",
        tools: &["lorebase_neighborhood", "lorebase_context"],
        html: include_str!("../../assets/views/graph.html"),
    },
    View {
        uri: "ui://lorebase-herald/provenance.html",
        name: "provenance",
        title: "Provenance",
        description: "Where each value came from, as a timeline: origin, actor, time, \
                      Revision; before -> after for history.",
        tools: &["lorebase_lineage", "lorebase_explain", "lorebase_history"],
        html: include_str!("../../assets/views/provenance.html"),
    },
    View {
        uri: "ui://lorebase-herald/query.html",
        name: "query",
        title: "Query result",
        description: "The rows of a query, and the counts per value of an aggregate as a bar chart.",
        tools: &["lorebase_query"],
        html: include_str!("../../assets/views/query.html"),
    },
];

/// Whether `capabilities` declare the extension with the view MIME type.
pub(crate) fn declared(capabilities: Option<&ClientCapabilities>) -> bool {
    let Some(settings) = capabilities
        .and_then(|c| c.extensions.as_ref())
        .and_then(|e| e.get(EXTENSION))
    else {
        return false;
    };
    settings
        .get("mimeTypes")
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

/// Declares the extension in the server's capabilities.
pub(crate) fn declare(capabilities: &mut ServerCapabilities) {
    let settings = json!({"mimeTypes": [MIME_TYPE]});
    let Value::Object(settings) = settings else {
        return;
    };
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(EXTENSION.to_string(), settings);
}

/// Links each tool to its view, and marks the tools a view may not call
/// (`app_callable` false: writes and remote tools) as the model's only.
pub(crate) fn link(tools: &mut [Tool], app_callable: impl Fn(&Tool) -> bool) {
    for tool in tools {
        let view = VIEWS.iter().find(|v| v.tools.contains(&tool.name.as_ref()));
        let ui = match (view, app_callable(tool)) {
            (Some(view), true) => json!({"resourceUri": view.uri, "visibility": ["model", "app"]}),
            (None, true) => continue,
            (_, false) => json!({"visibility": ["model"]}),
        };
        let meta = tool.meta.get_or_insert_with(MetaObject::default);
        meta.0.insert("ui".to_string(), ui);
    }
}

/// The views as listed resources.
pub(crate) fn listed() -> impl Iterator<Item = Resource> {
    VIEWS.iter().map(|v| {
        Resource::new(v.uri, v.name)
            .with_title(v.title)
            .with_description(v.description)
            .with_mime_type(MIME_TYPE)
            .with_meta(resource_meta())
    })
}

/// The view at `uri`, when it is one.
pub(crate) fn read(uri: &str) -> Option<ReadResourceResult> {
    let view = VIEWS.iter().find(|v| v.uri == uri)?;
    let contents = ResourceContents::text(view.html, view.uri)
        .with_mime_type(MIME_TYPE)
        .with_meta(resource_meta());
    Some(ReadResourceResult::new(vec![contents]))
}

/// No CSP domain at all (the page loads nothing from outside), a border.
fn resource_meta() -> MetaObject {
    let mut meta = MetaObject::default();
    meta.0
        .insert("ui".into(), json!({"csp": {}, "prefersBorder": true}));
    meta
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::sync::Arc;

    use super::*;

    fn caps(value: Value) -> ClientCapabilities {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn only_the_view_mime_type_declares_the_extension() {
        let yes = caps(json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}}));
        assert!(declared(Some(&yes)));
        let other = caps(json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html"]}}}));
        assert!(!declared(Some(&other)));
        let bare = caps(json!({"extensions": {EXTENSION: {}}}));
        assert!(!declared(Some(&bare)));
        assert!(!declared(Some(&caps(json!({})))));
        assert!(!declared(None));
    }

    fn tool(name: &'static str) -> Tool {
        Tool::new(Cow::Borrowed(name), "", Arc::new(Default::default()))
    }

    #[test]
    fn views_link_their_tools_and_writes_stay_the_models() {
        let mut tools = vec![
            tool("lorebase_neighborhood"),
            tool("lorebase_get"),
            tool("lorebase_execute"),
        ];
        link(&mut tools, |t| t.name != "lorebase_execute");
        let ui = |i: usize| tools[i].meta.as_ref().map(|m| m.0["ui"].clone());
        assert_eq!(
            ui(0).unwrap()["resourceUri"],
            "ui://lorebase-herald/graph.html"
        );
        assert_eq!(ui(1), None);
        assert_eq!(ui(2).unwrap(), json!({"visibility": ["model"]}));
    }

    #[test]
    fn every_view_is_a_whole_page_that_loads_nothing() {
        for view in VIEWS {
            let read = read(view.uri).unwrap();
            let v = serde_json::to_value(&read).unwrap();
            assert_eq!(v["contents"][0]["mimeType"], MIME_TYPE);
            assert!(view.html.starts_with("<!DOCTYPE html>"), "{}", view.name);
            for outside in ["src=\"http", "href=\"http", "@import", "<link "] {
                assert!(!view.html.contains(outside), "{}: {outside}", view.name);
            }
        }
        assert!(read("ui://lorebase-herald/other.html").is_none());
    }
}

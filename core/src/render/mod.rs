//! The text and JSON renderings of Keeper's answers, and the output caps
//! (herald.md, Output size): every cut is marked, never silent, never inside a
//! UTF-8 character, and a capped JSON answer is still valid JSON.
//!
//! (Issue 4 fills this in.)

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::OutputSettings;
use crate::tools::RenderedOutput;

/// The `format` argument every tool takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormat {
    /// Compact lines (the default).
    #[default]
    Text,
    /// Stable JSON shapes, also sent as `structuredContent`.
    Json,
}

/// Finishes a successful answer: for `text`, caps `text`; for `json`, caps
/// `json` and returns it both as the text block and as `structured`.
pub fn finish(
    _format: OutputFormat,
    _text: impl FnOnce() -> String,
    _json: impl FnOnce() -> Value,
    _caps: &OutputSettings,
) -> RenderedOutput {
    todo!("issue 4")
}

//! The text and JSON renderings of Keeper's answers, and the output caps
//! (docs/tools.md, "Output caps"): every cut is marked, never silent, never inside a
//! UTF-8 character, and a capped JSON answer is still valid JSON.
//!
//! - `text`: compact lines, one renderer per answer ([`reads`], [`provenance`],
//!   [`revisions`], [`agent`], [`kb`]), in the formats docs/tools.md shows.
//! - `json`: the answer's stable shape (documented in `docs/tools.md`), sent
//!   both as the text block and as `structuredContent`.
//!
//! [`finish`] applies the caps ([`caps`]) to either.

pub mod agent;
pub mod caps;
pub mod escape;
pub mod kb;
pub mod provenance;
pub mod reads;
pub mod revisions;
pub mod text;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::OutputSettings;
use crate::tool_interface::RenderedOutput;
pub use text::Text;

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

impl OutputFormat {
    /// The name as a model writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Json => "json",
        }
    }
}

/// `{"type": "string", "enum": ["text", "json"]}`: `text` is the default,
/// which the server's instructions say once for every tool (this schema is
/// in every tool's list entry).
impl schemars::JsonSchema for OutputFormat {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OutputFormat".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let all = [Self::Text, Self::Json].map(Self::as_str);
        schemars::json_schema!({"type": "string", "enum": all})
    }
}

/// Finishes a successful answer: for `text`, caps `text`; for `json`, caps
/// `json` (never cutting the identifiers `ids`, those its type marks) and
/// returns it both as the text block and as `structured`.
///
/// With `output.schemas` off (the default) a `text` answer is its text block
/// alone: hosts that show the model only `structuredContent` when a result
/// has it then show the compact text. With it on, every successful answer
/// also carries `structured` (the capped JSON shape): a tool that declares an
/// `outputSchema` MUST return `structuredContent` (MCP 2025-06-18 and later),
/// and the official Python and TypeScript SDK clients refuse a result
/// without it; `format` then chooses the text block only.
pub fn finish<T: Into<Text>>(
    format: OutputFormat,
    text: impl FnOnce() -> T,
    json: impl FnOnce() -> Value,
    ids: &caps::Identifiers,
    caps: &OutputSettings,
) -> RenderedOutput {
    match format {
        OutputFormat::Text => RenderedOutput {
            text: text::cut(&shown(text().into()), caps.max_chars),
            is_error: false,
            structured: caps
                .schemas
                .then(|| caps::cap_json(shown_json(json()), caps, ids)),
        },
        OutputFormat::Json => {
            let value = caps::cap_json(shown_json(json()), caps, ids);
            RenderedOutput {
                text: serde_json::to_string(&value).unwrap_or_default(),
                is_error: false,
                structured: Some(value),
            }
        }
    }
}

/// A text answer with every hidden character escaped ([`escape::text`]):
/// the renderers escape each value and line; this catches any they missed.
pub fn shown(text: Text) -> Text {
    let part = |s: String| {
        let escaped = match escape::text(&s) {
            std::borrow::Cow::Owned(o) => Some(o),
            std::borrow::Cow::Borrowed(_) => None,
        };
        escaped.unwrap_or(s)
    };
    Text {
        head: part(text.head),
        body: part(text.body),
        footer: part(text.footer),
    }
}

/// A JSON answer with every hidden character of its strings and keys
/// escaped ([`escape::json`]).
fn shown_json(mut value: Value) -> Value {
    escape::json(&mut value);
    value
}

/// A Revision id cut to 12 hex digits and `...` (ids of 12 characters or less,
/// and tags, are shown whole).
pub fn short_rev(id: &str) -> String {
    short_id(id, 12)
}

/// An id cut to `n` characters and `...`.
pub fn short_id(id: &str, n: usize) -> String {
    if id.chars().count() <= n {
        id.to_string()
    } else {
        format!("{}...", caps::prefix_chars(id, n))
    }
}

/// `1 change`, `2 changes`.
pub fn count(n: impl Into<u64>, singular: &str, plural: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {plural}")
    }
}

/// A score with at least one decimal and at most three (`1.0`, `0.95`).
pub fn score(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0');
    if s.ends_with('.') {
        format!("{s}0")
    } else {
        s.to_string()
    }
}

/// A text answer under construction: lines, with the value and list caps.
#[derive(Debug)]
pub struct Lines<'a> {
    caps: &'a OutputSettings,
    out: String,
    /// Where the footer starts in `out`, once begun.
    footer_at: Option<usize>,
}

impl<'a> Lines<'a> {
    /// An empty answer.
    pub fn new(caps: &'a OutputSettings) -> Self {
        Self {
            caps,
            out: String::new(),
            footer_at: None,
        }
    }

    /// Appends one line, every hidden character in it escaped
    /// ([`escape::line`]): a name or message from Keeper holding a line
    /// break stays on this line.
    pub fn line(&mut self, line: impl AsRef<str>) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        self.out.push_str(&escape::line(line.as_ref()));
    }

    /// Appends the lines of at most `max_items` items, then `... N more
    /// <what>` when some were left out.
    pub fn list<T>(
        &mut self,
        items: &[T],
        what: &str,
        indent: &str,
        mut each: impl FnMut(&mut Self, &T),
    ) {
        let max = self.caps.max_items;
        for item in items.iter().take(max) {
            each(self, item);
        }
        if items.len() > max {
            self.line(format!("{indent}... {} more {what}", items.len() - max));
        }
    }

    /// One value, compact: strings bare (line breaks escaped), other values as
    /// JSON; cut at `max_value_chars`.
    pub fn val(&self, v: &Value) -> String {
        value_text(v, self.caps.max_value_chars)
    }

    /// The output caps.
    pub fn caps(&self) -> &OutputSettings {
        self.caps
    }

    /// Starts the footer: the lines appended from now on carry the way
    /// forward (counts, cursors, coverage, next steps) and are kept whole
    /// when `output.max_chars` cuts the answer.
    pub fn begin_footer(&mut self) {
        if self.footer_at.is_none() {
            self.footer_at = Some(self.out.len());
        }
    }

    /// An inline list (`a, b, c`) cut at `max_items`, the cut marked.
    pub fn inline<S: AsRef<str>>(&self, items: &[S], what: &str) -> String {
        text::inline_list(items, what, self.caps.max_items)
    }

    /// The finished text, body and footer joined.
    pub fn into_string(self) -> String {
        self.out
    }

    /// The finished text, its footer apart.
    pub fn into_text(self) -> Text {
        match self.footer_at {
            None => Text::from(self.out),
            Some(at) => {
                let (body, footer) = self.out.split_at(at);
                Text {
                    head: String::new(),
                    body: body.to_string(),
                    footer: footer.trim_start_matches('\n').to_string(),
                }
            }
        }
    }
}

/// One value, compact: strings bare (line breaks and every other hidden
/// character escaped, [`escape::value`]), other values as JSON (their
/// hidden characters escaped too); cut at `max_chars`.
pub fn value_text(v: &Value, max_chars: usize) -> String {
    let s = match v {
        Value::String(s) => escape::value(s).into_owned(),
        other => escape::line(&other.to_string()).into_owned(),
    };
    caps::cut_value(&s, max_chars)
}

/// A one-line rendering of free text (a message, a title): line breaks
/// escaped, cut at `max_chars`.
pub fn inline_text(s: &str, max_chars: usize) -> String {
    value_text(&Value::String(s.to_string()), max_chars)
}

/// `"title"` with the title inlined and cut.
pub fn quoted(title: &str, max_chars: usize) -> String {
    format!("\"{}\"", inline_text(title, max_chars))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// 1000 characters, 2 items, 10 characters a value.
    fn small_caps(schemas: bool) -> OutputSettings {
        OutputSettings {
            max_chars: 1000,
            max_items: 2,
            max_value_chars: 10,
            schemas,
        }
    }

    #[test]
    fn revisions_are_cut_to_12() {
        let id = "f4d229169a37".to_string() + &"0".repeat(52);
        assert_eq!(short_rev(&id), "f4d229169a37...");
        assert_eq!(short_rev("v1.0"), "v1.0");
        assert_eq!(short_id(&id, 8), "f4d22916...");
    }

    #[test]
    fn scores_keep_one_decimal() {
        assert_eq!(score(1.0), "1.0");
        assert_eq!(score(0.95), "0.95");
        assert_eq!(score(0.123456), "0.123");
        assert_eq!(score(12.0), "12.0");
    }

    #[test]
    fn values_are_compact_and_single_line() {
        assert_eq!(value_text(&json!("a\nb"), 50), "a\\nb");
        assert_eq!(value_text(&json!(null), 50), "null");
        assert_eq!(value_text(&json!(["x", 1]), 50), "[\"x\",1]");
        assert_eq!(
            value_text(&json!("żółć"), 2),
            "żó... [truncated: 2 more chars]"
        );
    }

    #[test]
    fn lists_say_how_many_were_left_out() {
        let caps = small_caps(true);
        let mut l = Lines::new(&caps);
        l.list(&[1, 2, 3, 4], "rows", "", |l, i| l.line(i.to_string()));
        assert_eq!(l.into_string(), "1\n2\n... 2 more rows");
    }

    #[test]
    fn finish_json_sends_the_same_json_twice() {
        let caps = small_caps(true);
        let out = finish(
            OutputFormat::Json,
            String::new,
            || json!({"a": [1, 2, 3]}),
            &caps::Identifiers::NONE,
            &caps,
        );
        let parsed: Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!(Some(parsed), out.structured);
        assert!(!out.is_error);
        let text = finish(
            OutputFormat::Text,
            || "x".repeat(2000),
            || json!({}),
            &caps::Identifiers::NONE,
            &caps,
        );
        assert_eq!(text.structured, Some(json!({})));
        assert!(text.text.chars().count() <= 1000);
    }

    #[test]
    fn without_schemas_only_the_json_format_sends_structured_content() {
        let caps = small_caps(false);
        let text = finish(
            OutputFormat::Text,
            || String::from("a line"),
            || json!({"a": 1}),
            &caps::Identifiers::NONE,
            &caps,
        );
        assert_eq!(text.text, "a line");
        assert_eq!(text.structured, None);
        let json_out = finish(
            OutputFormat::Json,
            String::new,
            || json!({"a": 1}),
            &caps::Identifiers::NONE,
            &caps,
        );
        assert_eq!(json_out.structured, Some(json!({"a": 1})));
        assert_eq!(json_out.text, r#"{"a":1}"#);
    }
}

//! The one cleaning pass for everything a remote MCP server sends, whatever
//! its place: a tool's result text, resource text and structured content,
//! a JSON-RPC error's message and data, and at discovery each tool's name,
//! title, description and every string of its input schema. In order:
//!
//! 1. **Stripped**: control characters except `\n` and `\t` (ESC and OSC
//!    sequences lose their ESC, BEL, bare CR becomes a line break), and every
//!    hidden character ([`crate::tool_interface::is_hidden_or_control`]: format
//!    characters such as zero-width ones, the soft hyphen, bidi controls and
//!    tag characters). What is left is what is sent.
//! 2. **Redacted and unmarked on a folded copy**, the text's skeleton
//!    ([`fold`]: Markdown and HTML unwrapped, NFKC, every combining mark
//!    dropped, small capitals, turned letters and look-alikes folded to
//!    ASCII, a line break or cell border inside a token joined): credential
//!    shapes, the configured credentials of `mcp.servers`, and fence
//!    markers in any spelling are found there ([`secrets`]) and the same
//!    spans are cut from the stripped text (`[redacted]`, `[fence marker
//!    removed]`). `disguises.jsonl` is the corpus of disguises each caught.
//! 3. **Fenced** ([`Fence`]) where the text is shown as an answer, with a
//!    random id in both tags.
//!
//! Out of reach: encodings a pattern cannot see (base64, URL or JSON
//! escapes, reversed or upper-cased secrets; docs/reliability.md). The
//! fence's random id is the real defence.

mod fence;
mod fold;
mod secrets;

use serde_json::Value;

pub use fence::{FENCE_TAG, Fence, MARKER_REMOVED};

use self::fold::Folded;
use self::secrets::{Cut, MIN_SECRET_CHARS};

/// What a redacted credential is replaced with.
pub const REDACTED: &str = "[redacted]";

/// The cleaning pass, with the configured credentials to redact by value.
#[derive(Debug, Clone, Default)]
pub struct Cleaner {
    /// The configured credentials, folded like the text they are looked for in.
    secrets: Vec<String>,
}

impl Cleaner {
    /// Compiles the patterns every text is searched with (once per process;
    /// about 2 ms of CPU), so that a caller can do it beside other work
    /// instead of in front of its first text.
    pub fn prepare() {
        secrets::prepare();
    }

    /// A pass redacting the credential shapes and `secrets` (the configured
    /// tokens and URL queries of `mcp.servers`; those shorter than 8
    /// characters are left out, they would redact ordinary words).
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Self {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(|s| Folded::new(&strip(s), false).text)
            .filter(|s| s.chars().count() >= MIN_SECRET_CHARS)
            .collect();
        secrets.sort();
        secrets.dedup();
        Self { secrets }
    }

    /// This pass with one more credential to redact by value (a call's own
    /// exchanged token).
    pub fn with_secret(&self, secret: &str) -> Self {
        let mut more = self.clone();
        let folded = Folded::new(&strip(secret), false).text;
        if folded.chars().count() >= MIN_SECRET_CHARS && !more.secrets.contains(&folded) {
            more.secrets.push(folded);
            more.secrets.sort();
        }
        more
    }

    /// `text` stripped, redacted and unmarked (line breaks and tabs kept).
    pub fn text(&self, text: &str) -> String {
        let stripped = strip(text);
        let mut original = Vec::new();
        for join in [false, true] {
            let folded = Folded::new(&stripped, join);
            original.extend(
                secrets::spans(&folded.text, &folded.joins, &self.secrets)
                    .into_iter()
                    .map(|(range, cut)| (folded.original(range), cut)),
            );
            if !join && !stripped.contains(['\n', '|', '<']) {
                break;
            }
        }
        if original.is_empty() {
            return stripped;
        }
        let mut out = String::with_capacity(stripped.len());
        let mut at = 0;
        for (range, cut) in secrets::merge(original) {
            out.push_str(&stripped[at..range.start]);
            out.push_str(match cut {
                Cut::Secret => REDACTED,
                Cut::Marker => MARKER_REMOVED,
            });
            at = range.end;
        }
        out.push_str(&stripped[at..]);
        out
    }

    /// `text` cleaned ([`Self::text`]) as one line: line breaks and tabs as
    /// spaces, runs of spaces collapsed, at most `max_chars` characters
    /// (then `…`). For titles, descriptions and reasons. Only the first
    /// `4 × max_chars + 1024` characters are cleaned (a margin for what the
    /// cleaning removes): a text of any length costs about the line.
    pub fn line(&self, text: &str, max_chars: usize) -> String {
        let margin = max_chars.saturating_mul(4).saturating_add(1024);
        let cleaned = self.text(crate::render::caps::prefix_chars(text, margin));
        let mut out = String::with_capacity(cleaned.len().min(max_chars * 4));
        let mut count = 0;
        let mut last_space = true;
        for c in cleaned.chars() {
            let c = if c.is_whitespace() { ' ' } else { c };
            if c == ' ' {
                if last_space {
                    continue;
                }
                last_space = true;
            } else {
                last_space = false;
            }
            if count == max_chars {
                out.truncate(out.trim_end().len());
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
        out.trim_end().to_string()
    }

    /// Every string of `value` cleaned ([`Self::text`]), object keys
    /// included.
    pub fn json(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                let clean = self.text(s);
                if clean != *s {
                    *s = clean;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v)),
            Value::Object(map) => {
                let dirty = map.keys().any(|k| self.text(k) != *k);
                if dirty {
                    let old = std::mem::take(map);
                    for (k, v) in old {
                        map.insert(self.text(&k), v);
                    }
                }
                map.values_mut().for_each(|v| self.json(v));
            }
            _ => {}
        }
    }

    /// Whether cleaning changes no key of any object in `value` (a schema's
    /// property names are identifiers: one that needs cleaning is refused,
    /// not renamed).
    pub fn keys_are_clean(&self, value: &Value) -> bool {
        match value {
            Value::Array(items) => items.iter().all(|v| self.keys_are_clean(v)),
            Value::Object(map) => map
                .iter()
                .all(|(k, v)| self.text(k) == *k && self.keys_are_clean(v)),
            _ => true,
        }
    }
}

/// `text` without control characters (but `\n` and `\t`) or hidden ones;
/// CR LF, a bare CR, NEL and the Unicode line and paragraph separators
/// become `\n`.
fn strip(text: &str) -> String {
    if text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t')
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\u{85}' | '\u{2028}' | '\u{2029}' => out.push('\n'),
            c if crate::tool_interface::is_hidden_or_control(c) => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;

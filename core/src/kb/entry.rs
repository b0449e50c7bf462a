//! One catalog entry: an OKF markdown file, YAML frontmatter between `---`
//! lines, then the markdown body (docs/kb.md, "An entry").
//!
//! Every frontmatter field is optional, unknown keys are ignored, and scalar
//! values keep their text as written (`last_validated: 2024-05-01` stays
//! `"2024-05-01"`, `fingerprint: 0x1F` stays `"0x1F"`). A file without
//! frontmatter is an entry whose body is the whole file.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use crate::yaml;
pub use crate::yaml::MAX_FRONTMATTER_DEPTH;

/// Largest entry file read, in bytes; bigger files are skipped with a warning.
pub const MAX_ENTRY_BYTES: u64 = 8 * 1024 * 1024;

/// One indexed entry, as `kb_get` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KbEntry {
    /// The catalog-relative path with `/` separators (`runbooks/harbor.md`).
    pub path: String,
    /// The `type` field (`runbook`, `incident`, ...).
    pub kind: Option<String>,
    /// The `title` field; without one, the first `# heading` of the body,
    /// else the file name without `.md`.
    pub title: String,
    /// Whether `title` was written in the frontmatter (not derived).
    pub title_in_frontmatter: bool,
    /// The `description` field.
    pub description: Option<String>,
    /// The `resource` field (`Deployment/harbor-core`).
    pub resource: Option<String>,
    /// The `alert_resource` field.
    pub alert_resource: Option<String>,
    /// The `tags` field (a list; a single string is split on commas).
    pub tags: Vec<String>,
    /// The `timestamp` field (last-change stamp of curated entries).
    pub timestamp: Option<String>,
    /// The `fingerprint` field (dedup identity of curated entries).
    pub fingerprint: Option<String>,
    /// The `status` field (`retired`, `draft`, ...).
    pub status: Option<String>,
    /// The `last_validated` field.
    pub last_validated: Option<String>,
    /// The markdown body after the frontmatter.
    pub body: String,
}

/// Why a file is not an entry (the warning names the file and this reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MalformedEntry {
    /// The bytes are not UTF-8.
    #[error("not UTF-8 text")]
    NotUtf8,
    /// The file is larger than [`MAX_ENTRY_BYTES`].
    #[error("larger than {max} MiB ({0} bytes)", max = MAX_ENTRY_BYTES / (1024 * 1024))]
    TooLarge(u64),
    /// The opening `---` has no closing `---` line.
    #[error("frontmatter opened with --- is never closed")]
    UnclosedFrontmatter,
    /// The frontmatter is not valid YAML, or a field has the wrong shape.
    #[error("invalid frontmatter: {0}")]
    InvalidFrontmatter(String),
    /// The frontmatter nests collections deeper than
    /// [`MAX_FRONTMATTER_DEPTH`] (refused before it is parsed: see
    /// `crate::yaml`).
    #[error("frontmatter nests collections more than {MAX_FRONTMATTER_DEPTH} deep (line {line})")]
    TooDeep {
        /// The frontmatter's line (1-based) where it gets too deep.
        line: u64,
    },
    /// The file cannot be read.
    #[error("cannot read: {0}")]
    Unreadable(String),
}

/// The frontmatter fields (all optional, unknown keys ignored).
#[derive(Debug, Default, Deserialize)]
struct Frontmatter {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    resource: Option<String>,
    #[serde(default)]
    alert_resource: Option<String>,
    #[serde(default, deserialize_with = "deserialize_tags")]
    tags: Vec<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    fingerprint: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    last_validated: Option<String>,
}

impl KbEntry {
    /// Parses the text of the file at catalog-relative `path`.
    pub fn parse(path: &str, text: &str) -> Result<Self, MalformedEntry> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let (front, body) = split_frontmatter(text)?;
        let front: Frontmatter = match front {
            Some(yaml) if !yaml.trim().is_empty() => parse_yaml(yaml)?,
            _ => Frontmatter::default(),
        };
        let body = body.trim_start_matches(['\r', '\n']).trim_end().to_string();
        let title_in_frontmatter = front.title.as_deref().is_some_and(|t| !t.trim().is_empty());
        let title = match front.title.as_deref().map(str::trim) {
            Some(title) if !title.is_empty() => title.to_string(),
            _ => first_heading(&body).unwrap_or_else(|| file_stem(path).to_string()),
        };
        Ok(Self {
            path: path.to_string(),
            kind: non_empty(front.kind),
            title,
            title_in_frontmatter,
            description: non_empty(front.description),
            resource: non_empty(front.resource),
            alert_resource: non_empty(front.alert_resource),
            tags: front.tags,
            timestamp: non_empty(front.timestamp),
            fingerprint: non_empty(front.fingerprint),
            status: non_empty(front.status),
            last_validated: non_empty(front.last_validated),
            body,
        })
    }

    /// Parses raw file bytes (checks size and UTF-8 first).
    pub fn parse_bytes(path: &str, bytes: &[u8]) -> Result<Self, MalformedEntry> {
        if bytes.len() as u64 > MAX_ENTRY_BYTES {
            return Err(MalformedEntry::TooLarge(bytes.len() as u64));
        }
        let text = std::str::from_utf8(bytes).map_err(|_| MalformedEntry::NotUtf8)?;
        Self::parse(path, text)
    }
}

fn parse_yaml(yaml: &str) -> Result<Frontmatter, MalformedEntry> {
    if let Some(line) = yaml::first_too_deep(yaml, MAX_FRONTMATTER_DEPTH) {
        return Err(MalformedEntry::TooDeep { line });
    }
    // A frontmatter that is a list or a scalar is not a set of fields.
    serde_norway::from_str::<Frontmatter>(yaml).map_err(|e| {
        let mut reason = e.to_string();
        if reason.len() > 200 {
            let mut cut = 200;
            while !reason.is_char_boundary(cut) {
                cut -= 1;
            }
            reason.truncate(cut);
            reason.push_str("...");
        }
        MalformedEntry::InvalidFrontmatter(reason)
    })
}

/// Splits `---` frontmatter from the body. `Ok((None, text))` when the file
/// does not start with a `---` line.
fn split_frontmatter(text: &str) -> Result<(Option<&str>, &str), MalformedEntry> {
    let Some(first_end) = text.find('\n') else {
        if text.trim_end() == "---" {
            return Err(MalformedEntry::UnclosedFrontmatter);
        }
        return Ok((None, text));
    };
    if text[..first_end].trim_end() != "---" {
        return Ok((None, text));
    }
    let rest = &text[first_end + 1..];
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == "---" || bare == "..." {
            return Ok((Some(&rest[..offset]), &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(MalformedEntry::UnclosedFrontmatter)
}

/// The text of the first `# heading` line of a markdown body.
fn first_heading(body: &str) -> Option<String> {
    let mut in_fence = false;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some(heading) = trimmed.strip_prefix("# ") {
            let heading = heading.trim().trim_end_matches('#').trim();
            if !heading.is_empty() {
                return Some(heading.to_string());
            }
        }
    }
    None
}

fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.len().checked_sub(3) {
        Some(cut) if name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".md") => {
            &name[..cut]
        }
        _ => name,
    }
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.and_then(|v| {
        let trimmed = v.trim();
        if trimmed.is_empty() {
            None
        } else if trimmed.len() == v.len() {
            Some(v)
        } else {
            Some(trimmed.to_string())
        }
    })
}

/// `tags`: a list of scalars (each keeps its text), or one string split on
/// commas; null or empty gives no tags.
fn deserialize_tags<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    struct TagsVisitor;

    impl<'de> Visitor<'de> for TagsVisitor {
        type Value = Vec<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of tags or a comma-separated string")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut tags = Vec::new();
            while let Some(tag) = seq.next_element::<Option<String>>()? {
                if let Some(tag) = non_empty(tag) {
                    tags.push(tag);
                }
            }
            Ok(tags)
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(v.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect())
        }

        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(vec![v.to_string()])
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(vec![v.to_string()])
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(vec![v.to_string()])
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(vec![v.to_string()])
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
    }

    deserializer.deserialize_any(TagsVisitor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_fields_keep_their_text() {
        let text = "---\ntype: runbook\ntitle: Harbor core restarts\nlast_validated: 2024-05-01\n\
                    timestamp: 2024-05-01T10:00:00Z\nfingerprint: 0x1F\ntags: [harbor, 2024, k8s]\n\
                    unknown: {nested: [1, 2]}\n---\n\n# Heading\nBody text.\n";
        let entry = KbEntry::parse("runbooks/harbor.md", text).unwrap();
        assert_eq!(entry.kind.as_deref(), Some("runbook"));
        assert_eq!(entry.title, "Harbor core restarts");
        assert_eq!(entry.last_validated.as_deref(), Some("2024-05-01"));
        assert_eq!(entry.timestamp.as_deref(), Some("2024-05-01T10:00:00Z"));
        assert_eq!(entry.fingerprint.as_deref(), Some("0x1F"));
        assert_eq!(entry.tags, ["harbor", "2024", "k8s"]);
        assert_eq!(entry.body, "# Heading\nBody text.");
        assert_eq!(entry.description, None);
    }

    #[test]
    fn no_frontmatter_is_an_entry_titled_by_its_heading_or_name() {
        let entry = KbEntry::parse("a/b.md", "Some text\n\n# The Title\nmore").unwrap();
        assert_eq!(entry.title, "The Title");
        assert!(!entry.title_in_frontmatter);
        assert_eq!(entry.body, "Some text\n\n# The Title\nmore");
        let entry = KbEntry::parse("a/plain-note.md", "just words").unwrap();
        assert_eq!(entry.title, "plain-note");
        assert_eq!(entry.kind, None);
    }

    #[test]
    fn malformed_frontmatter_says_why() {
        assert_eq!(
            KbEntry::parse("x.md", "---\ntitle: a\nno end\n"),
            Err(MalformedEntry::UnclosedFrontmatter)
        );
        let err = KbEntry::parse("x.md", "---\ntitle: [unclosed\n---\nbody").unwrap_err();
        assert!(
            matches!(err, MalformedEntry::InvalidFrontmatter(_)),
            "{err:?}"
        );
        let err = KbEntry::parse("x.md", "---\n- a\n- b\n---\nbody").unwrap_err();
        assert!(
            matches!(err, MalformedEntry::InvalidFrontmatter(_)),
            "{err:?}"
        );
        let err = KbEntry::parse("x.md", "---\ntitle: {a: b}\n---\nbody").unwrap_err();
        assert!(
            matches!(err, MalformedEntry::InvalidFrontmatter(_)),
            "{err:?}"
        );
        assert_eq!(
            KbEntry::parse_bytes("x.md", b"\xff\xfe bad"),
            Err(MalformedEntry::NotUtf8)
        );
    }

    /// `tags: [[[[...]]]]` 100,000 deep (a 200 KB file took 47 s to refuse).
    #[test]
    fn deep_frontmatter_is_refused_at_once() {
        let n = 100_000;
        let text = format!(
            "---\ntitle: t\ntags: {}{}\n---\nbody",
            "[".repeat(n),
            "]".repeat(n)
        );
        let started = std::time::Instant::now();
        assert_eq!(
            KbEntry::parse("x.md", &text),
            Err(MalformedEntry::TooDeep { line: 2 })
        );
        assert!(
            started.elapsed().as_secs_f64() < 1.0,
            "{:?}",
            started.elapsed()
        );
        let ok = "---\ntags: [a, b]\nx: {y: {z: [[1]]}}\n---\nbody";
        assert_eq!(KbEntry::parse("x.md", ok).unwrap().tags, ["a", "b"]);
    }

    #[test]
    fn tags_as_string_and_empty_values() {
        let entry = KbEntry::parse(
            "x.md",
            "---\r\ntags: a, b ,c\r\ntitle:\r\nstatus: ''\r\n---\r\nbody",
        )
        .unwrap();
        assert_eq!(entry.tags, ["a", "b", "c"]);
        assert_eq!(entry.title, "x");
        assert_eq!(entry.status, None);
        assert_eq!(entry.body, "body");
        let entry = KbEntry::parse("x.md", "---\n---\nbody").unwrap();
        assert_eq!(entry.body, "body");
        assert!(entry.tags.is_empty());
    }
}

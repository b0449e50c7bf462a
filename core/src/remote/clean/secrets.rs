//! What is cut from a remote text, found in its folded copy
//! ([`super::fold`]): credential shapes, the configured credentials of
//! `mcp.servers` (tokens, URL queries), and fence markers (Herald's own and
//! the hosts', in any spelling: case, any separator or none, `&lt;` for
//! `<`: the marker's name itself is what is cut).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// The shortest configured credential redacted by its value (a shorter one
/// would redact ordinary words).
pub(super) const MIN_SECRET_CHARS: usize = 8;

/// Credential shapes; the group `s`, where there is one, is the part cut
/// (the rest is kept: `password = ` before a password). Each must start at a
/// word boundary or where two lines were joined ([`spans`] checks it: a
/// `\b` in the pattern would miss a key whose line was joined to the
/// word before it).
static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // Private key blocks, whole.
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)",
        // `Authorization: Bearer x`, `Basic x`.
        r"(?i)(?:bearer|basic)\s+(?P<s>[A-Za-z0-9\-._~+/]{8,}=*)",
        // Lorebase API keys.
        r"lbk_[A-Za-z0-9_\-]{6,}",
        // AWS access key ids.
        r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
        // GitHub tokens.
        r"gh[pousr]_[A-Za-z0-9]{20,}",
        r"github_pat_[A-Za-z0-9_]{20,}",
        // Slack tokens.
        r"xox[abposr]-[A-Za-z0-9\-]{10,}",
        // OpenAI and Anthropic keys (`sk-...`, `sk-proj-...`, `sk-ant-...`).
        r"sk-[A-Za-z0-9_\-]{20,}",
        // Google API keys.
        r"AIza[0-9A-Za-z_\-]{30,}",
        // JSON Web Tokens.
        r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        // `password=x`, `api_key: x`, `secret="x"`, `token=x`,
        // `aws_secret_access_key = x`, `| password | x |`: the name kept,
        // the value redacted.
        r#"(?i)(?:[a-z0-9]+[_\-])*(?:password|passwd|passphrase|secret|token|api[_\-]?key|access[_\-]?key)["']?\s*[=:|]\s*["']?(?P<s>[^\s"'&,;<>|]{6,})"#,
        // `the password is x` (a password only: "the token is expired" is
        // prose).
        r#"(?i)(?:password|passwd|passphrase)\s+is\s+["']?(?P<s>[^\s"'&,;<>|]{6,})"#,
    ]
    .into_iter()
    .filter_map(|re| Regex::new(re).ok())
    .collect()
});

/// Compiles the credential shapes now (once per process), so the first text
/// cleaned does not wait for them.
pub(super) fn prepare() {
    LazyLock::force(&PATTERNS);
}

/// A fence marker's name, Herald's (`untrusted_remote_output`) or Gemini
/// CLI's (`untrusted_context`), looked for in the folded text's letters
/// alone ([`marker_spans`]): in any case, with anything but letters between
/// its own (spaces, `_`, `-`, `.`, `/`, `:`, digits), letter-spaced too.
const MARKER_NAMES: [&str; 2] = ["untrustedremoteoutput", "untrustedcontext"];

/// The spans of `folded` holding a fence marker's name.
fn marker_spans(folded: &str) -> Vec<Range<usize>> {
    let mut letters = String::with_capacity(folded.len());
    let mut at = Vec::with_capacity(folded.len());
    for (i, c) in folded.char_indices() {
        if c.is_ascii_alphabetic() {
            letters.push(c.to_ascii_lowercase());
            at.push(i);
        }
    }
    let mut spans = Vec::new();
    for name in MARKER_NAMES {
        for (start, _) in letters.match_indices(name) {
            let last = at[start + name.len() - 1];
            spans.push(at[start]..last + 1);
        }
    }
    spans
}

/// What one cut span was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Cut {
    /// A fence marker.
    Marker,
    /// A credential (wins over a marker where the two overlap).
    Secret,
}

/// The spans of `folded` to cut, each with what it is, in order, merged
/// where they overlap.
pub(super) fn spans(folded: &str, joins: &[usize], secrets: &[String]) -> Vec<(Range<usize>, Cut)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let starts_a_word = |at: usize| {
        at == 0
            || !folded[at..].chars().next().is_some_and(is_word)
            || joins.binary_search(&at).is_ok()
            || folded[..at].chars().next_back().is_none_or(|c| !is_word(c))
    };
    let mut found: Vec<(Range<usize>, Cut)> = Vec::new();
    for secret in secrets {
        found.extend(
            folded
                .match_indices(secret.as_str())
                .map(|(at, s)| (at..at + s.len(), Cut::Secret)),
        );
    }
    for re in PATTERNS.iter() {
        for caps in re.captures_iter(folded) {
            let whole = caps.get(0).map_or(0, |m| m.start());
            if let Some(m) = caps.name("s").or_else(|| caps.get(0))
                && starts_a_word(whole)
            {
                found.push((m.range(), Cut::Secret));
            }
        }
    }
    found.extend(marker_spans(folded).into_iter().map(|r| (r, Cut::Marker)));
    merge(found)
}

/// Sorts spans and merges those that overlap or touch.
pub(super) fn merge(mut spans: Vec<(Range<usize>, Cut)>) -> Vec<(Range<usize>, Cut)> {
    spans.sort_by_key(|(r, _)| (r.start, r.end));
    let mut merged: Vec<(Range<usize>, Cut)> = Vec::with_capacity(spans.len());
    for (range, cut) in spans {
        match merged.last_mut() {
            Some((last, kind)) if range.start <= last.end => {
                last.end = last.end.max(range.end);
                *kind = (*kind).max(cut);
            }
            _ => merged.push((range, cut)),
        }
    }
    merged
}

/// How many fence markers `folded` holds.
#[cfg(test)]
pub(super) fn markers(folded: &str) -> usize {
    marker_spans(folded).len()
}

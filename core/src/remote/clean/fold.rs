//! The normalised copy of a remote text that secrets and fence markers are
//! looked for in (its skeleton), with the map back to the text as sent:
//!
//! - **Markup a reader does not see** unwrapped: Markdown emphasis and code
//!   (`*`, `` ` ``, `~`) and backslash escapes dropped, HTML comments and
//!   formatting tags (`<b>`, `<span …>`) dropped, character references
//!   (`&#117;`, `&#x75;`, `&lt;`) decoded.
//! - **Each character** NFKC-normalised, every combining mark dropped
//!   (nonspacing, spacing and enclosing), small capitals and turned letters
//!   read as their letters, then a non-ASCII look-alike folded to its ASCII
//!   prototype (UTS #39 confusables: Cyrillic `ѕ`, Greek `ο`, full-width
//!   forms, hyphen look-alikes).
//! - **Split tokens joined** (a second copy): a line break or a table cell
//!   border (`|`) between two token characters dropped, so a secret split
//!   across two lines or cells reads as one.
//!
//! ASCII letters and digits are kept as they are (the confusables map `1` to
//! `l` and `m` to `rn`, which would blind the credential patterns).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

/// A folded copy of a text and, for each folded character, the bytes of the
/// original character it came from.
#[derive(Debug)]
pub(super) struct Folded {
    /// The folded text.
    pub text: String,
    /// The folded byte offsets where a line break was dropped (joined).
    pub joins: Vec<usize>,
    /// `(folded byte offset, original byte range)`, in order.
    map: Vec<(usize, Range<usize>)>,
}

/// A character a token (a key, a password, a marker's name) is made of: a
/// line break between two of them is joined.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+' | '/' | '=')
}

/// An HTML comment (to its end, or to the end of the text).
static COMMENT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^<!--(?s:.*?)(?:-->|\z)").ok());

/// An HTML tag that only formats text (never the fence's own tag name).
static FORMAT_TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
    const NAMES: &str = "a|abbr|b|bdi|bdo|big|br|cite|code|del|dfn|div|em|font|i|ins|kbd|mark|p|q|s|samp|small|span|strike|strong|sub|sup|tt|u|var|wbr";
    Regex::new(
        &r"(?i)^(?:</(?:NAMES)\s*>|<(?:NAMES)(?:\s[^<>]{0,200})?/?>)".replace("NAMES", NAMES),
    )
    .ok()
});

/// A character reference: decimal, hexadecimal or named.
static ENTITY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,8}));").ok()
});

/// A table cell border between two cells, with its spaces.
static CELL_BORDER: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^[ \t]*\|[ \t]*").ok());

/// The named character references a disguise uses for ASCII.
fn named_entity(name: &str) -> Option<char> {
    Some(match name.to_ascii_lowercase().as_str() {
        "lt" => '<',
        "gt" => '>',
        "amp" => '&',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "lowbar" | "underbar" => '_',
        "hyphen" | "dash" => '-',
        "sol" => '/',
        "colon" => ':',
        "period" => '.',
        "ast" | "midast" => '*',
        "equals" => '=',
        "num" => '#',
        "bsol" => '\\',
        "grave" => '`',
        "verbar" | "vert" => '|',
        _ => return None,
    })
}

/// Markup at the start of `rest` that a reader does not see as text: its
/// length in bytes, and the character it stands for (a reference). HTML
/// comments and tags only with `unwrap` (the copy without them hides
/// nothing a comment or an attribute holds).
fn markup(rest: &str, unwrap: bool) -> Option<(usize, Option<char>)> {
    let first = rest.as_bytes()[0];
    match first {
        b'*' | b'`' | b'~' | b'\\' => Some((1, None)),
        b'<' if unwrap => [&COMMENT, &FORMAT_TAG]
            .into_iter()
            .filter_map(|re| re.as_ref())
            .find_map(|re| re.find(rest))
            .map(|m| (m.end(), None)),
        b'&' => {
            let caps = ENTITY.as_ref()?.captures(rest)?;
            let c = if let Some(d) = caps.get(1) {
                d.as_str().parse::<u32>().ok().and_then(char::from_u32)
            } else if let Some(h) = caps.get(2) {
                u32::from_str_radix(h.as_str(), 16)
                    .ok()
                    .and_then(char::from_u32)
            } else {
                caps.get(3).and_then(|n| named_entity(n.as_str()))
            }?;
            Some((caps.get(0)?.end(), Some(c)))
        }
        _ => None,
    }
}

impl Folded {
    /// Folds `original` (already stripped of hidden and control
    /// characters); with `join`, a line break or a cell border between two
    /// token characters is dropped, and HTML comments and formatting tags
    /// are (a second copy without them keeps a key at the start of a line
    /// whole, and what a comment or a tag's attribute says).
    pub(super) fn new(original: &str, join: bool) -> Self {
        let mut text = String::with_capacity(original.len());
        let mut map = Vec::with_capacity(original.len());
        let mut joins = Vec::new();
        let mut at = 0;
        while let Some(c) = original[at..].chars().next() {
            let rest = &original[at..];
            if let Some((len, stands_for)) = markup(rest, join) {
                let range = at..at + len;
                for folded in stands_for.map(fold).unwrap_or_default() {
                    map.push((text.len(), range.clone()));
                    text.push(folded);
                }
                at += len;
                continue;
            }
            if join
                && matches!(c, '\n' | ' ' | '\t' | '|')
                && text.chars().next_back().is_some_and(is_token_char)
                && let Some(len) = split_between_tokens(rest)
            {
                joins.push(text.len());
                at += len;
                continue;
            }
            let range = at..at + c.len_utf8();
            at = range.end;
            if c.is_ascii() {
                map.push((text.len(), range));
                text.push(c);
                continue;
            }
            for folded in fold(c) {
                map.push((text.len(), range.clone()));
                text.push(folded);
            }
        }
        Self { text, joins, map }
    }

    /// The original bytes behind the folded bytes `folded` (whole
    /// characters, the line breaks joined inside it included).
    pub(super) fn original(&self, folded: Range<usize>) -> Range<usize> {
        let index = |at: usize| match self.map.binary_search_by_key(&at, |(f, _)| *f) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let first = &self.map[index(folded.start)].1;
        let last = &self.map[index(folded.end.saturating_sub(1).max(folded.start))].1;
        first.start..last.end.max(first.end)
    }
}

/// The length of a split at the start of `rest` (a line break, or a cell
/// border with its spaces) when a token character follows it.
fn split_between_tokens(rest: &str) -> Option<usize> {
    let len = if rest.starts_with('\n') {
        1
    } else {
        let m = CELL_BORDER.as_ref()?.find(rest)?;
        if !m.as_str().contains('|') {
            return None;
        }
        m.end()
    };
    rest[len..]
        .chars()
        .next()
        .and_then(fold_first)
        .is_some_and(is_token_char)
        .then_some(len)
}

/// Whether `c` is a combining mark of any kind (nonspacing, spacing or
/// enclosing): drawn on or beside a letter, never a letter itself.
fn is_mark(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::NonspacingMark
            | GeneralCategory::SpacingMark
            | GeneralCategory::EnclosingMark
    )
}

/// Small capitals and turned letters, which neither NFKC nor the
/// confusables map to the letter they are read as.
fn letter_look_alike(c: char) -> Option<char> {
    Some(match c {
        '\u{1D00}' | '\u{0250}' | '\u{0252}' => 'a',
        '\u{0299}' => 'b',
        '\u{1D04}' | '\u{0254}' => 'c',
        '\u{1D05}' => 'd',
        '\u{1D07}' | '\u{01DD}' | '\u{0259}' => 'e',
        '\u{A730}' | '\u{025F}' => 'f',
        '\u{0262}' | '\u{0183}' => 'g',
        '\u{029C}' | '\u{0265}' => 'h',
        '\u{026A}' | '\u{1D09}' => 'i',
        '\u{1D0A}' | '\u{027E}' => 'j',
        '\u{1D0B}' | '\u{029E}' => 'k',
        '\u{029F}' => 'l',
        '\u{1D0D}' | '\u{026F}' => 'm',
        '\u{0274}' => 'n',
        '\u{1D0F}' => 'o',
        '\u{1D18}' => 'p',
        '\u{A7AF}' => 'q',
        '\u{0280}' | '\u{0279}' | '\u{027A}' | '\u{027B}' => 'r',
        '\u{A731}' => 's',
        '\u{1D1B}' | '\u{0287}' => 't',
        '\u{1D1C}' => 'u',
        '\u{1D20}' | '\u{028C}' => 'v',
        '\u{1D21}' | '\u{028D}' => 'w',
        '\u{028F}' | '\u{028E}' => 'y',
        '\u{1D22}' => 'z',
        _ => return None,
    })
}

/// The folded form of one character: its NFKC form without combining
/// marks, each character of it read as the letter it looks like (small
/// capitals, turned letters, then the confusables' ASCII prototype).
fn fold(c: char) -> Vec<char> {
    if c.is_ascii() {
        return vec![c];
    }
    let mut out = Vec::new();
    for n in std::iter::once(c).nfkc() {
        if n.is_ascii() {
            out.push(n);
            continue;
        }
        if is_mark(n) {
            continue;
        }
        if let Some(letter) = letter_look_alike(n) {
            out.push(letter);
            continue;
        }
        let mut buf = [0u8; 4];
        let skeleton: Vec<char> = unicode_security::skeleton(n.encode_utf8(&mut buf))
            .filter(|s| !is_mark(*s))
            .collect();
        if !skeleton.is_empty() && skeleton.iter().all(char::is_ascii) {
            out.extend(skeleton);
        } else {
            out.push(n);
        }
    }
    out
}

/// The first folded character of `c`.
fn fold_first(c: char) -> Option<char> {
    if c.is_ascii() {
        Some(c)
    } else {
        fold(c).into_iter().next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_fold_and_map_back() {
        let original = "key ѕk-ｐｒｏｊ and о";
        let f = Folded::new(original, true);
        assert_eq!(f.text, "key sk-proj and o");
        let at = f.text.find("sk-proj").unwrap();
        let back = f.original(at..at + "sk-proj".len());
        assert_eq!(&original[back], "ѕk-ｐｒｏｊ");
    }

    #[test]
    fn ascii_is_kept_and_split_tokens_join() {
        let f = Folded::new("m1 l0\nabc_\ndef\n next", true);
        assert_eq!(f.text, "m1 l0abc_def\n next");
        let at = f.text.find("abc_def").unwrap();
        assert_eq!(f.original(at..at + 7), 6..14);
    }
}

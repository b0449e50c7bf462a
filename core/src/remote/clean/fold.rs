//! The normalised copy of a remote text that secrets and fence markers are
//! looked for in, with the map back to the text as sent: each character
//! NFKC-normalised, combining marks dropped, a non-ASCII look-alike folded to
//! its ASCII prototype (UTS #39 confusables: Cyrillic `ѕ`, Greek `ο`,
//! full-width forms, hyphen look-alikes), and a line break between two
//! token characters dropped (a secret split across two lines reads as one).
//! ASCII characters are kept as they are (the confusables map `1` to `l` and
//! `m` to `rn`, which would blind the credential patterns).

use std::ops::Range;

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

impl Folded {
    /// Folds `original` (already stripped of hidden and control
    /// characters); with `join`, a line break between two token characters
    /// is dropped (a second copy without joins keeps a key at the start of
    /// a line whole).
    pub(super) fn new(original: &str, join: bool) -> Self {
        let mut text = String::with_capacity(original.len());
        let mut map = Vec::with_capacity(original.len());
        let mut joins = Vec::new();
        let mut chars = original.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let range = at..at + c.len_utf8();
            if c.is_ascii() {
                let joins_here = join
                    && c == '\n'
                    && text.chars().next_back().is_some_and(is_token_char)
                    && chars
                        .peek()
                        .is_some_and(|&(_, next)| fold_first(next).is_some_and(is_token_char));
                if joins_here {
                    joins.push(text.len());
                } else {
                    map.push((text.len(), range));
                    text.push(c);
                }
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

/// The folded form of one non-ASCII character: its NFKC form without
/// combining marks, each character of it folded to an ASCII look-alike
/// where the confusables have one.
fn fold(c: char) -> Vec<char> {
    let mut out = Vec::new();
    for n in std::iter::once(c).nfkc() {
        if n.is_ascii() {
            out.push(n);
            continue;
        }
        if get_general_category(n) == GeneralCategory::NonspacingMark {
            continue;
        }
        let mut buf = [0u8; 4];
        let skeleton: Vec<char> = unicode_security::skeleton(n.encode_utf8(&mut buf))
            .filter(|s| get_general_category(*s) != GeneralCategory::NonspacingMark)
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

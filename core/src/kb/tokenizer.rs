//! The analyzer of catalog text and queries: identifiers stay findable whole
//! and by their parts.
//!
//! A word is a run of letters and digits, joined by `.`, `_`, `-`, `/`, `:`,
//! `@`, `+` or `#` when these sit between two letters or digits. Each word is
//! indexed whole, then by its pieces between the major joiners (`/`, `:`, `@`),
//! then by its atomic parts (split on every joiner and at camelCase humps):
//!
//! - `v1.8.2` gives `v1.8.2`, `v1`, `8`, `2`
//! - `kb_search` gives `kb_search`, `kb`, `search`
//! - `Deployment/harbor-core` gives `deployment/harbor-core`, `deployment`,
//!   `harbor-core`, `harbor`, `core`
//! - `EC2NodeClass` gives `ec2nodeclass`, `ec2`, `node`, `class`
//!
//! Tokens are lowercased, ASCII-folded, plain words stemmed (English), and tokens longer
//! than 100 bytes are dropped. Queries go through the same analyzer, so a
//! query for an identifier matches its whole token first.

use tantivy::tokenizer::{
    AsciiFoldingFilter, RemoveLongFilter, TextAnalyzer, Token, TokenStream, Tokenizer,
};

use super::stem::StemPlainWords;

/// The name the analyzer is registered under in the index.
pub(crate) const ANALYZER_NAME: &str = "kb_identifier";

/// Builds the analyzer used for every text field and every query.
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(IdentifierTokenizer::default())
        .filter(RemoveLongFilter::limit(100))
        .filter(AsciiFoldingFilter)
        .filter(StemPlainWords)
        .build()
}

/// The weight of a part of an identifier in a query, relative to the whole
/// identifier: an entry that holds `harbor-core` ranks above one that says
/// `harbor` and `core` apart.
pub(crate) const PART_WEIGHT: f32 = 0.15;

/// The distinct tokens of a query with their weight, in order of first
/// appearance: the whole of each word weighs 1, its pieces and parts
/// [`PART_WEIGHT`].
pub(crate) fn weighted_query_tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, f32)> {
    let mut tokens: Vec<(String, f32)> = Vec::new();
    let mut words = Vec::new();
    for_each_word(text, |start, end| words.push((start, end)));
    for (start, end) in words {
        let mut stream = analyzer.token_stream(&text[start..end]);
        let mut first = true;
        while let Some(token) = stream.next() {
            let weight = if first { 1.0 } else { PART_WEIGHT };
            first = false;
            match tokens.iter_mut().find(|(t, _)| *t == token.text) {
                Some((_, w)) => *w = w.max(weight),
                None => tokens.push((token.text.clone(), weight)),
            }
        }
    }
    tokens
}

/// The distinct tokens of `text` (in order of first appearance).
#[cfg(test)]
fn distinct_tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while let Some(token) = stream.next() {
        if !tokens.iter().any(|t| t == &token.text) {
            tokens.push(token.text.clone());
        }
    }
    tokens
}

/// Splits text into identifier-aware tokens (lowercased). It keeps its
/// token buffer between texts, so indexing allocates little.
#[derive(Debug, Clone, Default)]
pub(crate) struct IdentifierTokenizer {
    buffer: TokenBuffer,
}

/// The tokens of one text, produced up front into the tokenizer's buffer.
pub(crate) struct IdentifierTokenStream<'a> {
    tokens: &'a mut [Token],
    next: usize,
}

impl Tokenizer for IdentifierTokenizer {
    type TokenStream<'a> = IdentifierTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        self.buffer.len = 0;
        for_each_word(text, |start, end| {
            push_word(&text[start..end], start, &mut self.buffer);
        });
        let len = self.buffer.len;
        IdentifierTokenStream {
            tokens: &mut self.buffer.tokens[..len],
            next: 0,
        }
    }
}

impl TokenStream for IdentifierTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

/// Tokens whose `String`s are reused from one text to the next: the first
/// `len` are the current text's.
#[derive(Debug, Clone, Default)]
struct TokenBuffer {
    tokens: Vec<Token>,
    len: usize,
    parts: Vec<(usize, usize)>,
}

impl TokenBuffer {
    /// Appends `text` lowercased as the next token, unless the same token at
    /// the same offset was just pushed.
    fn push(&mut self, text: &str, offset: usize) {
        if self.len == self.tokens.len() {
            self.tokens.push(Token::default());
        }
        let slot = &mut self.tokens[self.len];
        slot.text.clear();
        if text.is_ascii() {
            slot.text.push_str(text);
            slot.text.make_ascii_lowercase();
        } else {
            slot.text.extend(text.chars().flat_map(char::to_lowercase));
        }
        slot.offset_from = offset;
        slot.offset_to = offset + text.len();
        slot.position = self.len;
        slot.position_length = 1;
        let (done, slot) = self.tokens.split_at(self.len);
        let slot = &slot[0];
        let repeated = done
            .iter()
            .rev()
            .take(16)
            .any(|t| t.offset_from == offset && t.text == slot.text);
        if !repeated {
            self.len += 1;
        }
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

fn is_major_joiner(c: char) -> bool {
    matches!(c, '/' | ':' | '@')
}

fn is_joiner(c: char) -> bool {
    is_major_joiner(c) || matches!(c, '.' | '_' | '-' | '+' | '#')
}

/// Calls `f` with the byte range of each word of `text`: runs of word
/// characters, joined by single joiners that sit between word characters.
fn for_each_word(text: &str, mut f: impl FnMut(usize, usize)) {
    let mut chars = text.char_indices().peekable();
    let mut start: Option<usize> = None;
    let mut end = 0;
    while let Some((i, c)) = chars.next() {
        if is_word_char(c) {
            start.get_or_insert(i);
            end = i + c.len_utf8();
        } else if is_joiner(c)
            && start.is_some()
            && end == i
            && chars.peek().is_some_and(|&(_, n)| is_word_char(n))
        {
            // joined: the word continues after this character
            end = i + c.len_utf8();
        } else if let Some(s) = start.take() {
            f(s, end);
        }
    }
    if let Some(s) = start {
        f(s, end);
    }
}

/// Whether a word has no parts: no joiner, and no capital after its first
/// character (most words of a text).
fn is_plain(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next();
    chars.all(|c| !is_joiner(c) && !c.is_uppercase())
}

/// Pushes the word whole, its major pieces, and its atomic parts.
fn push_word(word: &str, offset: usize, buffer: &mut TokenBuffer) {
    buffer.push(word, offset);
    if is_plain(word) {
        return;
    }
    let mut piece_start = 0;
    for (i, c) in word
        .char_indices()
        .chain(std::iter::once((word.len(), '/')))
    {
        if !is_major_joiner(c) {
            continue;
        }
        let piece = &word[piece_start..i];
        if !piece.is_empty() {
            if piece.len() != word.len() {
                buffer.push(piece, offset + piece_start);
            }
            push_parts(piece, offset + piece_start, buffer);
        }
        piece_start = i + c.len_utf8();
    }
}

/// Pushes the atomic parts of a piece: split on every joiner and at
/// camelCase humps (`EC2NodeClass` gives `EC2`, `Node`, `Class`;
/// `HTTPServer` gives `HTTP`, `Server`). Letters and digits stay together.
fn push_parts(piece: &str, offset: usize, buffer: &mut TokenBuffer) {
    let mut parts = std::mem::take(&mut buffer.parts);
    parts.clear();
    let mut start: Option<usize> = None;
    let mut prev: Option<char> = None;
    let mut chars = piece.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_joiner(c) {
            if let Some(s) = start.take() {
                parts.push((s, i));
            }
            prev = Some(c);
            continue;
        }
        if let (Some(s), Some(p)) = (start, prev) {
            let next = chars.peek().map(|&(_, n)| n);
            let hump = c.is_uppercase()
                && ((p.is_lowercase() || p.is_numeric())
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase)));
            if hump {
                parts.push((s, i));
                start = Some(i);
            }
        }
        start.get_or_insert(i);
        prev = Some(c);
    }
    if let Some(s) = start {
        parts.push((s, piece.len()));
    }
    if parts.len() >= 2 {
        for &(s, e) in &parts {
            buffer.push(&piece[s..e], offset + s);
        }
    }
    buffer.parts = parts;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Vec<String> {
        let mut tokenizer = IdentifierTokenizer::default();
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            out.push(t.text.clone());
        }
        out
    }

    #[test]
    fn identifiers_are_kept_whole_and_split() {
        assert_eq!(raw("v1.8.2"), ["v1.8.2", "v1", "8", "2"]);
        assert_eq!(raw("kb_search"), ["kb_search", "kb", "search"]);
        assert_eq!(raw("harbor-core"), ["harbor-core", "harbor", "core"]);
        assert_eq!(
            raw("EC2NodeClass"),
            ["ec2nodeclass", "ec2", "node", "class"]
        );
        assert_eq!(raw("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(
            raw("Deployment/harbor-core"),
            [
                "deployment/harbor-core",
                "deployment",
                "harbor-core",
                "harbor",
                "core"
            ]
        );
    }

    #[test]
    fn punctuation_around_words_is_not_part_of_them() {
        assert_eq!(raw("See v1.8.2."), ["see", "v1.8.2", "v1", "8", "2"]);
        assert_eq!(raw("--dry-run, (x)"), ["dry-run", "dry", "run", "x"]);
        assert_eq!(raw("a -- b"), ["a", "b"]);
        assert_eq!(raw(""), Vec::<String>::new());
        assert_eq!(raw("... --- ///"), Vec::<String>::new());
    }

    #[test]
    fn analyzer_stems_and_folds() {
        let mut a = analyzer();
        assert_eq!(
            distinct_tokens(&mut a, "Restarts café"),
            ["restart", "cafe"]
        );
        assert_eq!(distinct_tokens(&mut a, "restart restarts"), ["restart"]);
    }

    #[test]
    fn query_parts_weigh_less_than_whole_words() {
        let mut a = analyzer();
        assert_eq!(
            weighted_query_tokens(&mut a, "harbor-core core"),
            [
                ("harbor-core".to_string(), 1.0),
                ("harbor".to_string(), PART_WEIGHT),
                ("core".to_string(), 1.0)
            ]
        );
    }
}

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
    AsciiFoldingFilter, RemoveLongFilter, TextAnalyzer, Token, TokenFilter, TokenStream, Tokenizer,
};

/// The name the analyzer is registered under in the index.
pub const ANALYZER_NAME: &str = "kb_identifier";

/// Builds the analyzer used for every text field and every query.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(IdentifierTokenizer)
        .filter(RemoveLongFilter::limit(100))
        .filter(AsciiFoldingFilter)
        .filter(StemPlainWords)
        .build()
}

/// Stems plain words (letters only) with the English Snowball stemmer;
/// identifiers (`harbor-core`, `v1.8.2`, `ec2`) are left as they are.
#[derive(Debug, Clone, Copy, Default)]
pub struct StemPlainWords;

impl TokenFilter for StemPlainWords {
    type Tokenizer<T: Tokenizer> = StemPlainWordsFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> StemPlainWordsFilter<T> {
        StemPlainWordsFilter { inner: tokenizer }
    }
}

/// The tokenizer [`StemPlainWords`] wraps around.
#[derive(Debug, Clone)]
pub struct StemPlainWordsFilter<T> {
    inner: T,
}

impl<T: Tokenizer> Tokenizer for StemPlainWordsFilter<T> {
    type TokenStream<'a> = StemPlainWordsStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        StemPlainWordsStream {
            tail: self.inner.token_stream(text),
            stemmer: frostem::Stemmer::new(frostem::Algorithm::English),
        }
    }
}

/// The token stream of [`StemPlainWordsFilter`].
pub struct StemPlainWordsStream<T> {
    tail: T,
    stemmer: frostem::Stemmer,
}

impl<T: TokenStream> TokenStream for StemPlainWordsStream<T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if token.text.chars().all(char::is_alphabetic)
            && let std::borrow::Cow::Owned(stemmed) = self.stemmer.stem(&token.text)
        {
            token.text = stemmed;
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

/// The weight of a part of an identifier in a query, relative to the whole
/// identifier: an entry that holds `harbor-core` ranks above one that says
/// `harbor` and `core` apart.
pub const PART_WEIGHT: f32 = 0.15;

/// The distinct tokens of a query with their weight, in order of first
/// appearance: the whole of each word weighs 1, its pieces and parts
/// [`PART_WEIGHT`].
pub fn weighted_query_tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, f32)> {
    let mut tokens: Vec<(String, f32)> = Vec::new();
    for (start, end) in words(text) {
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

/// Splits text into identifier-aware tokens (lowercased).
#[derive(Debug, Clone, Copy, Default)]
pub struct IdentifierTokenizer;

/// The tokens of one text, produced up front.
pub struct IdentifierTokenStream {
    tokens: Vec<Token>,
    next: usize,
}

impl Tokenizer for IdentifierTokenizer {
    type TokenStream<'a> = IdentifierTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        let mut tokens = Vec::new();
        for (start, end) in words(text) {
            push_word(&text[start..end], start, &mut tokens);
        }
        IdentifierTokenStream { tokens, next: 0 }
    }
}

impl TokenStream for IdentifierTokenStream {
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

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

fn is_major_joiner(c: char) -> bool {
    matches!(c, '/' | ':' | '@')
}

fn is_joiner(c: char) -> bool {
    is_major_joiner(c) || matches!(c, '.' | '_' | '-' | '+' | '#')
}

/// Byte ranges of the words of `text`: runs of word characters, joined by
/// single joiners that sit between word characters.
fn words(text: &str) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
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
            words.push((s, end));
        }
    }
    if let Some(s) = start {
        words.push((s, end));
    }
    words
}

fn push_token(text: &str, offset: usize, len: usize, tokens: &mut Vec<Token>) {
    let lower = text.to_lowercase();
    if tokens
        .iter()
        .rev()
        .take(16)
        .any(|t| t.text == lower && t.offset_from == offset)
    {
        return;
    }
    let position = tokens.len();
    tokens.push(Token {
        offset_from: offset,
        offset_to: offset + len,
        position,
        text: lower,
        position_length: 1,
    });
}

/// Pushes the word whole, its major pieces, and its atomic parts.
fn push_word(word: &str, offset: usize, tokens: &mut Vec<Token>) {
    push_token(word, offset, word.len(), tokens);
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
                push_token(piece, offset + piece_start, piece.len(), tokens);
            }
            push_parts(piece, offset + piece_start, tokens);
        }
        piece_start = i + c.len_utf8();
    }
}

/// Pushes the atomic parts of a piece: split on every joiner and at
/// camelCase humps (`EC2NodeClass` gives `EC2`, `Node`, `Class`;
/// `HTTPServer` gives `HTTP`, `Server`). Letters and digits stay together.
fn push_parts(piece: &str, offset: usize, tokens: &mut Vec<Token>) {
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut start: Option<usize> = None;
    for (n, &(i, c)) in chars.iter().enumerate() {
        if is_joiner(c) {
            if let Some(s) = start.take() {
                parts.push((s, i));
            }
            continue;
        }
        if let Some(s) = start
            && n > 0
        {
            let prev = chars[n - 1].1;
            let next = chars.get(n + 1).map(|&(_, c)| c);
            let hump = c.is_uppercase()
                && ((prev.is_lowercase() || prev.is_numeric())
                    || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)));
            if hump {
                parts.push((s, i));
                start = Some(i);
            }
        }
        start.get_or_insert(i);
    }
    if let Some(s) = start {
        parts.push((s, piece.len()));
    }
    if parts.len() < 2 {
        return;
    }
    for (s, e) in parts {
        push_token(&piece[s..e], offset + s, e - s, tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Vec<String> {
        let mut tokenizer = IdentifierTokenizer;
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

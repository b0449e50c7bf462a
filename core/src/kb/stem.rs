//! Stemming of plain words only, with a cache: the English Snowball stemmer
//! (tantivy's own, `frostem`) applied to tokens made of letters, so that
//! `restarts` finds `restart` while `harbor-core`, `v1.8.2` or `ec2` stay as
//! they are.

use std::collections::HashMap;

use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Most words remembered per analyzer before the cache starts over.
const MAX_CACHED_STEMS: usize = 100_000;

/// Stems plain words (letters only) with the English Snowball stemmer;
/// identifiers are left as they are.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StemPlainWords;

impl TokenFilter for StemPlainWords {
    type Tokenizer<T: Tokenizer> = StemPlainWordsFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> StemPlainWordsFilter<T> {
        StemPlainWordsFilter {
            inner: tokenizer,
            stemmer: frostem::Stemmer::new(frostem::Algorithm::English),
            cache: HashMap::new(),
        }
    }
}

/// The tokenizer [`StemPlainWords`] wraps around. Each clone (one per
/// indexing thread) keeps its own cache of stems.
#[derive(Clone)]
pub(crate) struct StemPlainWordsFilter<T> {
    inner: T,
    stemmer: frostem::Stemmer,
    cache: HashMap<Box<str>, Box<str>>,
}

impl<T: Tokenizer> Tokenizer for StemPlainWordsFilter<T> {
    type TokenStream<'a> = StemPlainWordsStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        if self.cache.len() > MAX_CACHED_STEMS {
            self.cache.clear();
        }
        StemPlainWordsStream {
            tail: self.inner.token_stream(text),
            stemmer: self.stemmer,
            cache: &mut self.cache,
        }
    }
}

/// The token stream of [`StemPlainWordsFilter`].
pub(crate) struct StemPlainWordsStream<'a, T> {
    tail: T,
    stemmer: frostem::Stemmer,
    cache: &'a mut HashMap<Box<str>, Box<str>>,
}

fn is_plain_word(text: &str) -> bool {
    if text.is_ascii() {
        text.bytes().all(|b| b.is_ascii_alphabetic())
    } else {
        text.chars().all(char::is_alphabetic)
    }
}

impl<T: TokenStream> TokenStream for StemPlainWordsStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if !is_plain_word(&token.text) {
            return true;
        }
        if let Some(stem) = self.cache.get(token.text.as_str()) {
            if **stem != *token.text {
                token.text.clear();
                token.text.push_str(stem);
            }
            return true;
        }
        let stem: Box<str> = self.stemmer.stem(&token.text).into();
        let word: Box<str> = token.text.as_str().into();
        if *stem != *token.text {
            token.text.clear();
            token.text.push_str(&stem);
        }
        self.cache.insert(word, stem);
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

//! The tantivy index of a catalog (in RAM) and the searchable snapshot built
//! from it.
//!
//! Fields: `title`, `description`, `resource` (with `alert_resource`), `tags`
//! and `body`, analyzed by [`super::tokenizer`] and scored with BM25, each
//! with a boost ([`FieldBoosts`]). `path` (raw, fast) identifies a document
//! for deletes and breaks score ties; `id` (fast) maps a hit to its entry.

use std::collections::HashMap;
use std::sync::Arc;

use tantivy::collector::TopDocs;
use tantivy::collector::sort_key::{SortBySimilarityScore, SortByString};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocAddress, Order, Score, Searcher, TantivyDocument, Term};

use super::entry::KbEntry;
use super::error::KbError;
use super::tokenizer::{self, ANALYZER_NAME};

/// Most distinct query tokens used (the rest of a very long query is ignored).
pub const MAX_QUERY_TOKENS: usize = 64;

/// The weight of each field in the BM25 sum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldBoosts {
    /// `title`.
    pub title: f32,
    /// `description`.
    pub description: f32,
    /// `resource` and `alert_resource`.
    pub resource: f32,
    /// `tags`.
    pub tags: f32,
    /// The markdown body.
    pub body: f32,
}

impl Default for FieldBoosts {
    /// The weights Herald ranks with: title, tags and resource above the body
    /// (shown to rank better on the labelled queries of `tests/kb_ranking.rs`).
    fn default() -> Self {
        Self {
            title: 3.0,
            description: 1.5,
            resource: 2.5,
            tags: 3.0,
            body: 1.0,
        }
    }
}

impl FieldBoosts {
    /// Every field weighs the same (plain BM25 over all fields).
    pub fn uniform() -> Self {
        Self {
            title: 1.0,
            description: 1.0,
            resource: 1.0,
            tags: 1.0,
            body: 1.0,
        }
    }
}

/// The fields of the index schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KbFields {
    pub path: Field,
    pub id: Field,
    pub title: Field,
    pub description: Field,
    pub resource: Field,
    pub tags: Field,
    pub body: Field,
}

impl KbFields {
    fn weighted(&self, boosts: &FieldBoosts) -> [(Field, f32); 5] {
        [
            (self.title, boosts.title),
            (self.description, boosts.description),
            (self.resource, boosts.resource),
            (self.tags, boosts.tags),
            (self.body, boosts.body),
        ]
    }
}

/// The schema of the index and its fields.
pub(crate) fn schema() -> (Schema, KbFields) {
    let mut builder = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(ANALYZER_NAME)
        .set_index_option(IndexRecordOption::WithFreqs);
    let text = TextOptions::default().set_indexing_options(indexing.clone());
    // Short fields (a title, a resource, a few tags) are not normalized by
    // length: their length says nothing about relevance, and a field most
    // entries lack would otherwise score a match far too low.
    let short = TextOptions::default().set_indexing_options(indexing.set_fieldnorms(false));
    let fields = KbFields {
        path: builder.add_text_field("path", STRING | FAST),
        id: builder.add_u64_field("id", FAST),
        title: builder.add_text_field("title", short.clone()),
        description: builder.add_text_field("description", text.clone()),
        resource: builder.add_text_field("resource", short.clone()),
        tags: builder.add_text_field("tags", short),
        body: builder.add_text_field("body", text),
    };
    (builder.build(), fields)
}

/// The tantivy document of an entry.
pub(crate) fn document(fields: &KbFields, id: u64, entry: &KbEntry) -> TantivyDocument {
    let mut doc = TantivyDocument::new();
    doc.add_text(fields.path, &entry.path);
    doc.add_u64(fields.id, id);
    doc.add_text(fields.title, &entry.title);
    for (field, value) in [
        (fields.description, &entry.description),
        (fields.resource, &entry.resource),
        (fields.resource, &entry.alert_resource),
    ] {
        if let Some(value) = value {
            doc.add_text(field, value);
        }
    }
    for tag in &entry.tags {
        doc.add_text(fields.tags, tag);
    }
    doc.add_text(fields.body, &entry.body);
    doc
}

/// One search hit.
#[derive(Debug, Clone)]
pub struct KbHit {
    /// The entry found.
    pub entry: Arc<KbEntry>,
    /// Its BM25 score (higher is better).
    pub score: f32,
}

/// A file skipped because it is not a valid entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedFile {
    /// The catalog-relative path.
    pub path: String,
    /// Why it was skipped.
    pub reason: String,
}

/// One immutable, searchable version of the catalog. Searches hold it (an
/// `Arc`) for their whole duration, so a re-index never disturbs them.
pub(crate) struct Snapshot {
    pub(crate) searcher: Searcher,
    pub(crate) fields: KbFields,
    pub(crate) by_path: HashMap<String, Arc<KbEntry>>,
    pub(crate) by_id: HashMap<u64, Arc<KbEntry>>,
    pub(crate) skipped: Vec<SkippedFile>,
    pub(crate) generation: u64,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("entries", &self.by_path.len())
            .field("skipped", &self.skipped.len())
            .field("generation", &self.generation)
            .finish()
    }
}

impl Snapshot {
    /// The `k` best hits for `query`, best first, ties by path.
    pub(crate) fn search(
        &self,
        analyzer: &mut TextAnalyzer,
        query: &str,
        k: usize,
        boosts: &FieldBoosts,
    ) -> Result<Vec<KbHit>, KbError> {
        let mut tokens = tokenizer::weighted_query_tokens(analyzer, query);
        tokens.truncate(MAX_QUERY_TOKENS);
        if k == 0 || tokens.is_empty() || self.by_id.is_empty() {
            return Ok(Vec::new());
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (token, weight) in &tokens {
            for (field, boost) in self.fields.weighted(boosts) {
                if boost > 0.0 {
                    let term = TermQuery::new(
                        Term::from_field_text(field, token),
                        IndexRecordOption::WithFreqs,
                    );
                    let boost = boost * weight;
                    clauses.push((
                        Occur::Should,
                        Box::new(BoostQuery::new(Box::new(term), boost)),
                    ));
                }
            }
        }
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let query = BooleanQuery::new(clauses);
        // The fast path (Block-WAND): one more than asked, to see whether a
        // tie crosses the cut; only then rank exactly by (score, path).
        let top = self
            .searcher
            .search(&query, &TopDocs::with_limit(k + 1).order_by_score())
            .map_err(search_failed)?;
        let addresses: Vec<(Score, DocAddress)> = if top.len() > k && top[k].0 == top[k - 1].0 {
            let exact = TopDocs::with_limit(k).order_by((
                (SortBySimilarityScore, Order::Desc),
                (SortByString::for_field("path"), Order::Asc),
            ));
            self.searcher
                .search(&query, &exact)
                .map_err(search_failed)?
                .into_iter()
                .map(|((score, _path), address)| (score, address))
                .collect()
        } else {
            top.into_iter().take(k).collect()
        };
        let mut hits = Vec::with_capacity(addresses.len());
        for (score, address) in addresses {
            let ids = self
                .searcher
                .segment_reader(address.segment_ord)
                .fast_fields()
                .u64("id")
                .map_err(search_failed)?;
            if let Some(entry) = ids.first(address.doc_id).and_then(|id| self.by_id.get(&id)) {
                hits.push(KbHit {
                    entry: entry.clone(),
                    score,
                });
            }
        }
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.entry.path.cmp(&b.entry.path))
        });
        Ok(hits)
    }
}

fn search_failed(e: tantivy::TantivyError) -> KbError {
    KbError::Index(e.to_string())
}

//! Finding Herald's tools by search, as hosts that defer MCP tools make the
//! model do (Claude Code's ToolSearch, Codex's `tool_search`: keywords over
//! names and descriptions; docs/hosts.md): a BM25 ranking over each tool's
//! name, title and description, for agent intents written from the agent
//! workflow of Herald's prompt and from how people ask a knowledge graph
//! questions, puts the right tool first for nearly all, and in the top 3 for
//! all.
//!
//! The ranking is plain BM25 (k1 = 1.2, b = 0.75) over lowercase words, with
//! no stemming and no synonyms: a description must use the words agents
//! search with, not merely their meaning.

use std::collections::HashMap;

use herald_core::config::Settings;
use herald_core::tools::Toolbox;

/// (what an agent searches for, the tool it needs)
const INTENTS: &[(&str, &str)] = &[
    ("start a task about supplier S-1001", "lorebase_context"),
    ("context for these records", "lorebase_context"),
    ("what the domain knows about a question", "lorebase_context"),
    (
        "overview of a record and its neighbors within a token budget",
        "lorebase_context",
    ),
    ("what kinds and attributes exist", "lorebase_schema"),
    ("show the schema of the domain", "lorebase_schema"),
    ("attribute types of a kind", "lorebase_schema"),
    (
        "which operations can I run and their parameters",
        "lorebase_schema",
    ),
    ("read the values of supplier S-1001", "lorebase_get"),
    ("read one record by ref", "lorebase_get"),
    ("get record Product/P-77", "lorebase_get"),
    ("link counts of a record", "lorebase_get"),
    ("ground the user's words in the domain", "lorebase_resolve"),
    (
        "which stored values do the words red shoes mean",
        "lorebase_resolve",
    ),
    (
        "turn a question's words into a where filter",
        "lorebase_resolve",
    ),
    ("count products per brand", "lorebase_query"),
    ("filter records where color is red", "lorebase_query"),
    ("group records by an attribute and count", "lorebase_query"),
    (
        "list records of a kind ordered by an attribute",
        "lorebase_query",
    ),
    ("how many records match a filter", "lorebase_query"),
    ("find records by words", "lorebase_search"),
    ("full-text search for a supplier name", "lorebase_search"),
    (
        "semantic search by meaning with a query vector",
        "lorebase_search",
    ),
    ("walk the graph from a record", "lorebase_neighborhood"),
    (
        "records linked to a supplier two hops away",
        "lorebase_neighborhood",
    ),
    (
        "nodes and edges around seed records",
        "lorebase_neighborhood",
    ),
    ("where did this value come from", "lorebase_explain"),
    (
        "explain a record before trusting a value",
        "lorebase_explain",
    ),
    ("who changed this record and when", "lorebase_history"),
    ("history of a record", "lorebase_history"),
    (
        "values before and after each change of a record",
        "lorebase_history",
    ),
    (
        "evidence behind a record's current values",
        "lorebase_lineage",
    ),
    ("lineage of a value and its source", "lorebase_lineage"),
    ("what changed recently on the branch", "lorebase_changes"),
    ("recent commits by an author", "lorebase_changes"),
    (
        "catch up with revisions since one seen earlier",
        "lorebase_changes",
    ),
    ("compare two revisions", "lorebase_diff"),
    ("differences between two revisions", "lorebase_diff"),
    (
        "records added or removed between revisions",
        "lorebase_diff",
    ),
    ("update a record", "lorebase_execute"),
    ("create a new supplier", "lorebase_execute"),
    ("delete a record", "lorebase_execute"),
    ("write a change to the graph", "lorebase_execute"),
    (
        "run an operation as a dry run then commit",
        "lorebase_execute",
    ),
    ("open a proposal for review", "lorebase_execute"),
    ("list branches and their heads", "lorebase_branches"),
    ("which branch is protected", "lorebase_branches"),
    ("search the runbooks for an incident", "kb_search"),
    ("find a how-to note in the knowledge base", "kb_search"),
    ("read a knowledge base note by its path", "kb_get"),
];

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// BM25 over the documents; the names of the documents, best first.
fn rank(docs: &[(String, Vec<String>)], query: &str) -> Vec<(String, f64)> {
    let (k1, b) = (1.2, 0.75);
    let n = docs.len() as f64;
    let avg = docs.iter().map(|(_, d)| d.len()).sum::<usize>() as f64 / n;
    let mut df: HashMap<&str, f64> = HashMap::new();
    for (_, d) in docs {
        let mut seen: Vec<&str> = d.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            *df.entry(w).or_default() += 1.0;
        }
    }
    let query = words(query);
    let mut scored: Vec<(String, f64)> = docs
        .iter()
        .map(|(name, d)| {
            let len = d.len() as f64;
            let score = query
                .iter()
                .filter_map(|q| {
                    let f = d.iter().filter(|w| *w == q).count() as f64;
                    let df = *df.get(q.as_str())?;
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    Some(idf * f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * len / avg)))
                })
                .sum();
            (name.clone(), score)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored
}

/// The tools as search documents: name (its words), title, and the
/// description, whole or its first `chars` characters (what Qwen Code shows).
fn documents(chars: usize) -> Vec<(String, Vec<String>)> {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = Settings::default();
    settings.kb.dir = Some(dir.path().to_path_buf());
    Toolbox::new(settings)
        .unwrap()
        .definitions()
        .into_iter()
        .map(|d| {
            let opening: String = d.description.chars().take(chars).collect();
            let text = format!("{} {} {opening}", d.name.replace('_', " "), d.title);
            (d.name, words(&text))
        })
        .collect()
}

/// How many intents put their tool first, and those that put it second or
/// third or lower (with the top 3).
fn places(docs: &[(String, Vec<String>)]) -> (usize, Vec<String>, Vec<String>) {
    let mut first = 0;
    let mut seconds = Vec::new();
    let mut misses = Vec::new();
    for (intent, wanted) in INTENTS {
        let ranked = rank(docs, intent);
        let place = ranked.iter().position(|(name, _)| name == wanted);
        let line = format!(
            "{intent:?}: {wanted} at {place:?}; top 3: {:?}",
            &ranked[..3]
        );
        match place {
            Some(0) => first += 1,
            Some(1 | 2) => seconds.push(line),
            _ => misses.push(line),
        }
    }
    (first, seconds, misses)
}

#[test]
fn a_search_of_names_and_descriptions_finds_the_right_tool() {
    let docs = documents(usize::MAX);
    assert_eq!(docs.len(), 16);
    assert!(INTENTS.len() >= 40);
    let (first, seconds, misses) = places(&docs);
    assert!(
        misses.is_empty(),
        "not in the top 3:\n{}\nsecond or third:\n{}",
        misses.join("\n"),
        seconds.join("\n")
    );
    eprintln!(
        "{first} of {} intents rank their tool first; second or third: {seconds:?}",
        INTENTS.len()
    );
    // "Nearly all": at most one intent in twenty with the tool second or third.
    assert!(
        first * 20 >= INTENTS.len() * 19,
        "first for {first} of {} intents; the others:\n{}",
        INTENTS.len(),
        seconds.join("\n")
    );
}

#[test]
fn the_first_160_characters_are_enough_to_find_it() {
    let (first, seconds, misses) = places(&documents(160));
    eprintln!(
        "first 160 characters: {first} of {} first; second or third: {seconds:?}",
        INTENTS.len()
    );
    assert!(
        misses.is_empty(),
        "not in the top 3:\n{}",
        misses.join("\n")
    );
}

//! The words of a tool's `_meta["anthropic/searchHint"]`: what Claude Code's
//! ToolSearch matches besides the tool's name and description when it defers
//! MCP tools (docs/hosts.md, "What each host's tool search ranks on"). The
//! model never reads a hint, so a hint costs no tokens of the tool list.
//!
//! Claude Code 2.1.332 scores each word of a query once per tool: a word that
//! is a part of the tool's name weighs most, a word of the hint (whole word)
//! 4, a word of the description 2; it does not stem or drop stop words. So
//! a hint is phrases an agent would type for the tool (singular and plural,
//! the question words that pick it: "who", "when", "where"), then
//! [`COMMON_WORDS`], then the Domain's own words ([`DomainWords`]: its Kind,
//! attribute, value, Relation, Operation and lens names from Keeper's
//! schema), each kind of word on the tools an agent would use it with.

use crate::keeper::model::Schema;

/// The longest hint Claude Code reads (it cuts the rest).
pub const HINT_CHARS: usize = 4096;

/// The short words agents' searches are made of, in every built-in tool's
/// hint: Claude Code's own tools match them in their long descriptions (2
/// each), a Herald tool in its hint (4), so a search of an agent's words
/// about a Domain ("read the values of supplier S-1001") is not won by a
/// Claude Code tool that only shares its verb.
pub const COMMON_WORDS: &str = "a an the of for to in on at by with from and or is are was \
this that these it its my our me all any each one there do does can i we";

/// A built-in tool's whole static hint: its own phrases, then [`COMMON_WORDS`].
pub fn with_common_words(own: &str) -> String {
    format!("{own}. {COMMON_WORDS}")
}

/// Which of the Domain's words a tool's hint carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Share {
    /// Kind names, singular (one Record: `supplier`, `purchase order`) and their singular synonyms.
    Kinds,
    /// Kind names, plural (lists, counts, searches: `suppliers`) and their plural synonyms.
    Plural,
    /// Attribute names as words (`risk score`) and their synonyms.
    Attributes,
    /// Enum values (`high`, `open`): filters.
    Values,
    /// Relation names as words, with their simple forms (`used at`, `use`).
    Relations,
    /// Operation names as words (`flag supplier risk`).
    Operations,
    /// Lens and Trait names.
    Lenses,
}

/// The Domain's words each Lorebase tool's hint carries (a tool not listed
/// carries none).
const SHARES: &[(&str, &[Share])] = &[
    ("lorebase_context", &[Share::Kinds, Share::Lenses]),
    (
        "lorebase_schema",
        &[Share::Kinds, Share::Attributes, Share::Lenses],
    ),
    ("lorebase_get", &[Share::Kinds, Share::Attributes]),
    ("lorebase_resolve", &[Share::Attributes, Share::Values]),
    (
        "lorebase_query",
        &[Share::Plural, Share::Attributes, Share::Values],
    ),
    ("lorebase_search", &[Share::Plural]),
    ("lorebase_neighborhood", &[Share::Kinds, Share::Relations]),
    ("lorebase_explain", &[Share::Kinds, Share::Attributes]),
    ("lorebase_history", &[Share::Kinds]),
    ("lorebase_lineage", &[Share::Attributes]),
    (
        "lorebase_execute",
        &[Share::Kinds, Share::Attributes, Share::Operations],
    ),
];

/// The words of one Domain's schema, by kind of word, each list without
/// repeats, lower case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DomainWords {
    kinds: Vec<String>,
    plural: Vec<String>,
    attributes: Vec<String>,
    values: Vec<String>,
    relations: Vec<String>,
    operations: Vec<String>,
    lenses: Vec<String>,
}

impl DomainWords {
    /// The words of `schema` (the full detail adds enum values and synonyms).
    pub fn from_schema(schema: &Schema) -> Self {
        let mut w = Self::default();
        for kind in &schema.kinds {
            let words = split_name(&kind.name);
            push(&mut w.kinds, words.join(" "));
            push(&mut w.kinds, kind.name.to_lowercase());
            push(&mut w.plural, plural(&words));
            for synonym in &kind.synonyms {
                // A synonym that looks plural (`vendors`) goes with the plurals.
                let synonym = synonym.to_lowercase();
                if synonym.ends_with('s') && !synonym.ends_with("ss") {
                    push(&mut w.plural, synonym);
                } else {
                    push(&mut w.kinds, synonym);
                }
            }
            for attribute in &kind.attributes {
                push(&mut w.attributes, split_name(&attribute.name).join(" "));
                for synonym in &attribute.synonyms {
                    push(&mut w.attributes, synonym.to_lowercase());
                }
                for value in &attribute.values {
                    push(&mut w.values, value.to_lowercase());
                }
            }
            for operation in &kind.operations {
                push(&mut w.operations, split_name(operation).join(" "));
            }
        }
        for relation in &schema.relations {
            let forms: Vec<String> = split_name(&relation.name)
                .iter()
                .flat_map(|word| word_forms(word))
                .collect();
            push(&mut w.relations, forms.join(" "));
        }
        for operation in &schema.operations {
            push(&mut w.operations, split_name(&operation.name).join(" "));
        }
        for lens in &schema.lenses {
            push(&mut w.lenses, split_name(&lens.name).join(" "));
        }
        for t in &schema.traits {
            push(&mut w.lenses, split_name(&t.name).join(" "));
        }
        w
    }

    /// Whether the schema gave no words at all.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty() && self.relations.is_empty() && self.operations.is_empty()
    }

    /// `base` (a tool's static hint) with the Domain's words that `tool`
    /// carries, within [`HINT_CHARS`] (cut at a word).
    pub fn hint(&self, tool: &str, base: &str) -> String {
        let Some((_, shares)) = SHARES.iter().find(|(name, _)| *name == tool) else {
            return base.to_string();
        };
        let mut hint = base.to_string();
        let mut sep = ". ";
        for share in *shares {
            for word in self.words(*share) {
                if hint.len() + sep.len() + word.len() > HINT_CHARS {
                    return hint;
                }
                hint.push_str(sep);
                hint.push_str(word);
                sep = ", ";
            }
        }
        hint
    }

    fn words(&self, share: Share) -> &[String] {
        match share {
            Share::Kinds => &self.kinds,
            Share::Plural => &self.plural,
            Share::Attributes => &self.attributes,
            Share::Values => &self.values,
            Share::Relations => &self.relations,
            Share::Operations => &self.operations,
            Share::Lenses => &self.lenses,
        }
    }
}

/// Adds `word` unless it is empty, already there, or not plain text (a
/// schema is Keeper's text: no control or hidden characters reach a hint).
fn push(list: &mut Vec<String>, word: String) {
    let word = word.trim().to_string();
    let plain = word.chars().all(|c| !crate::tool::is_hidden_or_control(c));
    if !word.is_empty() && plain && word.len() <= 100 && !list.contains(&word) {
        list.push(word);
    }
}

/// `PurchaseOrder`, `purchase_order` -> `["purchase", "order"]`.
fn split_name(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' || c == '.' || c.is_whitespace() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The plural of a Kind's words: its last word's.
fn plural(words: &[String]) -> String {
    let Some((last, rest)) = words.split_last() else {
        return String::new();
    };
    let last = if last.ends_with('s') || last.ends_with('x') || last.ends_with("ch") {
        format!("{last}es")
    } else if let Some(stem) = last
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        format!("{stem}ies")
    } else {
        format!("{last}s")
    };
    rest.iter()
        .cloned()
        .chain([last])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A Relation's word and its simple forms: `used` -> `used use`,
/// `supplies` -> `supplies supply`, `ordered` -> `ordered order`.
fn word_forms(word: &str) -> Vec<String> {
    let mut forms = vec![word.to_string()];
    if let Some(stem) = word.strip_suffix("ies") {
        forms.push(format!("{stem}y"));
    } else if let Some(stem) = word.strip_suffix("ed") {
        forms.push(format!("{stem}e"));
        forms.push(stem.to_string());
    } else if let Some(stem) = word.strip_suffix('s').filter(|s| s.len() > 2) {
        forms.push(stem.to_string());
    } else if word.len() > 3 {
        forms.push(format!("{word}s"));
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        serde_json::from_value(serde_json::json!({
            "domain": "supply", "branch": "main", "revision": "r1",
            "kinds": [
                {"name": "PurchaseOrder", "key": "po_number", "title": "po_number", "record_count": 2,
                 "attributes": [{"name": "status", "type": "enum", "required": true, "sensitive": false,
                                 "values": ["open", "closed"]}],
                 "traits": [], "operations": ["create_purchase_order"], "embedded": false, "synonyms": ["PO"]},
                {"name": "Supplier", "key": "supplier_code", "title": "legal_name", "record_count": 1,
                 "attributes": [{"name": "risk_score", "type": "integer", "required": false, "sensitive": false}],
                 "traits": [], "operations": [], "embedded": false}
            ],
            "relations": [{"name": "used_at", "from": "Part", "to": "Plant", "cardinality": "many"},
                          {"name": "supplies", "from": "Supplier", "to": "Part", "cardinality": "many"}],
            "operations": [{"name": "flag_supplier_risk", "parameters": [], "review_policy": "review"}],
            "lenses": [{"name": "risk_review", "kinds": [], "traits": [], "relations": []}],
            "search": {"modes": ["lexical"]}
        }))
        .unwrap()
    }

    #[test]
    fn the_schema_words_go_to_the_tools_agents_use_them_with() {
        let words = DomainWords::from_schema(&schema());
        let query = words.hint("lorebase_query", "q");
        assert_eq!(
            query,
            "q. purchase orders, suppliers, status, risk score, open, closed"
        );
        let get = words.hint("lorebase_get", "g");
        assert!(
            get.contains("purchase order, purchaseorder, po, supplier"),
            "{get}"
        );
        assert!(!get.contains("suppliers"), "{get}");
        let near = words.hint("lorebase_neighborhood", "n");
        assert!(near.contains("used use us at"), "{near}");
        assert!(near.contains("supplies supply"), "{near}");
        let execute = words.hint("lorebase_execute", "e");
        assert!(
            execute.contains("flag supplier risk") && execute.contains("create purchase order")
        );
        assert_eq!(words.hint("lorebase_branches", "b"), "b");
        assert_eq!(words.hint("kb_search", "k"), "k");
    }

    #[test]
    fn a_hint_stays_within_what_claude_code_reads() {
        let mut s = schema();
        let kind = s.kinds[0].clone();
        s.kinds = (0..2000)
            .map(|i| {
                let mut k = kind.clone();
                k.name = format!("Kind{i}");
                k
            })
            .collect();
        let words = DomainWords::from_schema(&s);
        let hint = words.hint("lorebase_get", &with_common_words("read one record"));
        assert!(
            hint.len() <= HINT_CHARS && hint.len() > HINT_CHARS - 40,
            "{}",
            hint.len()
        );
        assert!(hint.starts_with("read one record. a an the"));
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(split_name("PurchaseOrder"), ["purchase", "order"]);
        assert_eq!(split_name("lead_time_days"), ["lead", "time", "days"]);
        assert_eq!(plural(&["category".into()]), "categories");
        assert_eq!(plural(&["box".into()]), "boxes");
    }
}

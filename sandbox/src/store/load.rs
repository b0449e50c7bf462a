//! Loads a Domain file into the store: checks it, generates the bulk, and
//! commits the sample history as content-addressed Revisions.

use std::collections::{BTreeMap, BTreeSet};

use keeper_wire::{ProposalRef, ProposalStatus, RecordRef};
use serde_json::Value;

use super::domain::{BranchState, DomainState, ProposalState};
use super::{ChangeSet, LinkKey, PendingChange, RevisionMeta, commit};
use crate::data::{DomainDef, DomainFile};

fn parse_ref(s: &str) -> Result<RecordRef, String> {
    s.parse().map_err(|e| format!("{e}"))
}

/// Parses and compiles one Domain file.
pub(crate) fn load_domain(yaml: &str) -> Result<DomainState, String> {
    // Through JSON values, so enums read as one-key maps (`{int: [1, 9]}`)
    // rather than YAML tags.
    let value: Value = serde_norway::from_str(yaml).map_err(|e| e.to_string())?;
    let file: DomainFile = serde_json::from_value(value).map_err(|e| e.to_string())?;
    compile(file)
}

fn compile(file: DomainFile) -> Result<DomainState, String> {
    let name = file.name.clone();
    let def = DomainDef {
        name: name.clone(),
        default_branch: file.default_branch.clone(),
        policy: file.policy.clone(),
        embedding: file.embedding.clone(),
        kinds: file.kinds.clone(),
        relations: file.relations.clone(),
        traits: file.traits.clone(),
        operations: file.operations.clone(),
        lenses: file.lenses.clone(),
        sources: file.sources.clone(),
    };
    for r in &def.relations {
        if def.kind(&r.from).is_none() || def.kind(&r.to).is_none() {
            return Err(format!("relation {} names an unknown Kind", r.name));
        }
    }

    // Every Record: the named ones, then the generated bulk.
    let mut records: BTreeMap<RecordRef, (BTreeMap<String, Value>, Option<String>)> =
        BTreeMap::new();
    for spec in &file.records {
        let r = parse_ref(&spec.record)?;
        if records
            .insert(r.clone(), (spec.values.clone(), spec.source.clone()))
            .is_some()
        {
            return Err(format!("{r} is listed twice"));
        }
    }
    for generator in &file.generate {
        for g in generator.records(&name)? {
            if records
                .insert(g.record.clone(), (g.values, g.source))
                .is_some()
            {
                return Err(format!("{} is generated twice", g.record));
            }
        }
    }
    for (r, (values, _)) in &records {
        let kind = def
            .kind(&r.kind)
            .ok_or_else(|| format!("{r}: unknown Kind"))?;
        for a in kind.attributes.iter().filter(|a| a.required) {
            if !values.contains_key(&a.name) {
                return Err(format!("{r}: {} is required", a.name));
            }
        }
        for (attr, v) in values {
            let spec = kind
                .attribute(attr)
                .ok_or_else(|| format!("{r}: unknown attribute {attr}"))?;
            if let Some(e) = spec.type_error(v) {
                return Err(format!("{r}.{attr}: {e}"));
            }
        }
        if values.get(&kind.key).and_then(Value::as_str) != Some(r.key.as_str()) {
            return Err(format!("{r}: {} must equal the key", kind.key));
        }
    }

    // Links: the named ones, then the generated ones.
    let mut keys_by_kind: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in records.keys() {
        keys_by_kind
            .entry(r.kind.clone())
            .or_default()
            .push(r.key.clone());
    }
    let mut links: BTreeSet<LinkKey> = BTreeSet::new();
    for (rel, from, to) in &file.links {
        links.insert((rel.clone(), parse_ref(from)?, parse_ref(to)?));
    }
    for generator in &file.generate {
        links.extend(generator.links(&name, &keys_by_kind));
    }
    for (rel, from, to) in &links {
        let def_rel = def
            .relation(rel)
            .ok_or_else(|| format!("link {from} -> {to}: unknown relation {rel}"))?;
        if def_rel.from != from.kind || def_rel.to != to.kind {
            return Err(format!("link {rel} {from} -> {to}: wrong Kinds"));
        }
        if !records.contains_key(from) || !records.contains_key(to) {
            return Err(format!("link {rel} {from} -> {to}: no such Record"));
        }
    }

    // The sample history.
    let mut state = DomainState::new(def);
    let mut ids: Vec<String> = Vec::new();
    let mut parent = None;
    for spec in &file.revisions {
        let mut set = ChangeSet {
            attribute_order: state.def.attribute_order(),
            ..Default::default()
        };
        if spec.load {
            for (r, (values, source)) in &records {
                set.records
                    .push(PendingChange::Create(r.clone(), values.clone()));
                if let Some(s) = source {
                    set.sources.insert(r.clone(), s.clone());
                }
            }
            set.add_links = links.iter().cloned().collect();
        }
        for u in &spec.updates {
            let r = parse_ref(&u.record)?;
            set.records
                .push(PendingChange::Update(r.clone(), u.values.clone()));
            if !u.evidence.is_empty() {
                set.evidence.insert(r, u.evidence.clone());
            }
        }
        let proposal = spec.proposal.as_ref().map(|p| ProposalRef {
            id: p.id.clone(),
            status: ProposalStatus::Merged.into(),
            title: Some(p.title.clone()),
            branch: Some(p.branch.clone()),
        });
        let meta = RevisionMeta {
            time: spec.time.clone(),
            author: spec.author.clone(),
            origin_type: spec.origin_type,
            operation: spec.operation.clone(),
            message: spec.message.clone(),
            source: spec.source.clone(),
            proposal: proposal.clone(),
        };
        let rev = commit(parent.as_deref(), meta, &set).map_err(|e| e.to_string())?;
        if let Some(p) = &spec.proposal {
            state.proposals.insert(
                p.id.clone(),
                ProposalState {
                    id: p.id.clone(),
                    status: ProposalStatus::Merged,
                    branch: p.branch.clone(),
                    title: Some(p.title.clone()),
                    author: spec.author.clone(),
                    base: rev.parent.clone().unwrap_or_default(),
                },
            );
        }
        ids.push(rev.id.clone());
        state.add_revision(rev.clone());
        parent = Some(rev);
    }
    let head = ids
        .last()
        .cloned()
        .ok_or("a Domain needs at least one Revision")?;
    state.branches.insert(
        file.default_branch.clone(),
        BranchState {
            name: file.default_branch.clone(),
            head,
            protected: file.protected_branches.contains(&file.default_branch),
            owner: None,
        },
    );
    for b in &file.branches {
        let head = ids
            .get(b.at)
            .ok_or_else(|| format!("branch {}: no Revision {}", b.name, b.at))?;
        state.branches.insert(
            b.name.clone(),
            BranchState {
                name: b.name.clone(),
                head: head.clone(),
                protected: b.protected || file.protected_branches.contains(&b.name),
                owner: None,
            },
        );
    }
    for (tag, i) in &file.tags {
        let id = ids
            .get(*i)
            .ok_or_else(|| format!("tag {tag}: no Revision {i}"))?;
        state.tags.insert(tag.clone(), id.clone());
    }
    Ok(state)
}

/// The Domain `synthetic`: `records` Items in Groups, for benchmarks.
pub(crate) fn synthetic_file(records: usize) -> String {
    let groups = (records / 100).max(1);
    let items = records.saturating_sub(groups).max(1);
    format!(
        r#"
name: synthetic
# A large generated Domain for benchmarks.
embedding: {{model: sandbox-hash-16, dimension: 16}}
kinds:
  - name: Group
    key: code
    title: name
    attributes:
      - {{name: code, type: string, required: true}}
      - {{name: name, type: string, required: true}}
  - name: Item
    key: code
    title: name
    embedding_template: "{{name}}: {{description}}"
    attributes:
      - {{name: code, type: string, required: true}}
      - {{name: name, type: string, required: true}}
      - {{name: description, type: string}}
      - {{name: color, type: string}}
      - {{name: weight, type: number}}
      - {{name: rank, type: integer}}
relations:
  - {{name: member_of, from: Item, to: Group, cardinality: one}}
  - {{name: related_to, from: Item, to: Item, cardinality: many}}
generate:
  - kind: Group
    count: {groups}
    key_prefix: "G-"
    attributes:
      code: key
      name: {{words: [[North, South, East, West, Central], [Alpha, Beta, Gamma, Delta, Omega, Sigma]]}}
  - kind: Item
    count: {items}
    key_prefix: "I-"
    attributes:
      code: key
      name: {{words: [[steel, copper, oak, glass, nylon, cotton, carbon, rubber], [bolt, panel, gear, hinge, valve, cable, frame, spring, sensor]]}}
      description: {{sentence: {{words: [durable, light, heavy, precise, coated, recycled, certified, compact, sealed, flexible, industrial, marine, thermal, rated, standard, custom], min: 5, max: 12}}}}
      color: {{optional: {{p: 0.8, of: {{pick: [red, blue, green, black, white, grey]}}}}}}
      weight: {{number: [0.1, 250.0]}}
      rank: {{int: [1, 1000]}}
    links:
      - {{relation: member_of, to: Group, min: 1, max: 1}}
      - {{relation: related_to, to: Item, min: 0, max: 2}}
revisions:
  - time: "2026-10-01T07:00:00Z"
    author: usr_loader
    origin_type: import
    message: Generate the synthetic Domain
    load: true
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_domains_have_the_size_asked_for() {
        let state = load_domain(&synthetic_file(1_000)).unwrap();
        let head = state.head("main").unwrap();
        assert_eq!(head.snapshot.records.len(), 1_000);
        assert_eq!(head.id.len(), 64);
    }

    #[test]
    fn broken_files_are_refused() {
        assert!(load_domain("name: x\nkinds: []\nrevisions: []\n").is_err());
        let bad_value =
            synthetic_file(10).replace("rank: {int: [1, 1000]}", "rank: {pick: [\"x\"]}");
        assert!(load_domain(&bad_value).unwrap_err().contains("rank"));
    }
}

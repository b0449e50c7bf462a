//! The versioned store: content-addressed Revisions, each with the snapshot of
//! the Domain it leads to (Records with their provenance, and Links).

pub(crate) mod domain;
pub(crate) mod load;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::sync::{Arc, OnceLock};

use keeper_wire::{
    AttributeChange, ChangeCounts, ChangeType, Evidence, HistoryEntry, Link, Origin, OriginType,
    ProposalRef, RecordRef,
};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::problem::{ApiError, ApiResult};
use crate::text::SearchIndex;

/// A Link: (relation, from, to).
pub(crate) type LinkKey = (String, RecordRef, RecordRef);

/// Converts a stored Link to its wire shape.
pub(crate) fn wire_link(link: &LinkKey) -> Link {
    Link {
        relation: link.0.clone(),
        from: link.1.clone(),
        to: link.2.clone(),
    }
}

/// A Record as stored, with its provenance.
#[derive(Debug, Clone)]
pub(crate) struct StoredRecord {
    pub record: RecordRef,
    pub values: BTreeMap<String, Value>,
    /// How it was created.
    pub created: Origin,
    /// Per attribute, its last change.
    pub origins: BTreeMap<String, Origin>,
    /// Its changes, oldest first, with values.
    pub history: Vec<HistoryEntry>,
    /// The Proposals that changed it.
    pub proposals: Vec<ProposalRef>,
}

/// Links by Record, both directions.
#[derive(Debug, Default)]
pub(crate) struct Adjacency {
    /// Record -> (relation, other end, outgoing).
    pub edges: HashMap<RecordRef, Vec<(String, RecordRef, bool)>>,
}

/// The state of a Domain after a Revision.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    pub records: BTreeMap<RecordRef, Arc<StoredRecord>>,
    pub links: BTreeSet<LinkKey>,
    adjacency: OnceLock<Adjacency>,
    index: OnceLock<Arc<SearchIndex>>,
}

impl Snapshot {
    fn fork(&self) -> Self {
        Self {
            records: self.records.clone(),
            links: self.links.clone(),
            ..Default::default()
        }
    }

    pub(crate) fn get(&self, record: &RecordRef) -> Option<&Arc<StoredRecord>> {
        self.records.get(record)
    }

    /// The Records of one Kind, by key.
    pub(crate) fn of_kind<'a>(
        &'a self,
        kind: &str,
    ) -> impl Iterator<Item = &'a Arc<StoredRecord>> + 'a {
        let kind = kind.to_owned();
        self.records
            .range(RecordRef::new(kind.clone(), "")..)
            .take_while(move |(r, _)| r.kind == kind)
            .map(|(_, rec)| rec)
    }

    pub(crate) fn count_of_kind(&self, kind: &str) -> u64 {
        self.of_kind(kind).count() as u64
    }

    /// Links by Record (built on first use).
    pub(crate) fn adjacency(&self) -> &Adjacency {
        self.adjacency.get_or_init(|| {
            let mut adj = Adjacency::default();
            for (rel, from, to) in &self.links {
                adj.edges
                    .entry(from.clone())
                    .or_default()
                    .push((rel.clone(), to.clone(), true));
                adj.edges
                    .entry(to.clone())
                    .or_default()
                    .push((rel.clone(), from.clone(), false));
            }
            adj
        })
    }

    /// The lexical and vector index (built on first use).
    pub(crate) fn index(&self, build: impl FnOnce(&Snapshot) -> SearchIndex) -> Arc<SearchIndex> {
        self.index.get_or_init(|| Arc::new(build(self))).clone()
    }
}

/// Who made a Revision, when and how.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RevisionMeta {
    pub time: String,
    pub author: String,
    pub origin_type: OriginType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal: Option<ProposalRef>,
}

/// What a Revision did to one Record (values before and after).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RecordChange {
    #[serde(rename = "ref")]
    pub record: RecordRef,
    pub change: ChangeType,
    pub changes: Vec<AttributeChange>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub evidence: BTreeMap<String, Evidence>,
    /// The Source of the values (else the Revision's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// A Link a Revision added or removed.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LinkChange {
    pub link: LinkKey,
    pub added: bool,
}

/// A Revision: its content and the snapshot it leads to.
#[derive(Debug)]
pub(crate) struct Revision {
    pub id: String,
    pub parent: Option<String>,
    pub meta: RevisionMeta,
    pub records: Vec<RecordChange>,
    pub links: Vec<LinkChange>,
    pub snapshot: Arc<Snapshot>,
}

impl Revision {
    pub(crate) fn counts(&self) -> ChangeCounts {
        let mut c = ChangeCounts::default();
        for r in &self.records {
            match r.change {
                ChangeType::Created => c.created += 1,
                ChangeType::Updated => c.updated += 1,
                ChangeType::Deleted => c.deleted += 1,
            }
        }
        for l in &self.links {
            if l.added {
                c.created += 1;
            } else {
                c.deleted += 1;
            }
        }
        c
    }
}

/// One intended change to a Record.
#[derive(Debug, Clone)]
pub(crate) enum PendingChange {
    /// Create with these values.
    Create(RecordRef, BTreeMap<String, Value>),
    /// Set these values (`null` removes one).
    Update(RecordRef, BTreeMap<String, Value>),
    /// Delete the Record and its Links.
    Delete(RecordRef),
}

/// The changes of a commit.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChangeSet {
    pub records: Vec<PendingChange>,
    pub evidence: BTreeMap<RecordRef, BTreeMap<String, Evidence>>,
    pub sources: BTreeMap<RecordRef, String>,
    /// Per Kind, its attributes in schema order (the order of the changes).
    pub attribute_order: BTreeMap<String, Vec<String>>,
    pub add_links: Vec<LinkKey>,
}

/// Feeds serialized JSON into a hash without building the string.
struct HashWriter<'a>(&'a mut Sha256);

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The record changes of a change set against a snapshot (no-op values left out).
pub(crate) fn diff_changes(base: &Snapshot, set: &ChangeSet) -> ApiResult<Vec<RecordChange>> {
    let mut out: Vec<RecordChange> = Vec::new();
    for pending in &set.records {
        let (record, change, changes) = match pending {
            PendingChange::Create(r, values) => {
                if base.get(r).is_some() {
                    return Err(ApiError::new(
                        keeper_wire::ProblemCode::AlreadyExists,
                        format!("{r} already exists"),
                    ));
                }
                let changes = values
                    .iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(a, v)| AttributeChange {
                        attribute: a.clone(),
                        before: Some(Value::Null),
                        after: Some(v.clone()),
                    })
                    .collect();
                (r, ChangeType::Created, changes)
            }
            PendingChange::Update(r, values) => {
                let current = base
                    .get(r)
                    .ok_or_else(|| ApiError::not_found(format!("no Record {r}")))?;
                let changes: Vec<AttributeChange> = values
                    .iter()
                    .filter_map(|(a, v)| {
                        let before = current.values.get(a).cloned().unwrap_or(Value::Null);
                        (before != *v).then(|| AttributeChange {
                            attribute: a.clone(),
                            before: Some(before),
                            after: Some(v.clone()),
                        })
                    })
                    .collect();
                if changes.is_empty() {
                    continue;
                }
                (r, ChangeType::Updated, changes)
            }
            PendingChange::Delete(r) => {
                let current = base
                    .get(r)
                    .ok_or_else(|| ApiError::not_found(format!("no Record {r}")))?;
                let changes = current
                    .values
                    .iter()
                    .map(|(a, v)| AttributeChange {
                        attribute: a.clone(),
                        before: Some(v.clone()),
                        after: Some(Value::Null),
                    })
                    .collect();
                (r, ChangeType::Deleted, changes)
            }
        };
        let mut changes: Vec<AttributeChange> = changes;
        if let Some(order) = set.attribute_order.get(&record.kind) {
            changes.sort_by_key(|c| {
                order
                    .iter()
                    .position(|a| a == &c.attribute)
                    .unwrap_or(usize::MAX)
            });
        }
        out.push(RecordChange {
            record: record.clone(),
            change,
            changes,
            evidence: set.evidence.get(record).cloned().unwrap_or_default(),
            source: set.sources.get(record).cloned(),
        });
    }
    Ok(out)
}

/// Commits a change set on top of `parent`: the new Revision, content-addressed
/// (sha256 of parent, metadata and changes).
pub(crate) fn commit(
    parent: Option<&Revision>,
    meta: RevisionMeta,
    set: &ChangeSet,
) -> ApiResult<Arc<Revision>> {
    let empty = Snapshot::default();
    let base = parent.map(|p| p.snapshot.as_ref()).unwrap_or(&empty);
    let records = diff_changes(base, set)?;
    let mut links: Vec<LinkChange> = set
        .add_links
        .iter()
        .filter(|l| !base.links.contains(*l))
        .map(|l| LinkChange {
            link: l.clone(),
            added: true,
        })
        .collect();
    for rc in &records {
        if rc.change == ChangeType::Deleted {
            for l in base
                .links
                .iter()
                .filter(|l| l.1 == rc.record || l.2 == rc.record)
            {
                links.push(LinkChange {
                    link: l.clone(),
                    added: false,
                });
            }
        }
    }

    let mut hasher = Sha256::new();
    let content = serde_json::json!({
        "parent": parent.map(|p| p.id.as_str()),
        "meta": &meta,
    });
    let mut w = HashWriter(&mut hasher);
    let ok = serde_json::to_writer(&mut w, &content).is_ok()
        && serde_json::to_writer(&mut w, &records).is_ok()
        && serde_json::to_writer(&mut w, &links).is_ok();
    if !ok {
        return Err(ApiError::new(
            keeper_wire::ProblemCode::KeeperUnavailable,
            "could not hash the Revision",
        ));
    }
    let id: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();

    let mut snap = base.fork();
    let origin = |evidence: Option<Evidence>, source: &Option<String>| Origin {
        origin_type: meta.origin_type.into(),
        actor: meta.author.clone(),
        time: meta.time.clone(),
        revision: id.clone(),
        operation: meta.operation.clone(),
        source: source.clone().or_else(|| meta.source.clone()),
        evidence,
        proposal: meta.proposal.clone(),
    };
    for rc in &records {
        let entry = HistoryEntry {
            revision: id.clone(),
            time: meta.time.clone(),
            author: meta.author.clone(),
            origin_type: meta.origin_type.into(),
            operation: meta.operation.clone(),
            message: meta.message.clone(),
            change: rc.change.into(),
            changes: rc.changes.clone(),
        };
        match rc.change {
            ChangeType::Deleted => {
                snap.records.remove(&rc.record);
            }
            ChangeType::Created => {
                let mut values = BTreeMap::new();
                let mut origins = BTreeMap::new();
                for c in &rc.changes {
                    values.insert(c.attribute.clone(), c.after.clone().unwrap_or(Value::Null));
                    origins.insert(
                        c.attribute.clone(),
                        origin(rc.evidence.get(&c.attribute).cloned(), &rc.source),
                    );
                }
                snap.records.insert(
                    rc.record.clone(),
                    Arc::new(StoredRecord {
                        record: rc.record.clone(),
                        values,
                        created: origin(None, &rc.source),
                        origins,
                        history: vec![entry],
                        proposals: meta.proposal.iter().cloned().collect(),
                    }),
                );
            }
            ChangeType::Updated => {
                let Some(current) = snap.records.get(&rc.record) else {
                    continue;
                };
                let mut rec = StoredRecord::clone(current);
                for c in &rc.changes {
                    match c.after.clone().unwrap_or(Value::Null) {
                        Value::Null => {
                            rec.values.remove(&c.attribute);
                            rec.origins.remove(&c.attribute);
                        }
                        v => {
                            rec.values.insert(c.attribute.clone(), v);
                            rec.origins.insert(
                                c.attribute.clone(),
                                origin(rc.evidence.get(&c.attribute).cloned(), &rc.source),
                            );
                        }
                    }
                }
                rec.history.push(entry);
                if let Some(p) = &meta.proposal
                    && !rec.proposals.iter().any(|q| q.id == p.id)
                {
                    rec.proposals.push(p.clone());
                }
                snap.records.insert(rc.record.clone(), Arc::new(rec));
            }
        }
    }
    for l in &links {
        if l.added {
            snap.links.insert(l.link.clone());
        } else {
            snap.links.remove(&l.link);
        }
    }
    Ok(Arc::new(Revision {
        id,
        parent: parent.map(|p| p.id.clone()),
        meta,
        records,
        links,
        snapshot: Arc::new(snap),
    }))
}

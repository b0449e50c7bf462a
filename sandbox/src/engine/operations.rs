//! What an Operation would change: its parameters checked, its edits planned,
//! the Domain's rules checked (violations).

use std::collections::BTreeMap;

use keeper_wire::{Edit, Issue, RecordRef};
use serde_json::{Map, Value};

use super::ReadView;
use crate::data::{AttributeSpec, KindSpec};
use crate::problem::{ApiError, ApiResult};
use crate::store::{ChangeSet, PendingChange, diff_changes};

/// The planned run of an Operation.
pub(crate) struct Plan {
    pub set: ChangeSet,
    pub edits: Vec<Edit>,
    pub violations: Vec<Issue>,
}

enum Builtin {
    Create,
    Update,
    Delete,
}

fn issue(path: String, message: impl Into<String>) -> Issue {
    Issue {
        path,
        message: message.into(),
    }
}

fn param_type_ok(type_name: &str, v: &Value) -> bool {
    let spec = AttributeSpec {
        name: String::new(),
        type_name: type_name.to_string(),
        required: false,
        sensitive: false,
        description: None,
        values: Vec::new(),
        synonyms: Vec::new(),
        value_synonyms: BTreeMap::new(),
        min: None,
        max: None,
    };
    type_name == "enum" || spec.type_error(v).is_none()
}

/// Plans a run.
pub(crate) fn plan(view: &ReadView, op: &str, params: &Map<String, Value>) -> ApiResult<Plan> {
    let mut shape = Vec::new();
    let mut violations = Vec::new();
    let (kind, key, values, builtin): (
        &KindSpec,
        String,
        BTreeMap<String, Value>,
        Option<Builtin>,
    ) = if let Some(custom) = view.def.custom_operation(op) {
        let kind = view.kind(&custom.kind)?;
        for p in &custom.parameters {
            match params.get(&p.name) {
                None | Some(Value::Null) if p.required => {
                    shape.push(issue(format!("parameters.{}", p.name), "is required"));
                }
                Some(v) if !v.is_null() && !param_type_ok(&p.type_name, v) => shape.push(issue(
                    format!("parameters.{}", p.name),
                    format!("must be a {}", p.type_name),
                )),
                _ => {}
            }
        }
        for name in params.keys() {
            if !custom.parameters.iter().any(|p| &p.name == name) {
                shape.push(issue(
                    format!("parameters.{name}"),
                    format!("{op} has no parameter {name}"),
                ));
            }
        }
        let key = params
            .get(&custom.key_parameter)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut values = custom.set.clone();
        for (param, attr) in &custom.assign {
            if let Some(v) = params.get(param).filter(|v| !v.is_null()) {
                values.insert(attr.clone(), v.clone());
            }
        }
        (kind, key, values, None)
    } else {
        let (verb, rest) = op.split_once('_').unwrap_or((op, ""));
        let kind = view
            .def
            .kinds
            .iter()
            .find(|k| k.snake_name() == rest)
            .ok_or_else(|| ApiError::not_found(format!("no Operation {op:?}")))?;
        let builtin = match verb {
            "create" => Builtin::Create,
            "update" => Builtin::Update,
            _ => Builtin::Delete,
        };
        for name in params.keys() {
            let known = kind.attribute(name).is_some();
            if !known || (matches!(builtin, Builtin::Delete) && name != &kind.key) {
                shape.push(issue(
                    format!("parameters.{name}"),
                    format!("{op} has no parameter {name}"),
                ));
            }
        }
        let key = match params.get(&kind.key) {
            Some(Value::String(k)) if !k.is_empty() => k.clone(),
            Some(_) => {
                shape.push(issue(
                    format!("parameters.{}", kind.key),
                    "must be a non-empty string",
                ));
                String::new()
            }
            None => {
                shape.push(issue(format!("parameters.{}", kind.key), "is required"));
                String::new()
            }
        };
        let values: BTreeMap<String, Value> =
            params.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        if matches!(builtin, Builtin::Update) && values.len() < 2 {
            shape.push(issue(
                "parameters".into(),
                "give at least one attribute to change",
            ));
        }
        (kind, key, values, Some(builtin))
    };
    if !shape.is_empty() {
        return Err(ApiError::invalid_all(
            format!("the parameters of {op} are not valid"),
            shape,
        ));
    }

    let record = RecordRef::new(&kind.name, &key);
    let exists = view.snap().get(&record).is_some();
    let key_path = match view.def.custom_operation(op) {
        Some(c) => format!("parameters.{}", c.key_parameter),
        None => format!("parameters.{}", kind.key),
    };
    let pending = match builtin {
        Some(Builtin::Create) => {
            if exists {
                violations.push(issue(key_path.clone(), format!("{record} already exists")));
            }
            for a in kind.attributes.iter().filter(|a| a.required) {
                if values.get(&a.name).is_none_or(Value::is_null) {
                    violations.push(issue(format!("parameters.{}", a.name), "is required"));
                }
            }
            PendingChange::Create(record.clone(), values.clone())
        }
        Some(Builtin::Delete) => {
            if !exists {
                violations.push(issue(key_path.clone(), format!("no Record {record}")));
            }
            PendingChange::Delete(record.clone())
        }
        _ => {
            if !exists {
                violations.push(issue(key_path.clone(), format!("no Record {record}")));
            }
            let mut patch = values.clone();
            patch.remove(&kind.key);
            PendingChange::Update(record.clone(), patch)
        }
    };
    if !matches!(builtin, Some(Builtin::Delete)) {
        for (attr, v) in &values {
            let Some(spec) = kind.attribute(attr) else {
                continue;
            };
            let path = format!("parameters.{attr}");
            if v.is_null() {
                if spec.required {
                    violations.push(issue(path, "is required and cannot be removed"));
                }
            } else if let Some(e) = spec.type_error(v) {
                violations.push(issue(path, e));
            }
        }
        if let Some(Value::String(k)) = values.get(&kind.key)
            && k != &key
        {
            violations.push(issue(key_path, "the key cannot change"));
        }
    }
    let mut set = ChangeSet {
        attribute_order: view.def.attribute_order(),
        ..Default::default()
    };
    set.records.push(pending);
    let edits = if violations.is_empty() {
        diff_changes(view.snap(), &set)?
            .into_iter()
            .map(|rc| Edit {
                change: rc.change.into(),
                record: rc.record.clone(),
                changes: rc
                    .changes
                    .iter()
                    .map(|c| {
                        let mut c = c.clone();
                        c.before = c
                            .before
                            .as_ref()
                            .map(|v| view.shown(&rc.record.kind, &c.attribute, v));
                        c.after = c
                            .after
                            .as_ref()
                            .map(|v| view.shown(&rc.record.kind, &c.attribute, v));
                        c
                    })
                    .collect(),
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Plan {
        set,
        edits,
        violations,
    })
}

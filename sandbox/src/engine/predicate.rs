//! The filter predicates of the query DSL: checking and evaluating them.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use keeper_wire::{CompareOp, Issue, Predicate};
use serde_json::Value;

use super::ReadView;
use crate::data::KindSpec;
use crate::problem::{ApiError, ApiResult};

/// Checks a predicate against the Kinds it filters: one issue per wrong path
/// (validation-failed), forbidden on a masked attribute.
pub(crate) fn check(
    view: &ReadView,
    kinds: &[&KindSpec],
    p: &Predicate,
    path: &str,
) -> ApiResult<()> {
    let mut issues = Vec::new();
    walk(view, kinds, p, path, &mut issues, 0)?;
    if issues.is_empty() {
        Ok(())
    } else {
        Err(ApiError::invalid_all("the filter is not valid", issues))
    }
}

fn walk(
    view: &ReadView,
    kinds: &[&KindSpec],
    p: &Predicate,
    path: &str,
    issues: &mut Vec<Issue>,
    depth: usize,
) -> ApiResult<()> {
    let issue = |issues: &mut Vec<Issue>, path: String, msg: &str| {
        issues.push(Issue {
            path,
            message: msg.to_string(),
        });
    };
    if depth > 32 {
        issue(issues, path.into(), "nested too deeply (at most 32 levels)");
        return Ok(());
    }
    match p {
        Predicate::And { and: list } | Predicate::Or { or: list } => {
            let word = if matches!(p, Predicate::And { .. }) {
                "and"
            } else {
                "or"
            };
            if list.is_empty() {
                issue(
                    issues,
                    format!("{path}.{word}"),
                    "needs at least one predicate",
                );
            }
            for (i, q) in list.iter().enumerate() {
                walk(
                    view,
                    kinds,
                    q,
                    &format!("{path}.{word}[{i}]"),
                    issues,
                    depth + 1,
                )?;
            }
        }
        Predicate::Not { not } => {
            walk(view, kinds, not, &format!("{path}.not"), issues, depth + 1)?;
        }
        Predicate::Compare { attr, op, value } => {
            let owners: Vec<&&KindSpec> = kinds
                .iter()
                .filter(|k| k.attribute(attr).is_some())
                .collect();
            if owners.is_empty() {
                let names: Vec<&str> = kinds.iter().map(|k| k.name.as_str()).collect();
                issue(
                    issues,
                    format!("{path}.attr"),
                    &format!("no attribute {attr:?} in {}", names.join(", ")),
                );
                return Ok(());
            }
            for k in &owners {
                view.check_readable(&k.name, attr, &format!("{path}.attr"))?;
            }
            let vpath = format!("{path}.value");
            match (op, value) {
                (CompareOp::Exists, None | Some(Value::Bool(_))) => {}
                (CompareOp::Exists, Some(_)) => {
                    issue(issues, vpath, "exists takes true, false or no value");
                }
                (CompareOp::In, Some(Value::Array(_))) => {}
                (CompareOp::In, _) => issue(issues, vpath, "in takes a list of values"),
                (_, None | Some(Value::Null)) => issue(issues, vpath, "a value is required"),
                (CompareOp::Lt | CompareOp::Lte | CompareOp::Gt | CompareOp::Gte, Some(v))
                    if !(v.is_number() || v.is_string()) =>
                {
                    issue(issues, vpath, "compares a number, date or string");
                }
                (CompareOp::Contains, Some(v)) if !v.is_string() => {
                    issue(issues, vpath, "contains takes a string");
                }
                (_, Some(Value::Array(_) | Value::Object(_))) => {
                    issue(issues, vpath, "takes a single value");
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Orders two values of the same type (numbers numerically, strings and dates
/// lexically).
pub(crate) fn compare_values(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64()?.partial_cmp(&y.as_f64()?),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

fn equal(a: &Value, b: &Value) -> bool {
    compare_values(a, b).map_or(a == b, |o| o == Ordering::Equal)
}

/// Whether a Record's values satisfy the predicate. A comparison on a
/// missing value is false (so filters exclude Records without the value).
pub(crate) fn eval(p: &Predicate, values: &BTreeMap<String, Value>) -> bool {
    match p {
        Predicate::And { and } => and.iter().all(|q| eval(q, values)),
        Predicate::Or { or } => or.iter().any(|q| eval(q, values)),
        Predicate::Not { not } => !eval(not, values),
        Predicate::Compare { attr, op, value } => {
            let actual = values.get(attr).filter(|v| !v.is_null());
            if *op == CompareOp::Exists {
                let want = value.as_ref().and_then(Value::as_bool).unwrap_or(true);
                return actual.is_some() == want;
            }
            let (Some(actual), Some(operand)) = (actual, value.as_ref()) else {
                return false;
            };
            match op {
                CompareOp::Eq => equal(actual, operand),
                CompareOp::Ne => !equal(actual, operand),
                CompareOp::In => operand
                    .as_array()
                    .is_some_and(|list| list.iter().any(|x| equal(actual, x))),
                CompareOp::Lt => compare_values(actual, operand) == Some(Ordering::Less),
                CompareOp::Lte => matches!(
                    compare_values(actual, operand),
                    Some(Ordering::Less | Ordering::Equal)
                ),
                CompareOp::Gt => compare_values(actual, operand) == Some(Ordering::Greater),
                CompareOp::Gte => matches!(
                    compare_values(actual, operand),
                    Some(Ordering::Greater | Ordering::Equal)
                ),
                CompareOp::Contains => {
                    let needle = operand.as_str().unwrap_or_default().to_lowercase();
                    match actual {
                        Value::String(s) => s.to_lowercase().contains(&needle),
                        Value::Array(items) => items
                            .iter()
                            .any(|x| x.as_str().is_some_and(|s| s.to_lowercase() == needle)),
                        _ => false,
                    }
                }
                // Answered before the operand is read.
                CompareOp::Exists => false,
            }
        }
    }
}

/// The attributes a predicate uses, in order of appearance.
pub(crate) fn attributes(p: &Predicate, out: &mut Vec<String>) {
    match p {
        Predicate::And { and: list } | Predicate::Or { or: list } => {
            list.iter().for_each(|q| attributes(q, out));
        }
        Predicate::Not { not } => attributes(not, out),
        Predicate::Compare { attr, .. } => {
            if !out.contains(attr) {
                out.push(attr.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(v: Value) -> Predicate {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn comparisons_follow_the_dsl() {
        let values: BTreeMap<String, Value> = serde_json::from_value(json!({
            "color": "red", "price": 12.5, "tags": ["sale", "new"], "since": "2024-05-01"
        }))
        .unwrap();
        let yes = [
            json!({"attr": "color", "op": "eq", "value": "red"}),
            json!({"attr": "color", "op": "in", "value": ["Rosso", "red"]}),
            json!({"attr": "price", "op": "gt", "value": 12}),
            json!({"attr": "price", "op": "lte", "value": 12.5}),
            json!({"attr": "since", "op": "lt", "value": "2025-01-01"}),
            json!({"attr": "color", "op": "contains", "value": "RE"}),
            json!({"attr": "tags", "op": "contains", "value": "sale"}),
            json!({"attr": "brand", "op": "exists", "value": false}),
            json!({"not": {"attr": "color", "op": "ne", "value": "red"}}),
            json!({"or": [{"attr": "brand", "op": "eq", "value": "x"}, {"attr": "color", "op": "exists"}]}),
        ];
        for v in yes {
            assert!(eval(&p(v.clone()), &values), "{v}");
        }
        let no = [
            json!({"attr": "brand", "op": "ne", "value": "x"}),
            json!({"attr": "price", "op": "gte", "value": "abc"}),
            json!({"and": [{"attr": "color", "op": "eq", "value": "red"}, {"attr": "price", "op": "lt", "value": 1}]}),
        ];
        for v in no {
            assert!(!eval(&p(v.clone()), &values), "{v}");
        }
    }
}

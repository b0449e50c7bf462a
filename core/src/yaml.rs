//! YAML read within bounds: the nesting of a document checked while it is
//! parsed, before it becomes values ([`first_too_deep`]), and a mapping that
//! names a key twice refused ([`parse_unique_keys`]). KB frontmatters and the
//! settings file are read through it.
//!
//! libyaml's scanner (which serde_norway runs over the whole document before
//! deserializing anything) keeps one possible simple key per open flow
//! collection and looks at all of them for every token, so a file nesting
//! `[[[[...]]]]` N deep costs N² (a 200 KB file took minutes). Here the same
//! parser is pulled one event at a time and stopped at the first collection
//! nested deeper than the bound: the work done is linear in the file's size
//! (each token costs at most the bound), whatever the file.

use std::fmt;
use std::mem::MaybeUninit;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use unsafe_libyaml_norway as unsafe_yaml;

/// Deepest nesting of collections a frontmatter may have (serde_norway
/// itself refuses 128; entries nest two or three deep).
pub const MAX_FRONTMATTER_DEPTH: usize = 32;

/// Where a YAML document first nests collections deeper than `max`: its
/// line (1-based), or `None` when it never does. A syntax error ends the
/// check (the parse that follows reports it).
pub(crate) fn first_too_deep(yaml: &str, max: usize) -> Option<u64> {
    let mut parser = Parser::new(yaml)?;
    let mut depth = 0usize;
    loop {
        match parser.next()? {
            Step::Open(line) => {
                depth += 1;
                if depth > max {
                    return Some(line + 1);
                }
            }
            Step::Close => depth = depth.saturating_sub(1),
            Step::Other => {}
            Step::End => return None,
        }
    }
}

/// A YAML document as JSON values, refusing a mapping that names a key
/// twice (serde_json's own values keep the last silently). Check the
/// nesting with [`first_too_deep`] first: this parse is quadratic in it.
pub(crate) fn parse_unique_keys(yaml: &str) -> Result<Value, serde_norway::Error> {
    let UniqueKeys(value) = serde_norway::from_str(yaml)?;
    Ok(value)
}

/// A JSON value deserialized with each mapping's keys checked once.
struct UniqueKeys(Value);

impl<'de> serde::Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(UniqueKeysVisitor)
            .map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                let shown: String = key.chars().take(100).collect();
                return Err(de::Error::custom(format_args!(
                    "the key {shown:?} is given twice in one mapping"
                )));
            }
            let UniqueKeys(value) = map.next_value()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// One parser event, as far as nesting goes.
enum Step {
    /// A sequence or mapping opens, at this line (0-based).
    Open(u64),
    /// A sequence or mapping closes.
    Close,
    /// Anything else (a scalar, an alias, a document's start or end).
    Other,
    /// The end of the stream.
    End,
}

/// libyaml's event parser over a borrowed string.
struct Parser<'a> {
    /// Boxed: libyaml keeps a pointer to the parser in the parser itself
    /// (its read handler's data), so it must not move once the input is set.
    sys: Box<MaybeUninit<unsafe_yaml::yaml_parser_t>>,
    _input: &'a str,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str) -> Option<Self> {
        let mut sys = Box::new(MaybeUninit::<unsafe_yaml::yaml_parser_t>::uninit());
        let parser = sys.as_mut_ptr();
        // SAFETY: `parser` points to memory owned by the box, which outlives
        // the parser (deleted in `Drop`). The input is borrowed for 'a, as
        // long as `Self` lives, so it stays valid while the parser reads it.
        unsafe {
            if unsafe_yaml::yaml_parser_initialize(parser).fail {
                return None;
            }
            unsafe_yaml::yaml_parser_set_encoding(parser, unsafe_yaml::YAML_UTF8_ENCODING);
            unsafe_yaml::yaml_parser_set_input_string(parser, input.as_ptr(), input.len() as u64);
        }
        Some(Self { sys, _input: input })
    }

    /// The next event; `None` on a syntax error (after which the caller
    /// stops: libyaml must not be asked again).
    fn next(&mut self) -> Option<Step> {
        let parser = self.sys.as_mut_ptr();
        let mut event = MaybeUninit::<unsafe_yaml::yaml_event_t>::uninit();
        // SAFETY: the parser was initialized in `new` and is not moved; an
        // event filled by a successful `yaml_parser_parse` is read, then
        // freed once with `yaml_event_delete`. After a failure the event is
        // not initialized and is neither read nor freed.
        unsafe {
            let event = event.as_mut_ptr();
            if unsafe_yaml::yaml_parser_parse(parser, event).fail {
                return None;
            }
            let step = match (*event).type_ {
                unsafe_yaml::YAML_SEQUENCE_START_EVENT | unsafe_yaml::YAML_MAPPING_START_EVENT => {
                    Step::Open((*event).start_mark.line)
                }
                unsafe_yaml::YAML_SEQUENCE_END_EVENT | unsafe_yaml::YAML_MAPPING_END_EVENT => {
                    Step::Close
                }
                unsafe_yaml::YAML_STREAM_END_EVENT | unsafe_yaml::YAML_NO_EVENT => Step::End,
                _ => Step::Other,
            };
            unsafe_yaml::yaml_event_delete(event);
            Some(step)
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: initialized in `new` (a `Parser` exists only then), deleted
        // once, here.
        unsafe { unsafe_yaml::yaml_parser_delete(self.sys.as_mut_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn a_key_given_twice_is_refused() {
        let e = parse_unique_keys("a: 1\nb: {c: 1, c: 2}\n").unwrap_err();
        assert!(
            e.to_string().contains("the key \"c\" is given twice"),
            "{e}"
        );
        let v = parse_unique_keys("a: [1, {b: x}]\nc: ~\n").unwrap();
        assert_eq!(v, serde_json::json!({"a": [1, {"b": "x"}], "c": null}));
    }

    #[test]
    fn shallow_documents_pass() {
        let yaml = "title: a\ntags: [a, [b, {c: [d]}]]\nnested:\n  a:\n    b: [1]\n";
        assert_eq!(first_too_deep(yaml, MAX_FRONTMATTER_DEPTH), None);
        assert_eq!(first_too_deep("", MAX_FRONTMATTER_DEPTH), None);
        assert_eq!(first_too_deep("title: [unclosed", 4), None);
    }

    #[test]
    fn the_first_line_too_deep_is_named() {
        assert_eq!(first_too_deep("a: [[1]]", 2), Some(1));
        assert_eq!(first_too_deep("a: [[1]]", 3), None);
        assert_eq!(first_too_deep("a:\n  b:\n    c: 1\n", 2), Some(3));
        let block = format!("tags:\n{}x\n", "- ".repeat(50));
        assert_eq!(first_too_deep(&block, 32), Some(2));
    }

    /// 200,000 deep (400 KB) is refused at once: the parser stops at the
    /// bound instead of scanning N² (minutes before).
    #[test]
    fn deep_nesting_is_refused_in_linear_time() {
        for open in ["[", "{a: "] {
            let yaml = format!("tags: {}", open.repeat(200_000));
            let started = Instant::now();
            assert_eq!(first_too_deep(&yaml, MAX_FRONTMATTER_DEPTH), Some(1));
            assert!(
                started.elapsed() < Duration::from_secs(1),
                "{:?}",
                started.elapsed()
            );
        }
    }
}

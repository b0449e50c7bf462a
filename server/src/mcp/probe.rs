//! A borrowed probe of one JSON-RPC message (an HTTP body, a stdio line):
//! one pass of serde_json's parser that keeps only what the transports
//! check (the JSON-RPC shape, the fields the routing headers mirror, the
//! `id` of a call) and counts the JSON values it walks past, building no
//! tree. rmcp then parses the message once; one whose tree would be too big
//! never reaches it ([`MAX_JSON_VALUES`], [`crate::mcp::refused`]).
//!
//! A `serde_json::Value` costs 32 bytes per value, and rmcp's untagged
//! message enum buffers the body once more before its own tree: an array of
//! 524,000 zeros (1 MiB) cost about 40 MB in the process, 64 of them 2.5 GB.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};

/// The most JSON values (scalars, arrays, objects and object keys, all
/// levels) one message may hold: 10,000 two-field records, or any text up to
/// the body limit (a string is one value). rmcp's parse and the tool's checks
/// cost tens of bytes a value at their peak, so a message of small values
/// costs far more than its size (benches/big_arguments.py; docs/benchmarks.md,
/// "Bodies that expand in memory").
pub(crate) const MAX_JSON_VALUES: usize = 50_000;

/// The most keys a message's top level may have (JSON-RPC defines five).
const MAX_TOP_LEVEL_KEYS: usize = 16;

/// A JSON-RPC `id` as the body gave it (echoed in an answer the guard writes).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Id<'a> {
    /// A number.
    Number(serde_json::Number),
    /// A string.
    Text(Cow<'a, str>),
    /// `null`, or a value JSON-RPC does not allow as an id.
    Null,
}

/// What the probe kept of one JSON-RPC message.
#[derive(Debug, Default)]
pub(crate) struct Message<'a> {
    /// `method`, when it is a string.
    pub method: Option<Cow<'a, str>>,
    /// Whether the body has `method`, `result` or `error` (of any type).
    pub shaped: bool,
    /// `id`, when present.
    pub id: Option<Id<'a>>,
    /// `params.name`, when it is a string.
    pub name: Option<Cow<'a, str>>,
    /// `params.uri`, when it is a string.
    pub uri: Option<Cow<'a, str>>,
    /// `params.arguments.idempotency_key`, when it is a string.
    pub idempotency_key: Option<Cow<'a, str>>,
    /// The JSON values seen: scalars, arrays, objects and object keys.
    pub values: usize,
}

/// Why the probe refused a body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProbeError {
    /// Not JSON: syntax, invalid UTF-8, nesting past 128 levels.
    #[error("Parse error: the body is not JSON ({0})")]
    NotJson(String),
    /// A top-level array.
    #[error(
        "Invalid Request: JSON-RPC batches (a top-level array) are not supported; send each message in its own POST"
    )]
    Batch,
    /// JSON, but not a JSON-RPC message.
    #[error("Invalid Request: the body is not a JSON-RPC message")]
    NotMessage,
    /// An object whose key appears twice (`where_` names the object).
    #[error("Invalid Request: the key `{key}` appears twice in {where_}; send each key once")]
    DuplicateKey {
        /// The key, shortened.
        key: String,
        /// `the message`, `params` or `params.arguments`.
        where_: &'static str,
    },
}

/// Probes `bytes`: one JSON value, nothing after it.
pub(crate) fn probe(bytes: &[u8]) -> Result<Message<'_>, ProbeError> {
    let count = Cell::new(0usize);
    let refusal = Cell::new(None);
    let tally = Tally {
        count: &count,
        refusal: &refusal,
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = de
        .deserialize_any(TopLevel { tally })
        .and_then(|m| de.end().map(|()| m));
    match parsed {
        Ok(mut message) => {
            message.values = count.get();
            Ok(message)
        }
        Err(e) => Err(refusal
            .take()
            .unwrap_or_else(|| ProbeError::NotJson(e.to_string()))),
    }
}

/// The probe's running count, and the refusal that stopped it, if any.
#[derive(Clone, Copy)]
struct Tally<'c> {
    count: &'c Cell<usize>,
    refusal: &'c Cell<Option<ProbeError>>,
}

impl Tally<'_> {
    /// Counts one value. Past [`MAX_JSON_VALUES`] the walk goes on (the
    /// guard's answer to a call names it, wherever its `id` and `method`
    /// are): that costs time in proportion to the bytes, no memory.
    fn one(self) {
        self.count.set(self.count.get().saturating_add(1));
    }

    /// Stops the parse with `why`.
    fn refuse<E: de::Error>(self, why: ProbeError) -> E {
        let text = why.to_string();
        self.refusal.set(Some(why));
        E::custom(text)
    }

    /// Marks the watched key `bit` of an object as seen; a second one is
    /// refused (a balancer and rmcp could read different ones).
    fn once<E: de::Error>(
        self,
        seen: &mut u8,
        bit: u8,
        key: &str,
        where_: &'static str,
    ) -> Result<(), E> {
        if *seen & bit != 0 {
            return Err(self.refuse(duplicate(key, where_)));
        }
        *seen |= bit;
        Ok(())
    }
}

fn duplicate(key: &str, where_: &'static str) -> ProbeError {
    ProbeError::DuplicateKey {
        key: key.chars().take(100).collect(),
        where_,
    }
}

/// `DeserializeSeed` for a visitor: any JSON value, through `deserialize_any`.
macro_rules! seed_of_visitor {
    ($($ty:ident),*) => {$(
        impl<'de> DeserializeSeed<'de> for $ty<'_> {
            type Value = <Self as Visitor<'de>>::Value;

            fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
    )*};
}

/// The visits a visitor keeps nothing of: counted by [`Counted`], answered `$none`.
macro_rules! count_the_rest {
    ($none:expr; $($visit:ident $(($ty:ty))?),*) => {$(
        count_the_rest!(@ $none; $visit $(($ty))?);
    )*};
    (@ $none:expr; visit_unit) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Counted(self.tally).visit_unit().map(|()| $none)
        }
    };
    (@ $none:expr; visit_seq) => {
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            Counted(self.tally).visit_seq(seq).map(|()| $none)
        }
    };
    (@ $none:expr; visit_map) => {
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            Counted(self.tally).visit_map(map).map(|()| $none)
        }
    };
    (@ $none:expr; $visit:ident ($ty:ty)) => {
        fn $visit<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            Counted(self.tally).$visit(v).map(|()| $none)
        }
    };
}

/// A scalar at the top level: not a message.
macro_rules! not_a_message {
    ($($visit:ident($ty:ty)),*) => {$(
        fn $visit<E: de::Error>(self, _: $ty) -> Result<Self::Value, E> {
            self.tally.one();
            Err(self.tally.refuse(ProbeError::NotMessage))
        }
    )*};
}

/// The body: one object.
struct TopLevel<'c> {
    tally: Tally<'c>,
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = Message<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    not_a_message!(
        visit_bool(bool),
        visit_i64(i64),
        visit_u64(u64),
        visit_f64(f64),
        visit_str(&str)
    );

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.tally.one();
        Err(self.tally.refuse(ProbeError::NotMessage))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        // Read to its end first: a batch that is not JSON (nested too deep)
        // is a parse error like any other.
        Counted(self.tally).visit_seq(seq)?;
        Err(self.tally.refuse(ProbeError::Batch))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let tally = self.tally;
        tally.one();
        let mut message = Message::default();
        let mut keys: Vec<Cow<'de, str>> = Vec::new();
        while let Some(key) = map.next_key_seed(Key)? {
            tally.one();
            if keys.contains(&key) {
                return Err(tally.refuse(duplicate(&key, "the message")));
            }
            if keys.len() == MAX_TOP_LEVEL_KEYS {
                return Err(tally.refuse(ProbeError::NotMessage));
            }
            keys.push(key.clone());
            match key.as_ref() {
                "method" => {
                    message.shaped = true;
                    message.method = map.next_value_seed(Text { tally })?;
                }
                "result" | "error" => {
                    message.shaped = true;
                    map.next_value_seed(Counted(tally))?;
                }
                "id" => message.id = Some(map.next_value_seed(IdSeed { tally })?),
                "params" => map.next_value_seed(Params {
                    tally,
                    message: &mut message,
                })?,
                _ => map.next_value_seed(Counted(tally))?,
            }
        }
        Ok(message)
    }
}

/// An object key, borrowed from the body unless it holds escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

/// Any value, counted and dropped (serde_json still refuses nesting past
/// 128 levels).
#[derive(Clone, Copy)]
struct Counted<'c>(Tally<'c>);

seed_of_visitor!(Counted, Text, IdSeed, Arguments);

impl<'de> Visitor<'de> for Counted<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.0.one();
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.0.one();
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.0.one();
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.0.one();
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.0.one();
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.one();
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.one();
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.one();
        while map.next_key::<IgnoredAny>()?.is_some() {
            self.0.one();
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

/// A value kept when it is a string.
struct Text<'c> {
    tally: Tally<'c>,
}

impl<'de> Visitor<'de> for Text<'_> {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.tally.one();
        Ok(Some(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.tally.one();
        Ok(Some(Cow::Owned(v.to_owned())))
    }

    count_the_rest!(None; visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64),
        visit_unit, visit_seq, visit_map);
}

/// The `id`: a number or a string is kept, anything else is `null`.
struct IdSeed<'c> {
    tally: Tally<'c>,
}

impl<'de> Visitor<'de> for IdSeed<'_> {
    type Value = Id<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON-RPC id")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        let text = Text { tally: self.tally }.visit_borrowed_str(v)?;
        Ok(text.map_or(Id::Null, Id::Text))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let text = Text { tally: self.tally }.visit_str(v)?;
        Ok(text.map_or(Id::Null, Id::Text))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.tally.one();
        Ok(Id::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.tally.one();
        Ok(Id::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.tally.one();
        Ok(serde_json::Number::from_f64(v).map_or(Id::Null, Id::Number))
    }

    count_the_rest!(Id::Null; visit_bool(bool), visit_unit, visit_seq, visit_map);
}

/// `params`: `name`, `uri` and `arguments.idempotency_key` are kept.
struct Params<'c, 'm, 'de> {
    tally: Tally<'c>,
    message: &'m mut Message<'de>,
}

impl<'de> DeserializeSeed<'de> for Params<'_, '_, 'de> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Params<'_, '_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("params")
    }

    count_the_rest!((); visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64),
        visit_str(&str), visit_unit, visit_seq);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let tally = self.tally;
        tally.one();
        let mut seen = 0u8;
        while let Some(key) = map.next_key_seed(Key)? {
            tally.one();
            let bit = match key.as_ref() {
                "name" => 1,
                "uri" => 2,
                "arguments" => 4,
                _ => 0,
            };
            if bit != 0 {
                tally.once(&mut seen, bit, &key, "params")?;
            }
            match bit {
                1 => self.message.name = map.next_value_seed(Text { tally })?,
                2 => self.message.uri = map.next_value_seed(Text { tally })?,
                4 => self.message.idempotency_key = map.next_value_seed(Arguments { tally })?,
                _ => map.next_value_seed(Counted(tally))?,
            }
        }
        Ok(())
    }
}

/// `params.arguments`: `idempotency_key` is kept.
struct Arguments<'c> {
    tally: Tally<'c>,
}

impl<'de> Visitor<'de> for Arguments<'_> {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("arguments")
    }

    count_the_rest!(None; visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64),
        visit_str(&str), visit_unit, visit_seq);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let tally = self.tally;
        tally.one();
        let mut key_value = None;
        let mut seen = 0u8;
        while let Some(key) = map.next_key_seed(Key)? {
            tally.one();
            if key == "idempotency_key" {
                tally.once(&mut seen, 1, &key, "params.arguments")?;
                key_value = map.next_value_seed(Text { tally })?;
            } else {
                map.next_value_seed(Counted(tally))?;
            }
        }
        Ok(key_value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_are_read_in_any_order_and_escapes_are_decoded() {
        let m = probe(
            br#"{"params": {"arguments": {"a": [1, {"b": null}], "idempotency_key": "k\u002d1"}, "name": "lorebase_execute", "_meta": {}},
                "method": "tools/call", "id": "c-1", "jsonrpc": "2.0"}"#,
        )
        .unwrap();
        assert!(m.shaped);
        assert_eq!(m.method.as_deref(), Some("tools/call"));
        assert_eq!(m.name.as_deref(), Some("lorebase_execute"));
        assert_eq!(m.idempotency_key.as_deref(), Some("k-1"));
        assert!(matches!(m.idempotency_key, Some(Cow::Owned(_))));
        assert!(
            matches!(m.name, Some(Cow::Borrowed(_))),
            "no copy without escapes"
        );
        assert_eq!(m.id, Some(Id::Text("c-1".into())));
        assert_eq!(m.uri, None);
        // The message, its 4 keys and 3 scalars; params, its 3 keys, the name;
        // arguments, its 2 keys; the array, 1, the object, `b`, null; the key;
        // `_meta`.
        assert_eq!(
            m.values,
            1 + 4 + 3 + 1 + 3 + 1 + 1 + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 1
        );
    }

    #[test]
    fn ids_and_fields_of_other_types() {
        let m = probe(br#"{"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "lorebase://domains"}}"#).unwrap();
        assert_eq!(m.id, Some(Id::Number(7.into())));
        assert_eq!(m.uri.as_deref(), Some("lorebase://domains"));
        let m = probe(br#"{"jsonrpc": "2.0", "id": [1], "method": 5, "params": {"name": {"x": 1}, "arguments": [1]}}"#).unwrap();
        assert_eq!(m.id, Some(Id::Null));
        assert!(
            m.shaped,
            "a method of any type makes a message; rmcp judges its type"
        );
        assert_eq!((m.method, m.name, m.idempotency_key), (None, None, None));
        let m = probe(br#"{"jsonrpc": "2.0", "id": 1, "result": {}}"#).unwrap();
        assert!(m.shaped && m.method.is_none());
        assert!(!probe(br#"{"jsonrpc": "2.0", "id": 1}"#).unwrap().shaped);
    }

    #[test]
    fn what_is_refused() {
        let deep = |n: usize| {
            format!(
                r#"{{"method": "m", "params": {{"arguments": {{"x": {}{}}}}}}}"#,
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        assert!(probe(deep(100).as_bytes()).is_ok());
        assert!(
            matches!(probe(deep(200).as_bytes()), Err(ProbeError::NotJson(e)) if e.contains("recursion"))
        );
        assert!(matches!(
            probe(b"{\"method\": \"m\"} x"),
            Err(ProbeError::NotJson(_))
        ));
        assert!(matches!(
            probe(b"{\"method\": \"\xff\"}"),
            Err(ProbeError::NotJson(_))
        ));
        assert_eq!(
            probe(b"[{\"method\": \"m\"}]").unwrap_err(),
            ProbeError::Batch
        );
        assert_eq!(probe(b"[]").unwrap_err(), ProbeError::Batch);
        let deep_batch = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(matches!(
            probe(deep_batch.as_bytes()),
            Err(ProbeError::NotJson(_))
        ));
        for scalar in ["1", "true", "null", "\"m\"", "1.5"] {
            assert_eq!(
                probe(scalar.as_bytes()).unwrap_err(),
                ProbeError::NotMessage,
                "{scalar}"
            );
        }
        let many_keys = (0..20)
            .map(|i| format!("\"k{i}\": 0"))
            .collect::<Vec<_>>()
            .join(", ");
        assert_eq!(
            probe(format!("{{{many_keys}}}").as_bytes()).unwrap_err(),
            ProbeError::NotMessage
        );
        assert_eq!(
            probe(br#"{"method": "m", "params": {"uri": "a", "uri": "b"}}"#).unwrap_err(),
            duplicate("uri", "params")
        );
    }

    #[test]
    fn past_the_bound_the_count_goes_on() {
        let zeros = vec!["0"; MAX_JSON_VALUES * 2].join(",");
        let body = format!(
            r#"{{"params": {{"arguments": {{"x": [{zeros}]}}}}, "id": 3, "method": "tools/call"}}"#
        );
        let m = probe(body.as_bytes()).unwrap();
        assert!(m.values > MAX_JSON_VALUES * 2);
        assert_eq!(
            (m.method.as_deref(), m.id),
            (Some("tools/call"), Some(Id::Number(3.into())))
        );
    }
}

//! Checks of the settings table ([`super::table`]): keys and spellings
//! unique, each default its field's, each bound the one its setter enforces
//! and its comment shows, and every generated surface fed by the table (a
//! fixture entry added to it is found on each).

use super::defaults::{apply_default, unset};
use super::entry::{Flag, Group, Key, Kind, Spellings};
use super::error::SettingSource;
use super::field::Bound;
use super::keys::*;
use super::raw::RawValue;
use super::settings::Settings;

#[test]
fn keys_are_unique_and_each_group_is_one_section() {
    let mut seen = std::collections::BTreeSet::new();
    for key in keys() {
        assert!(seen.insert(key), "{key} is declared twice");
    }
    for group in groups() {
        let section = section_of(group.keys[0].key());
        for key in group.keys {
            assert_eq!(section_of(key.key()), section, "{} in its group", key.key());
        }
    }
}

/// The single owner of the defaults: each key's default text passes its
/// own check (no pending secret), and the settings a layer-less load
/// starts from are those texts applied, nothing else.
#[test]
fn every_default_passes_its_own_check_and_is_the_settings_default() {
    let mut settings = unset();
    for entry in entries() {
        let mut pending = None;
        apply_default(entry, &mut settings, &mut pending)
            .unwrap_or_else(|e| panic!("the default of {}: {e}", entry.key()));
        assert!(pending.is_none(), "{} has a secret default", entry.key());
    }
    assert_eq!(settings, Settings::default());
    // Applying a default again changes nothing: each key owns its field.
    let mut again = Settings::default();
    for entry in entries() {
        apply_default(entry, &mut again, &mut None).unwrap();
        assert_eq!(again, Settings::default(), "{}", entry.key());
    }
}

/// A default is what the example file shows: changing a key's text
/// changes the settings (the default is not written anywhere else).
#[test]
fn each_default_text_reaches_its_field() {
    let port = Key {
        default: "8091",
        ..*entry(SettingKey::HttpPort)
    };
    let mut settings = Settings::default();
    apply_default(&port, &mut settings, &mut None).unwrap();
    assert_eq!(settings.http.port, 8091);
}

/// The introspection bound's three keys: read from a settings file and
/// from `LOREBASE__HERALD__HTTP__...`; a value out of its bound is a
/// settings error naming the key and where it came from.
#[test]
fn the_introspection_bound_is_three_bounded_keys() {
    use std::collections::BTreeMap;

    use crate::config::{ConfigError, Overrides};

    let d = Settings::default().http;
    assert_eq!(
        (
            d.introspection_max_in_flight,
            d.introspection_per_second,
            d.introspection_burst
        ),
        (8, 10, 20)
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lorebase.yaml");
    let load = |yaml: &str, vars: &[(&str, &str)]| {
        std::fs::write(&path, yaml).unwrap();
        let mut env = BTreeMap::from([(
            crate::config::CONFIG_FILE_VAR.to_string(),
            path.to_str().unwrap().to_string(),
        )]);
        env.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Settings::load_with_env(&env, &Overrides::new())
    };
    let set = load(
        "herald:\n  http:\n    introspection_max_in_flight: 64\n    introspection_per_second: 200\n    introspection_burst: 400\n",
        &[],
    )
    .unwrap()
    .http;
    assert_eq!(
        (
            set.introspection_max_in_flight,
            set.introspection_per_second,
            set.introspection_burst
        ),
        (64, 200, 400)
    );
    let from_env = load(
        "herald: {}\n",
        &[("LOREBASE__HERALD__HTTP__INTROSPECTION_BURST", "100000")],
    )
    .unwrap()
    .http;
    assert_eq!(from_env.introspection_burst, 100_000);

    for (key, bad) in [
        (SettingKey::HttpIntrospectionMaxInFlight, "0"),
        (SettingKey::HttpIntrospectionMaxInFlight, "1025"),
        (SettingKey::HttpIntrospectionPerSecond, "10001"),
        (SettingKey::HttpIntrospectionPerSecond, "2.5"),
        (SettingKey::HttpIntrospectionBurst, "0"),
        (SettingKey::HttpIntrospectionBurst, "100001"),
    ] {
        let (section, name) = key.name().split_once('.').unwrap();
        let yaml = format!("herald:\n  {section}:\n    {name}: {bad}\n");
        let err = load(&yaml, &[]).unwrap_err();
        assert!(
            matches!(&err, ConfigError::Invalid { key: k, origin: SettingSource::File(_), .. } if k == key.name()),
            "{key} = {bad}: {err:?}"
        );
        let line = err.to_string();
        assert!(line.contains(&format!("herald.{key}")), "{line}");
        assert!(line.contains("expected a whole number from 1 to"), "{line}");
    }
    let err = load(
        "herald: {}\n",
        &[("LOREBASE__HERALD__HTTP__INTROSPECTION_MAX_IN_FLIGHT", "0")],
    )
    .unwrap_err();
    assert_eq!(
        err.key(),
        Some(SettingKey::HttpIntrospectionMaxInFlight.name())
    );
    assert!(
        err.to_string()
            .contains("LOREBASE__HERALD__HTTP__INTROSPECTION_MAX_IN_FLIGHT"),
        "{err}"
    );
}

/// The placeholders are not the defaults where a default is not empty:
/// the table, not [`unset`], gives those fields their values.
#[test]
fn the_placeholders_are_overwritten() {
    let (blank, d) = (unset(), Settings::default());
    assert_ne!(blank.keeper, d.keeper);
    assert_ne!(blank.http, d.http);
    assert_ne!(blank.output, d.output);
    assert_ne!(blank.changes, d.changes);
    assert_ne!(blank.kb, d.kb);
    assert_ne!(blank.tools, d.tools);
    assert_ne!(blank.mcp, d.mcp);
    assert_ne!(blank.metrics, d.metrics);
    assert_ne!(blank.traces, d.traces);
}

/// Whether `entry`'s setter accepts `n`.
fn accepts(entry: &Key, n: u64) -> bool {
    let mut settings = Settings::default();
    let raw = RawValue::Text(n.to_string());
    apply_entry(
        entry,
        &mut settings,
        &mut None,
        &raw,
        &SettingSource::Default,
    )
    .is_ok()
}

/// The bound an integer key declares is the one its setter enforces:
/// probed at each end and one past it. So the bound its comment and
/// `docs/settings.md` show (both from the declaration) is the real one.
#[test]
fn every_declared_bound_is_the_enforced_one() {
    for entry in entries() {
        assert_eq!(
            entry.kind == Kind::Int,
            entry.bound.is_some(),
            "{}: an integer key declares its bound, and only an integer key does",
            entry.key()
        );
        let Some(Bound { min, max }) = entry.bound else {
            continue;
        };
        assert!(
            accepts(entry, min),
            "{} refuses its least value {min}",
            entry.key()
        );
        assert!(
            accepts(entry, max),
            "{} refuses its greatest value {max}",
            entry.key()
        );
        if min > 0 {
            assert!(
                !accepts(entry, min - 1),
                "{} accepts {}",
                entry.key(),
                min - 1
            );
        }
        assert!(
            !accepts(entry, max + 1),
            "{} accepts {}",
            entry.key(),
            max + 1
        );
    }
}

/// Whether `entry`'s setter accepts `value` (JSON, as a settings file gives it).
fn accepts_json(entry: &Key, value: serde_json::Value) -> bool {
    let mut settings = Settings::default();
    let raw = RawValue::Json(value);
    apply_entry(
        entry,
        &mut settings,
        &mut None,
        &raw,
        &SettingSource::Default,
    )
    .is_ok()
}

/// The type `docs/settings.md` and `npm/index.d.ts` give a key is what its
/// setter takes.
#[test]
fn every_kind_is_what_its_setter_takes() {
    use serde_json::json;
    for entry in entries() {
        let key = entry.key();
        let (takes, refuses) = match entry.kind {
            Kind::Bool => (
                vec![json!(true), json!(false)],
                vec![json!("maybe"), json!(1)],
            ),
            Kind::List | Kind::Servers => (vec![json!([])], vec![json!(5), json!({})]),
            Kind::Int => (
                vec![json!(entry.bound.map_or(0, |b| b.min))],
                vec![json!("x"), json!(1.5)],
            ),
            Kind::Text | Kind::Secret => (vec![], vec![json!(5), json!([]), json!(true)]),
        };
        for value in takes {
            assert!(accepts_json(entry, value.clone()), "{key} refuses {value}");
        }
        for value in refuses {
            assert!(!accepts_json(entry, value.clone()), "{key} accepts {value}");
        }
    }
}

/// A comment writes a key's bound, short variable and flag only through
/// `{bound}`, `{min}`, `{env}` and `{flag}`, each of which the entry
/// declares, so the text cannot drift from what is enforced and accepted.
#[test]
fn comments_take_bounds_and_spellings_from_the_entry() {
    let written_bound = regex::Regex::new(r"\(\d+-\d+\)|at least \d").unwrap();
    for entry in entries() {
        for line in entry.doc {
            assert!(
                !written_bound.is_match(line),
                "{}: write the bound as {{bound}} or {{min}}: {line}",
                entry.key()
            );
            if let Some(env) = entry.spellings.env {
                assert!(
                    !line.contains(env),
                    "{}: write {{env}}: {line}",
                    entry.key()
                );
            }
            if let Some(flag) = entry.spellings.flag {
                let flag = format!("--{}", flag.name);
                assert!(
                    !line.contains(&flag),
                    "{}: write {{flag}}: {line}",
                    entry.key()
                );
            }
        }
        for line in entry.doc_lines() {
            for placeholder in ["{bound}", "{min}", "{env}", "{flag}"] {
                assert!(
                    !line.contains(placeholder),
                    "{}: {placeholder} but the entry declares none",
                    entry.key()
                );
            }
        }
    }
}

/// Adding a setting is one entry: a fixture entry added to the table is
/// found on every surface generated from it, the example file, the
/// reference, the Node options' table and declarations, the Node options,
/// the Python keywords and the flags (which the server's clap test holds
/// to the table's).
#[test]
fn a_new_entry_reaches_every_generated_surface() {
    use super::aliases::{flags_of, node_options_of, python_keywords_of};
    use super::reference::{
        example_yaml_of, node_option_declarations_of, node_options_table_of,
        python_settings_table_of, settings_reference_of,
    };

    const FIXTURE: Key = Key {
        name: "fixture.extra_limit",
        kind: Kind::Int,
        doc: &["Most fixtures at once {bound}; {env} or {flag}."],
        default: "5",
        bound: Some(Bound { min: 3, max: 7 }),
        spellings: Spellings {
            env: Some("LOREBASE_FIXTURE_LIMIT"),
            flag: Some(Flag {
                name: "fixture-limit",
                help: "Most fixtures at once",
            }),
            node: Some("fixtureLimit"),
            python: &["fixture_limit"],
        },
        set: |f, _s, _pending| f.bounded().map(|_| ()),
    };
    let mut table: Vec<Group> = groups().to_vec();
    table.push(Group {
        doc: &["Fixtures."],
        keys: std::slice::from_ref(&FIXTURE),
    });

    let yaml = example_yaml_of(&table);
    assert!(
        yaml.ends_with(
            "\n  # Fixtures.\n  fixture:\n    # Most fixtures at once (3-7); LOREBASE_FIXTURE_LIMIT or --fixture-limit.\n    extra_limit: 5\n"
        ),
        "{yaml}"
    );
    let reference = settings_reference_of(&table);
    for expected in [
        "| [`fixture.extra_limit`](#fixtureextra_limit) | integer | `5` | 3 to 7 | `LOREBASE_FIXTURE_LIMIT` | `--fixture-limit` | `fixtureLimit` | `fixture_limit` |",
        "### fixture.extra_limit",
        "Variable `LOREBASE__HERALD__FIXTURE__EXTRA_LIMIT`",
        "flag `--fixture-limit`",
        "Most fixtures at once (3-7); LOREBASE_FIXTURE_LIMIT or --fixture-limit.",
    ] {
        assert!(
            reference.contains(expected),
            "{expected} not in\n{reference}"
        );
    }
    assert!(
        node_options_table_of(&table)
            .contains("| `fixtureLimit` | `number` | `fixture.extra_limit` | `5` | 3 to 7 |"),
    );
    let python = python_settings_table_of(&table);
    for row in [
        "| `LOREBASE_FIXTURE_LIMIT` | `fixture.extra_limit` | integer | `5` |",
        "| `Herald(fixture_limit=...)` | `fixture.extra_limit` | integer | `5` |",
    ] {
        assert!(python.contains(row), "{row} not in\n{python}");
    }
    assert_eq!(
        node_option_declarations_of(&table)
            .last()
            .map(String::as_str),
        Some("  fixtureLimit?: number")
    );
    assert_eq!(
        node_options_of(&table).last(),
        Some(("fixtureLimit", "fixture.extra_limit"))
    );
    assert_eq!(
        python_keywords_of(&table).last(),
        Some(("fixture_limit", "fixture.extra_limit"))
    );
    assert_eq!(
        flags_of(&table).last(),
        Some((
            "fixture-limit",
            "Most fixtures at once",
            "fixture.extra_limit"
        ))
    );
    // The real table's surfaces do not have it.
    assert!(!example_yaml_of(groups()).contains("fixture"));
    let mut settings = Settings::default();
    let raw = RawValue::Text("8".into());
    assert!(
        apply_entry(
            &FIXTURE,
            &mut settings,
            &mut None,
            &raw,
            &SettingSource::Default
        )
        .is_err()
    );
}

/// The example file's header names the short variables in prose; it names
/// the table's, all of them.
#[test]
fn the_header_names_every_short_variable() {
    let header = super::table::HEADER.join(" ");
    let named: Vec<&str> = header
        .split(|c: char| !(c.is_ascii_uppercase() || c == '_'))
        .filter(|word| word.starts_with("LOREBASE_") && !word.starts_with("LOREBASE__"))
        .filter(|word| *word != "LOREBASE_CONFIG")
        .collect();
    let table: Vec<&str> = super::aliases::short_vars().map(|(name, _)| name).collect();
    assert_eq!(named, table);
}

//! `new Herald(options)`: the options object, turned into the top settings
//! layer (`Overrides`) over the settings file and the environment, exactly as
//! the server's flags are.

use herald_core::config::Overrides;
use herald_core::config::aliases::node_options;
use napi_derive::napi;
use serde_json::{Value, json};

/// The options of `new Herald(options)`. Every one is optional and defaults to
/// the same settings file and environment variables as the server
/// (`LOREBASE_CONFIG`, `LOREBASE__HERALD__...`, `LOREBASE_URL`,
/// `LOREBASE_API_KEY`, `LOREBASE_DOMAIN`, `LOREBASE_BRANCH`).
// The options that stand for a settings key are read by the name the
// settings table gives them (serialized in camelCase, as JavaScript names
// them): a new one is a field here and its `node:` in the table.
#[napi(object)]
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeraldOptions {
    /// The YAML settings file whose `herald` section is read (instead of
    /// `LOREBASE_CONFIG`).
    #[serde(skip)]
    pub config_file: Option<String>,
    /// Keeper's origin (`herald.keeper.base_url`, `LOREBASE_URL`).
    pub base_url: Option<String>,
    /// The key every call carries unless the call names its own
    /// (`herald.keeper.api_key`, `LOREBASE_API_KEY`): a literal,
    /// `secret://env/NAME` or `secret://file/PATH`.
    pub api_key: Option<String>,
    /// Resends after 429, 503 or an unreachable Keeper, 0 = off
    /// (`herald.keeper.max_retries`).
    #[serde(serialize_with = "setting_number")]
    pub max_retries: Option<f64>,
    /// The Domain used when a call names none (`herald.domain`, `LOREBASE_DOMAIN`).
    pub domain: Option<String>,
    /// The branch used when a call names none (`herald.branch`, `LOREBASE_BRANCH`).
    pub branch: Option<String>,
    /// Longest tool output in characters (`herald.output.max_chars`).
    #[serde(serialize_with = "setting_number")]
    pub max_chars: Option<f64>,
    /// Longest list (`herald.output.max_items`).
    #[serde(serialize_with = "setting_number")]
    pub max_items: Option<f64>,
    /// Longest single value in characters (`herald.output.max_value_chars`).
    #[serde(serialize_with = "setting_number")]
    pub max_value_chars: Option<f64>,
    /// The markdown knowledge-base directory: adds `kb_search` and `kb_get`
    /// (`herald.kb.dir`).
    pub kb_dir: Option<String>,
    /// Drop `lorebase_execute` (`herald.tools.read_only`).
    pub read_only: Option<bool>,
    /// Serve only these tools (`herald.tools.allow`).
    pub tools: Option<Vec<String>>,
    /// Never serve these tools (`herald.tools.deny`).
    pub exclude_tools: Option<Vec<String>>,
    /// Any other setting, as an object shaped like the YAML `herald` section
    /// (`{ keeper: { timeout_s: 10 } }`); the named options above win over it.
    #[napi(ts_type = "Record<string, unknown>")]
    #[serde(skip)]
    pub settings: Option<Value>,
}

/// The options that are not a settings key: the settings file and the
/// other settings.
const OTHER_OPTIONS: (&str, &str) = ("configFile", "settings");

/// The JavaScript names of the options, for the unknown-option check: the
/// settings file, the settings table's Node options
/// (`herald_core::config::aliases`), then `settings`.
pub(crate) fn option_names() -> Vec<&'static str> {
    std::iter::once(OTHER_OPTIONS.0)
        .chain(node_options().map(|(option, _)| option))
        .chain(std::iter::once(OTHER_OPTIONS.1))
        .collect()
}

/// An option of `new Herald(options)` and the settings key it sets.
#[napi(object)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingOption {
    /// The option (`maxChars`).
    pub option: String,
    /// The key it sets, dotted below `herald` (`output.max_chars`).
    pub key: String,
}

/// The options of `new Herald(options)` that stand for a settings key, with
/// the key: the settings table's (`herald_core::config::aliases`), so
/// JavaScript reads them instead of repeating them.
#[napi]
pub fn setting_options() -> Vec<SettingOption> {
    node_options()
        .map(|(option, key)| SettingOption {
            option: option.into(),
            key: key.name().into(),
        })
        .collect()
}

/// The options of one `callTool` call.
#[napi(object)]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallOptions {
    /// This call's own Keeper API key, sent unchanged instead of the configured
    /// one (one Herald serving many agents, each with its own grants).
    pub api_key: Option<String>,
}

/// Why options cannot become overrides.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OptionsError {
    /// A property that is not an option (a typo such as `baseURL`).
    #[error("unknown option {0:?} of new Herald(); the options are {names}", names = option_names().join(", "))]
    Unknown(String),
    /// The settings layer refused the options.
    #[error("{0}")]
    Settings(String),
}

/// Turns the options into the top settings layer. Each value is labelled with
/// its option (`options.maxChars`), so a refused value names what the caller
/// wrote.
pub(crate) fn to_overrides(options: &HeraldOptions) -> Result<Overrides, OptionsError> {
    let mut overrides = Overrides::new();
    if let Some(settings) = &options.settings {
        overrides
            .merge_json(settings, "options.settings")
            .map_err(|e| OptionsError::Settings(e.to_string()))?;
    }
    let given = serde_json::to_value(options).map_err(|e| OptionsError::Settings(e.to_string()))?;
    for (option, key) in node_options() {
        if let Some(value) = given.get(option).filter(|v| !v.is_null()) {
            overrides.set(key, value.clone(), &format!("options.{option}"));
        }
    }
    Ok(overrides)
}

/// A numeric option as [`number_value`] writes it (`NaN` stays visible, for
/// the settings layer to refuse, where serde would write `null`).
fn setting_number<S: serde::Serializer>(value: &Option<f64>, out: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&value.map(number_value), out)
}

/// A JS number as JSON: whole numbers as integers (so integer settings accept
/// them), anything else as is, for the settings layer to refuse with the key's
/// name (`-1`, `1.5`, `NaN`).
fn number_value(value: f64) -> Value {
    if value.is_finite() && value.fract() == 0.0 && value.abs() < 9.0e15 {
        json!(value as i64)
    } else {
        serde_json::Number::from_f64(value)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(value.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_whole_values_integral() {
        assert_eq!(number_value(3.0), json!(3));
        assert_eq!(number_value(-1.0), json!(-1));
        assert_eq!(number_value(1.5), json!(1.5));
        assert_eq!(number_value(f64::NAN), json!("NaN"));
    }

    /// The options the table names are the fields of `HeraldOptions`, both
    /// ways (napi names a field `base_url` option `baseUrl`), and each sets
    /// its key.
    #[test]
    fn option_names_match_the_struct() {
        let described = format!("{:?}", HeraldOptions::default());
        let fields: Vec<String> = described
            .split(['{', ',', '}'])
            .filter_map(|part| part.trim().split_once(':'))
            .map(|(field, _)| camel(field.trim()))
            .collect();
        assert_eq!(fields, option_names(), "{described}");
        let options = HeraldOptions {
            base_url: Some("http://127.0.0.1:9".into()),
            api_key: Some("k".into()),
            domain: Some("d".into()),
            branch: Some("b".into()),
            max_chars: Some(600.0),
            max_items: Some(2.0),
            max_value_chars: Some(3.0),
            max_retries: Some(0.0),
            kb_dir: Some("kb".into()),
            read_only: Some(true),
            tools: Some(vec!["a".into()]),
            exclude_tools: Some(vec!["b".into()]),
            ..HeraldOptions::default()
        };
        let mut expected = Overrides::new();
        let values = [
            json!("http://127.0.0.1:9"),
            json!("k"),
            json!(0),
            json!("d"),
            json!("b"),
            json!(600),
            json!(2),
            json!(3),
            json!("kb"),
            json!(true),
            json!(["a"]),
            json!(["b"]),
        ];
        for ((option, key), value) in node_options().zip(values) {
            expected.set(key, value, &format!("options.{option}"));
        }
        assert_eq!(to_overrides(&options).unwrap(), expected);

        // A number that is no number reaches the settings layer, which
        // refuses it naming the option, instead of being dropped.
        let nan = HeraldOptions {
            max_chars: Some(f64::NAN),
            ..HeraldOptions::default()
        };
        let mut expected = Overrides::new();
        expected.set(
            herald_core::config::SettingKey::OutputMaxChars,
            json!("NaN"),
            "options.maxChars",
        );
        assert_eq!(to_overrides(&nan).unwrap(), expected);
    }

    fn camel(snake: &str) -> String {
        let mut out = String::new();
        let mut upper = false;
        for c in snake.chars() {
            match c {
                '_' => upper = true,
                c if upper => {
                    out.push(c.to_ascii_uppercase());
                    upper = false;
                }
                c => out.push(c),
            }
        }
        out
    }
}

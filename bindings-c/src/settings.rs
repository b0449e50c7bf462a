//! Settings for a handle: the JSON object given to `lorebase_herald_new` is
//! the top layer (binding options) over the YAML file named by
//! `LOREBASE_CONFIG`, the `LOREBASE__HERALD__...` variables and the short
//! variables, exactly as the server and the other bindings load them.

use herald_core::config::{Overrides, Settings};
use serde_json::{Map, Value};

use crate::error::CApiError;
use herald_core::tool_interface::json_type_name;

/// Loads the settings, with `settings_json` (a JSON object with the nested
/// keys of the `herald` section) as the top layer; `None` means none.
pub(crate) fn load(settings_json: Option<&str>) -> Result<Settings, CApiError> {
    let overrides = match parse_overrides(settings_json)? {
        Some(options) => Overrides::from_json(&Value::Object(options), "settings_json"),
        None => Ok(Overrides::new()),
    };
    overrides
        .and_then(Settings::load)
        .map_err(|error| CApiError::InvalidSettings(error.to_string()))
}

/// Parses the settings overrides: a JSON object, or none at all.
fn parse_overrides(settings_json: Option<&str>) -> Result<Option<Map<String, Value>>, CApiError> {
    let Some(text) = settings_json else {
        return Ok(None);
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(overrides)) => Ok(Some(overrides)),
        Ok(other) => Err(CApiError::InvalidSettings(format!(
            "settings_json must be a JSON object, got {}",
            json_type_name(&other)
        ))),
        Err(error) => Err(CApiError::InvalidJson {
            what: "settings_json",
            reason: error.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_must_be_an_object() {
        assert_eq!(parse_overrides(None), Ok(None));
        assert_eq!(
            parse_overrides(Some(r#"{"domain":"supply"}"#))
                .unwrap()
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            parse_overrides(Some(r#""lbk_secret""#)),
            Err(CApiError::InvalidSettings(
                "settings_json must be a JSON object, got a string".into()
            ))
        );
        let Err(CApiError::InvalidJson { reason, .. }) =
            parse_overrides(Some(r#"{"keeper": {"api_key": "lbk_secret"#))
        else {
            panic!("truncated JSON must not parse");
        };
        assert!(!reason.contains("lbk_secret"), "{reason}");
    }
}

//! What a run asks of the settings ([`LaunchOptions`]), and loading them.
//! The command line builds the options; `app` takes them as plain values, so
//! it depends on no command-line type.

use std::path::{Path, PathBuf};

use herald_core::config::{CONFIG_FILE_VAR, Overrides, SettingKey, Settings, process_env};

use crate::error::ServerError;

/// What a run asks of the settings, beyond the environment.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaunchOptions {
    /// The YAML settings file to read instead of `LOREBASE_CONFIG`'s.
    pub config_file: Option<PathBuf>,
    /// Serving only the KB tools (`kb DIR`): a settings file that does not
    /// exist is skipped.
    pub kb_only: bool,
    /// The top settings layer (the command line's flags).
    pub overrides: Overrides,
}

/// Loads the settings: the process environment, the file named by
/// `options.config_file` or `LOREBASE_CONFIG`, then the overrides. In
/// KB-only mode a settings file that does not exist is skipped; one that
/// exists must be valid.
pub(crate) fn load_settings(options: &LaunchOptions) -> Result<Settings, ServerError> {
    load_settings_with(options, &[])
}

/// [`load_settings`] with `extra` overrides (dotted key, value, source
/// label) applied after the flags.
pub(crate) fn load_settings_with(
    options: &LaunchOptions,
    extra: &[(SettingKey, serde_json::Value, &str)],
) -> Result<Settings, ServerError> {
    let mut env = process_env();
    if let Some(path) = &options.config_file {
        env.insert(CONFIG_FILE_VAR.into(), path.to_string_lossy().into_owned());
    }
    if options.kb_only
        && env
            .get(CONFIG_FILE_VAR)
            .is_some_and(|p| !p.trim().is_empty() && !Path::new(p).exists())
    {
        tracing::info!("KB-only mode: no settings file at {CONFIG_FILE_VAR}; using the defaults");
        env.remove(CONFIG_FILE_VAR);
    }
    let mut overrides = options.overrides.clone();
    for (key, value, label) in extra {
        overrides.set(*key, value.clone(), label);
    }
    let settings = Settings::load_with_env(&env, &overrides)
        .map_err(|e| ServerError::Settings(e.to_string()))?;
    crate::logging::apply_settings(&settings)?;
    Ok(settings)
}

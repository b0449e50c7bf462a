//! The settings the command line asks for: [`Cli::override_entries`] turns the
//! flags into entries with the nested keys of the YAML `herald` section, and
//! [`Cli::launch_options`] hands them to `app` with the settings file and the
//! KB-only mode, so `app` needs no command-line type.

use herald_core::config::aliases::flag_label;
use herald_core::config::{Overrides, SettingKey};
use herald_core::tools::kb;
use serde_json::{Value, json};

use super::args::{Cli, Command};
use crate::app::LaunchOptions;

/// The source label of the settings the `kb DIR` command sets.
const KB_COMMAND: &str = "kb DIR";

impl Cli {
    /// The overrides layer: one entry per flag given, as a settings key,
    /// its value, and the flag that set it (named in error messages; the
    /// flags are the settings table's, `herald_core::config::aliases`).
    pub(crate) fn override_entries(&self) -> Vec<(SettingKey, Value, String)> {
        let f = &self.flags;
        let given = |key: SettingKey, value: Option<Value>| {
            value.map(|v| (key, v, flag_label(key).unwrap_or_default()))
        };
        let by_command = |key: SettingKey, value: Value| Some((key, value, KB_COMMAND.to_string()));
        let kb_dir = match (&self.command, &f.kb) {
            (Some(Command::Kb { dir }), _) => {
                by_command(SettingKey::KbDir, json!(dir.to_string_lossy()))
            }
            (_, dir) => given(
                SettingKey::KbDir,
                dir.as_ref().map(|d| json!(d.to_string_lossy())),
            ),
        };
        let allow = match (&f.tools, self.kb_only()) {
            (Some(allow), _) => given(SettingKey::ToolsAllow, Some(json!(clean_names(allow)))),
            (None, true) => by_command(SettingKey::ToolsAllow, json!(kb::NAMES)),
            (None, false) => None,
        };
        [
            given(
                SettingKey::Transport,
                f.transport.map(|t| json!(t.as_str())),
            ),
            given(SettingKey::HttpHost, f.host.as_ref().map(|h| json!(h))),
            given(SettingKey::HttpPort, f.port.map(|p| json!(p))),
            given(SettingKey::Domain, f.domain.as_ref().map(|d| json!(d))),
            given(SettingKey::Branch, f.branch.as_ref().map(|b| json!(b))),
            given(
                SettingKey::KeeperBaseUrl,
                f.keeper_url.as_ref().map(|u| json!(u)),
            ),
            kb_dir,
            given(SettingKey::ToolsReadOnly, f.read_only.then(|| json!(true))),
            allow,
            given(
                SettingKey::ToolsDeny,
                f.exclude_tools.as_ref().map(|d| json!(clean_names(d))),
            ),
            given(
                SettingKey::LogFormat,
                f.log_format.map(|l| json!(l.format().as_str())),
            ),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// [`Cli::override_entries`] as the settings' top layer.
    pub(crate) fn overrides(&self) -> Overrides {
        let mut overrides = Overrides::new();
        for (key, value, label) in self.override_entries() {
            overrides.set(key, value, &label);
        }
        overrides
    }

    /// What this run asks of the settings, as `app` takes it: the file named
    /// by `--config`, whether it serves only the KB tools, the overrides.
    pub(crate) fn launch_options(&self) -> LaunchOptions {
        LaunchOptions {
            config_file: self.flags.config.clone(),
            kb_only: self.kb_only(),
            overrides: self.overrides(),
        }
    }
}

/// Trims names and drops empty ones (`--tools "a, b,"`).
fn clean_names(names: &[String]) -> Vec<String> {
    names
        .iter()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::tests::parse;

    fn entries(cli: &Cli) -> Vec<(SettingKey, Value, String)> {
        cli.override_entries()
    }

    fn e(k: SettingKey, v: Value, l: &str) -> (SettingKey, Value, String) {
        (k, v, l.into())
    }

    #[test]
    fn no_flags_no_overrides() {
        let cli = parse(&[]);
        assert!(cli.command.is_none());
        assert!(cli.override_entries().is_empty());
        assert!(cli.overrides().is_empty());
    }

    #[test]
    fn flags_become_labelled_overrides() {
        let cli = parse(&[
            "--transport",
            "streamable_http",
            "--port",
            "0",
            "--host",
            "::1",
            "--domain",
            "supply",
            "--read-only",
            "--tools",
            "lorebase_get, lorebase_schema,",
            "--exclude-tools",
            "lorebase_diff",
            "--keeper-url",
            "http://k:1",
            "--log-format",
            "json",
        ]);
        assert_eq!(
            entries(&cli),
            vec![
                e(
                    SettingKey::Transport,
                    json!("streamable_http"),
                    "--transport"
                ),
                e(SettingKey::HttpHost, json!("::1"), "--host"),
                e(SettingKey::HttpPort, json!(0), "--port"),
                e(SettingKey::Domain, json!("supply"), "--domain"),
                e(
                    SettingKey::KeeperBaseUrl,
                    json!("http://k:1"),
                    "--keeper-url"
                ),
                e(SettingKey::ToolsReadOnly, json!(true), "--read-only"),
                e(
                    SettingKey::ToolsAllow,
                    json!(["lorebase_get", "lorebase_schema"]),
                    "--tools"
                ),
                e(
                    SettingKey::ToolsDeny,
                    json!(["lorebase_diff"]),
                    "--exclude-tools"
                ),
                e(SettingKey::LogFormat, json!("json"), "--log-format"),
            ]
        );
    }

    #[test]
    fn flags_after_the_command_count_too() {
        let cli = parse(&["demo", "--transport", "streamable_http", "--port", "9"]);
        assert!(matches!(cli.command, Some(Command::Demo)));
        assert_eq!(
            entries(&cli),
            vec![
                e(
                    SettingKey::Transport,
                    json!("streamable_http"),
                    "--transport"
                ),
                e(SettingKey::HttpPort, json!(9), "--port"),
            ]
        );
    }

    #[test]
    fn kb_command_serves_only_kb_tools() {
        let cli = parse(&["kb", "/tmp/kb"]);
        assert!(cli.kb_only());
        assert_eq!(
            entries(&cli),
            vec![
                e(SettingKey::KbDir, json!("/tmp/kb"), "kb DIR"),
                e(
                    SettingKey::ToolsAllow,
                    json!(["kb_search", "kb_get"]),
                    "kb DIR"
                ),
            ]
        );
        let narrowed = parse(&["kb", "/tmp/kb", "--tools", "kb_search"]);
        assert_eq!(
            entries(&narrowed)[1],
            e(SettingKey::ToolsAllow, json!(["kb_search"]), "--tools")
        );
    }
}

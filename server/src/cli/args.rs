//! The command line's grammar (clap): `lorebase-herald [OPTIONS] [COMMAND]`,
//! the settings flags and the commands.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use herald_core::config::aliases::{flag, flag_help};
use herald_core::config::{LogFormat, SettingKey};

/// The version line: `lorebase-herald 0.1.0 (commit abc123def456)`.
pub(crate) const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("HERALD_COMMIT"),
    ")"
);

/// Lorebase Herald: the MCP server for Lorebase Domains.
#[derive(Debug, Parser)]
#[command(
    name = "lorebase-herald",
    version = VERSION_LINE,
    about = "Lorebase Herald: a Lorebase Domain (and a markdown KB) as MCP tools, over stdio or Streamable HTTP",
    long_about = None,
    after_help = "Without a command, serves per the settings (stdio by default).\n\
                  Settings: the YAML file named by --config or LOREBASE_CONFIG (herald section), then \
                  LOREBASE__HERALD__... variables, then LOREBASE_URL, LOREBASE_API_KEY, LOREBASE_DOMAIN, \
                  LOREBASE_BRANCH, then these flags.\n\
                  First run: `lorebase-herald demo` (an in-process sample Keeper, no setup)."
)]
pub(crate) struct Cli {
    /// What to do (default: serve).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Settings flags, accepted before or after the command.
    #[command(flatten)]
    pub flags: Flags,
}

/// The settings flags.
#[derive(Debug, Default, Clone, Args)]
pub(crate) struct Flags {
    /// The YAML settings file (instead of LOREBASE_CONFIG).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    // A flag that sets a settings key takes its name and help line from the
    // key's entry in the settings table (herald_core::config::aliases).
    #[arg(long = const { flag(SettingKey::Transport) }, help = flag_help(SettingKey::Transport), global = true, value_enum)]
    pub transport: Option<TransportArg>,
    #[arg(long = const { flag(SettingKey::HttpHost) }, help = flag_help(SettingKey::HttpHost), global = true)]
    pub host: Option<String>,
    #[arg(long = const { flag(SettingKey::HttpPort) }, help = flag_help(SettingKey::HttpPort), global = true)]
    pub port: Option<u16>,
    #[arg(long = const { flag(SettingKey::Domain) }, help = flag_help(SettingKey::Domain), global = true)]
    pub domain: Option<String>,
    #[arg(long = const { flag(SettingKey::Branch) }, help = flag_help(SettingKey::Branch), global = true)]
    pub branch: Option<String>,
    #[arg(long = const { flag(SettingKey::KeeperBaseUrl) }, help = flag_help(SettingKey::KeeperBaseUrl), global = true, value_name = "URL")]
    pub keeper_url: Option<String>,
    #[arg(long = const { flag(SettingKey::KbDir) }, help = flag_help(SettingKey::KbDir), global = true, value_name = "DIR")]
    pub kb: Option<PathBuf>,
    #[arg(long = const { flag(SettingKey::ToolsReadOnly) }, help = flag_help(SettingKey::ToolsReadOnly), global = true)]
    pub read_only: bool,
    #[arg(
        long = const { flag(SettingKey::ToolsAllow) },
        help = flag_help(SettingKey::ToolsAllow),
        global = true,
        value_delimiter = ',',
        value_name = "NAMES"
    )]
    pub tools: Option<Vec<String>>,
    #[arg(
        long = const { flag(SettingKey::ToolsDeny) },
        help = flag_help(SettingKey::ToolsDeny),
        global = true,
        value_delimiter = ',',
        value_name = "NAMES"
    )]
    pub exclude_tools: Option<Vec<String>>,
    /// Log level or filter (error, warn, info, debug, trace; default RUST_LOG, else info).
    #[arg(long = "log-level", global = true, value_name = "LEVEL")]
    pub log_level: Option<String>,
    #[arg(long = const { flag(SettingKey::LogFormat) }, help = flag_help(SettingKey::LogFormat), global = true, value_enum)]
    pub log_format: Option<LogFormatArg>,
}

/// The log formats, as flag values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormatArg {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

impl LogFormatArg {
    /// The settings value.
    pub(crate) fn format(self) -> LogFormat {
        match self {
            Self::Text => LogFormat::Text,
            Self::Json => LogFormat::Json,
        }
    }
}

/// The transports, as flag values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub(crate) enum TransportArg {
    /// One Herald per agent, started by the host.
    Stdio,
    /// One shared Herald on HTTP; each caller sends its own key.
    StreamableHttp,
}

impl TransportArg {
    /// The settings value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Stdio => "stdio",
            Self::StreamableHttp => "streamable_http",
        }
    }
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve per the settings (the default).
    Serve,
    /// Start a sample Keeper in-process and serve Herald on it; prints host configurations.
    Demo,
    /// Run one tool call and print its output (exit 1 on a tool error).
    Call {
        /// The tool's name (see `lorebase-herald tools`).
        tool: String,
        /// The arguments as a JSON object (`-` reads them from stdin; default `{}`).
        json: Option<String>,
    },
    /// List the tools served.
    Tools {
        /// text (one line per tool) or json (the definitions a model sees).
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
        /// Print each tool's cost in tokens (o200k_base) and the total
        /// against the list's budget, instead of the list.
        #[arg(long, conflicts_with = "format")]
        tokens: bool,
    },
    /// Serve only the knowledge-base tools over DIR (no Keeper, no settings file needed).
    Kb {
        /// The catalog directory.
        dir: PathBuf,
    },
    /// GET a health endpoint: exit 0 when it answers 2xx, 1 otherwise (container health checks).
    Health {
        /// The URL (default: this Herald's /healthz per the settings,
        /// http://127.0.0.1:8090/healthz; with the stdio transport, healthy at once).
        url: Option<String>,
    },
}

/// How `tools` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ListFormat {
    /// One line per tool.
    Text,
    /// The JSON list of definitions, as `tools/list` sends them.
    Json,
}

impl Cli {
    /// Parses `args` (the first one is the program name).
    pub(crate) fn parse_args(args: &[String]) -> Result<Self, clap::Error> {
        Self::try_parse_from(args)
    }

    /// Whether this run serves only the KB tools (`kb DIR`).
    pub(crate) fn kb_only(&self) -> bool {
        matches!(self.command, Some(Command::Kb { .. }))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Parses `args` after the program name; panics on a usage error.
    pub(crate) fn parse(args: &[&str]) -> Cli {
        let args: Vec<String> = std::iter::once("lorebase-herald")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        Cli::parse_args(&args).expect("parses")
    }

    #[test]
    fn call_and_tools_parse() {
        let cli = parse(&["call", "lorebase_get", r#"{"ref":"Supplier/S-1001"}"#]);
        match cli.command {
            Some(Command::Call { tool, json }) => {
                assert_eq!(tool, "lorebase_get");
                assert_eq!(json.as_deref(), Some(r#"{"ref":"Supplier/S-1001"}"#));
            }
            other => panic!("unexpected {other:?}"),
        }
        let cli = parse(&["health"]);
        assert!(matches!(cli.command, Some(Command::Health { url: None })));
        let cli = parse(&["health", "http://herald:8090/healthz"]);
        assert!(
            matches!(cli.command, Some(Command::Health { url: Some(u) }) if u == "http://herald:8090/healthz")
        );
        let cli = parse(&["tools", "--format", "json"]);
        assert!(matches!(
            cli.command,
            Some(Command::Tools {
                format: ListFormat::Json,
                tokens: false
            })
        ));
        let cli = parse(&["tools", "--tokens"]);
        assert!(matches!(
            cli.command,
            Some(Command::Tools { tokens: true, .. })
        ));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        for bad in [
            vec!["lorebase-herald", "--port", "99999"],
            vec!["lorebase-herald", "--transport", "carrier-pigeon"],
            vec!["lorebase-herald", "call"],
            vec!["lorebase-herald", "nonsense"],
        ] {
            let args: Vec<String> = bad.into_iter().map(String::from).collect();
            assert!(Cli::parse_args(&args).is_err());
        }
    }

    /// The flags that set a settings key are the settings table's, each
    /// with its help line, both ways; only `--config` and `--log-level`
    /// (no key) are the command line's own.
    #[test]
    fn the_settings_flags_are_the_settings_tables() {
        use std::collections::BTreeMap;

        use clap::CommandFactory;
        use herald_core::config::aliases::flags;

        let own = ["config", "log-level", "help", "version"];
        let clap_flags: BTreeMap<String, String> = Cli::command()
            .get_arguments()
            .filter_map(|arg| Some((arg.get_long()?, arg)))
            .filter(|(long, _)| !own.contains(long))
            .map(|(long, arg)| {
                let help = arg.get_help().map(ToString::to_string);
                (long.to_string(), help.unwrap_or_default())
            })
            .collect();
        let table: BTreeMap<String, String> = flags()
            .map(|(name, help, _)| (name.to_string(), help.to_string()))
            .collect();
        assert_eq!(clap_flags, table);

        // The closing note names the short variables: the table's.
        let note = Cli::command().get_after_help().map(ToString::to_string);
        let short_vars: Vec<&str> = herald_core::config::aliases::short_vars()
            .map(|(name, _)| name)
            .collect();
        let listed = format!("then {}, then these flags", short_vars.join(", "));
        assert!(note.unwrap_or_default().contains(&listed), "{listed}");
    }

    #[test]
    fn version_names_the_commit() {
        assert!(VERSION_LINE.starts_with(env!("CARGO_PKG_VERSION")));
        assert!(VERSION_LINE.contains("(commit "));
    }
}

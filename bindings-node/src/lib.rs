//! Lorebase Herald for Node.js: the napi addon behind the `lorebase-herald` npm
//! package.
//!
//! - [`Herald`]: the tools in-process, for Node agents (`listTools()`,
//!   `callTool(name, args, { apiKey })`), over `herald_core::tools::Toolbox`.
//! - [`run_cli`]: the whole `lorebase-herald` command line (serve, `demo`,
//!   `call`, `tools`, `kb`) over `herald_server`, for `npx lorebase-herald`.
//!
//! Nothing here re-implements a tool or a setting: settings go through
//! `Settings::load`, calls through `Toolbox::call`, the command line through
//! `herald_server::run_cli`.

mod cli;
mod coded_error;
mod herald;
mod options;
mod tool_types;

pub use cli::run_cli;
pub use herald::Herald;
pub use options::{CallOptions, HeraldOptions, SettingOption, setting_options};
pub use tool_types::{ToolAnnotations, ToolDefinition, ToolResult};

//! The command line: its grammar ([`args`]), the settings it asks for
//! ([`overrides`]: the flags are the top settings layer, applied by `app` over
//! the file and the environment), and the commands that run once
//! ([`commands`]: `call`, `tools`; [`demo`]; [`health`]; [`tool_tokens`]).
//! `cli` parses and calls `app`; `app` knows no type of `cli`.

pub(crate) mod args;
pub(crate) mod commands;
#[cfg(feature = "demo")]
pub(crate) mod demo;
pub(crate) mod health;
pub(crate) mod overrides;
pub(crate) mod tool_tokens;

pub(crate) use args::{Cli, Command, ListFormat, LogFormatArg};

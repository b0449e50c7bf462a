//! Every tool's argument parsing: the first byte picks a tool, the rest is
//! its arguments (JSON text, parsed as the front ends parse it). Every answer
//! must be well formed and within the caps ([`herald_fuzz::check_output`]).
#![no_main]

use herald_core::tool_interface::arguments_from_json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(arguments) = arguments_from_json(Some(text)) else {
        return;
    };
    let names = herald_fuzz::tool_names();
    let name = &names[usize::from(selector) % names.len()];
    herald_fuzz::call_and_check(name, arguments);
});

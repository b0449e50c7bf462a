//! A C ABI for Lorebase Herald's tools: filled by its own issue.

//! Lorebase Herald bindings for node: filled by their own issue.

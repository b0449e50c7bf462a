//! Lorebase Herald bindings for python: filled by their own issue.

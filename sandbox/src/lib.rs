//! The sandbox Keeper (issue 2).

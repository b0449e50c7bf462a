//! The lorebase-herald MCP server (issue 5).

//! The checks every Streamable HTTP request passes before rmcp sees it:
//! DNS-rebinding protection (the `Host` header, the authority of an
//! absolute-form target, the `Origin` header), the body size limit, a body
//! that is one JSON-RPC message, routing headers that match the body
//! ([`crate::http::routing_headers`]), and a bound on the JSON values one
//! body holds ([`MAX_JSON_VALUES`](crate::mcp::probe::MAX_JSON_VALUES)). The body is probed without
//! building a tree ([`crate::mcp::probe`]); rmcp parses it once. A refused request gets
//! a JSON-RPC error body (400, 403 or 413; a tool call with too many values,
//! a tool error) and is never forwarded. A large body is probed and handled
//! on a lane of its own ([`lane`]), so small calls never queue behind it.

mod budget;
mod lane;
mod message;
mod middleware;
mod policy;

pub(crate) use budget::JsonBudget;
pub(crate) use lane::LargeBodyLane;
pub(crate) use message::refusal;
pub(crate) use middleware::{GuardState, guard};
pub(crate) use policy::GuardPolicy;

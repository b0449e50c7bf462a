//! What the guard accepts of a request's headers ([`GuardPolicy`]): the
//! `Host` (one only, an accepted name and port), the authority of an
//! absolute-form target, the `Origin`; and the body limit it applies. A
//! refused header is a [`Refusal`] (403 with a JSON-RPC body; a second
//! Host, 400).

use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use herald_core::config::SettingKey;

use super::message::refusal;

/// Host names accepted on any port, besides `http.allowed_hosts`.
pub(crate) const DEFAULT_HOSTS: [&str; 3] = ["127.0.0.1", "localhost", "::1"];
/// Origins accepted on any port, besides `http.allowed_origins`.
pub(crate) const DEFAULT_ORIGINS: [&str; 2] = ["http://127.0.0.1", "http://localhost"];

/// What the guard accepts.
#[derive(Debug, Clone)]
pub(crate) struct GuardPolicy {
    hosts: Vec<HostRule>,
    origins: Vec<OriginRule>,
    max_body_bytes: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct HostRule {
    host: String,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct OriginRule {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl GuardPolicy {
    /// The defaults plus the configured extra hosts and origins. A host entry
    /// is `name` (any port) or `name:port`; an origin entry is
    /// `scheme://host` (any port) or `scheme://host:port`. Entries that cannot
    /// be parsed are errors.
    pub(crate) fn new(
        allowed_hosts: &[String],
        allowed_origins: &[String],
        max_body_bytes: usize,
    ) -> Result<Self, String> {
        let hosts = DEFAULT_HOSTS
            .iter()
            .map(std::string::ToString::to_string)
            .chain(allowed_hosts.iter().cloned())
            .map(|h| {
                parse_authority(&h)
                    .map(|(host, port)| HostRule { host, port })
                    .ok_or_else(|| {
                        let key = SettingKey::HttpAllowedHosts;
                        format!("{key}: {h:?} is not a host or host:port")
                    })
            })
            .collect::<Result<_, _>>()?;
        let origins = DEFAULT_ORIGINS
            .iter()
            .map(std::string::ToString::to_string)
            .chain(allowed_origins.iter().cloned())
            .map(|o| {
                parse_origin(&o)
                    .map(|(scheme, host, port)| OriginRule { scheme, host, port })
                    .ok_or_else(|| {
                        let key = SettingKey::HttpAllowedOrigins;
                        format!("{key}: {o:?} is not an origin such as https://app.example.com")
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            hosts,
            origins,
            max_body_bytes,
        })
    }

    /// Whether a `Host` value is accepted.
    pub(crate) fn host_allowed(&self, value: &str) -> bool {
        let Some((host, port)) = parse_authority(value) else {
            return false;
        };
        self.hosts
            .iter()
            .any(|r| r.host == host && r.port.is_none_or(|p| Some(p) == port))
    }

    /// Whether an `Origin` value is accepted.
    pub(crate) fn origin_allowed(&self, value: &str) -> bool {
        let Some((scheme, host, port)) = parse_origin(value) else {
            return false;
        };
        self.origins.iter().any(|r| {
            r.scheme == scheme
                && r.host == host
                && r.port
                    .is_none_or(|p| Some(p) == port.or_else(|| default_port(&scheme)))
        })
    }

    /// Checks the `Host` header, the authority of an absolute-form target
    /// (`POST http://host/mcp`) and the `Origin` header of a request. Both
    /// the Host and the target's authority must be accepted: a proxy or a
    /// server further on may trust either.
    pub(crate) fn check_headers(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        let mut hosts = headers.get_all(header::HOST).iter();
        let host = hosts.next();
        if hosts.next().is_some() {
            // RFC 9112, section 3.2: more than one Host is a bad request.
            tracing::warn!("refused a request with more than one Host header");
            return Err(Refusal::DuplicateHost);
        }
        let host = host.map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned());
        let authority = uri.authority().map(std::string::ToString::to_string);
        if host.is_none() && authority.is_none() {
            return Err(Refusal::MissingHost);
        }
        for h in host.iter().chain(authority.iter()) {
            if !self.host_allowed(h) {
                tracing::warn!(host = %truncate(h), "refused a request with a foreign Host (DNS rebinding protection)");
                return Err(Refusal::ForeignHost);
            }
        }
        for origin in headers.get_all(header::ORIGIN) {
            if !origin.to_str().is_ok_and(|o| self.origin_allowed(o)) {
                tracing::warn!(origin = %truncate(&String::from_utf8_lossy(origin.as_bytes())), "refused a request with a foreign Origin");
                return Err(Refusal::ForeignOrigin);
            }
        }
        Ok(())
    }

    /// The body limit in bytes.
    pub(crate) fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }
}

/// Why the guard refused a request's headers (each answers 403 with a
/// JSON-RPC body, but a second Host, 400).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    /// More than one `Host` header.
    #[error("Bad Request: more than one Host header")]
    DuplicateHost,
    /// The `Host` is not an accepted one.
    #[error("Forbidden: Host header is not allowed")]
    ForeignHost,
    /// No `Host` at all.
    #[error("Forbidden: missing Host header")]
    MissingHost,
    /// An `Origin` that is not an accepted one.
    #[error("Forbidden: Origin header is not allowed")]
    ForeignOrigin,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Self::DuplicateHost => refusal(StatusCode::BAD_REQUEST, -32600, &self.to_string()),
            _ => refusal(StatusCode::FORBIDDEN, -32000, &self.to_string()),
        }
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(100).collect()
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// `host[:port]` (IPv6 in brackets) → lowercase host without brackets, port.
fn parse_authority(value: &str) -> Option<(String, Option<u16>)> {
    let value = value.trim();
    if value.is_empty() || value.contains(['/', '@', ' ', '?', '#']) {
        return None;
    }
    let (host, port) = if let Some(rest) = value.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?.parse::<u16>().ok()?),
        };
        (host.to_string(), port)
    } else if value.matches(':').count() > 1 {
        // A bare IPv6 address (only in configuration entries such as "::1").
        (value.to_string(), None)
    } else {
        match value.split_once(':') {
            Some((h, p)) => (h.to_string(), Some(p.parse::<u16>().ok()?)),
            None => (value.to_string(), None),
        }
    };
    if host.is_empty() {
        return None;
    }
    Some((host.to_ascii_lowercase(), port))
}

/// `scheme://host[:port]` → scheme, host, port (`:*` means any port).
fn parse_origin(value: &str) -> Option<(String, String, Option<u16>)> {
    let (scheme, rest) = value.trim().split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return None;
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let rest = rest.strip_suffix(":*").unwrap_or(rest);
    let (host, port) = parse_authority(rest)?;
    Some((scheme.to_ascii_lowercase(), host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> GuardPolicy {
        GuardPolicy::new(
            &["herald".into(), "mcp.example.com:443".into()],
            &[
                "https://app.example.com".into(),
                "http://tool.local:3000".into(),
            ],
            1024,
        )
        .unwrap()
    }

    #[test]
    fn default_hosts_on_any_port() {
        let p = policy();
        for ok in [
            "127.0.0.1",
            "127.0.0.1:8090",
            "localhost:1",
            "LOCALHOST",
            "[::1]:8090",
            "[::1]",
        ] {
            assert!(p.host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.com",
            "evil.com:8090",
            "127.0.0.2",
            "localhost.evil.com",
            "",
            "[::2]",
            "localhost:x",
            "a@localhost",
        ] {
            assert!(!p.host_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn configured_hosts() {
        let p = policy();
        assert!(p.host_allowed("herald:8090"));
        assert!(p.host_allowed("mcp.example.com:443"));
        assert!(!p.host_allowed("mcp.example.com:8443"));
        assert!(!p.host_allowed("mcp.example.com"));
    }

    #[test]
    fn origins() {
        let p = policy();
        for ok in [
            "http://localhost:5173",
            "http://127.0.0.1",
            "https://app.example.com",
            "https://app.example.com:8443",
            "http://tool.local:3000",
        ] {
            assert!(p.origin_allowed(ok), "{ok}");
        }
        for bad in [
            "https://localhost:5173",
            "http://evil.com",
            "null",
            "http://tool.local:3001",
            "http://tool.local",
            "http://localhost.evil.com",
            "",
        ] {
            assert!(!p.origin_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn bad_configuration_is_refused() {
        assert!(GuardPolicy::new(&["a/b".into()], &[], 1).is_err());
        assert!(GuardPolicy::new(&[], &["app.example.com".into()], 1).is_err());
        assert!(GuardPolicy::new(&["host:99999".into()], &[], 1).is_err());
    }

    #[test]
    fn header_checks_answer_json_rpc_403() {
        let p = policy();
        let uri: Uri = "/mcp".parse().unwrap();
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "localhost:8090".parse().unwrap());
        assert!(p.check_headers(&uri, &h).is_ok());
        h.insert(header::ORIGIN, "http://evil.com".parse().unwrap());
        let refused = p.check_headers(&uri, &h).unwrap_err();
        assert_eq!(refused, Refusal::ForeignOrigin);
        assert_eq!(refused.into_response().status(), StatusCode::FORBIDDEN);
        h.remove(header::ORIGIN);
        h.insert(header::HOST, "evil.com".parse().unwrap());
        assert_eq!(p.check_headers(&uri, &h), Err(Refusal::ForeignHost));
        assert_eq!(
            p.check_headers(&uri, &HeaderMap::new()),
            Err(Refusal::MissingHost)
        );
    }

    #[test]
    fn two_hosts_are_a_bad_request() {
        let p = policy();
        let uri: Uri = "/mcp".parse().unwrap();
        let mut h = HeaderMap::new();
        h.append(header::HOST, "localhost".parse().unwrap());
        h.append(header::HOST, "evil.com".parse().unwrap());
        let refused = p.check_headers(&uri, &h).unwrap_err();
        assert_eq!(refused, Refusal::DuplicateHost);
        assert_eq!(refused.into_response().status(), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn an_absolute_target_is_checked_by_its_authority() {
        let p = policy();
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "localhost".parse().unwrap());
        let foreign: Uri = "http://evil.com/mcp".parse().unwrap();
        assert_eq!(p.check_headers(&foreign, &h), Err(Refusal::ForeignHost));
        let local: Uri = "http://127.0.0.1:8090/mcp".parse().unwrap();
        assert!(p.check_headers(&local, &h).is_ok());
        assert!(p.check_headers(&local, &HeaderMap::new()).is_ok());
    }
}

//! Who a connection's client is, for the connection limits: its TCP
//! address, or behind a proxy listed in `http.trusted_proxies` the client
//! address that proxy forwards ([`forwarded_client`]); and how many
//! connections one client may hold ([`PeerRules`]).

use std::net::IpAddr;
use std::sync::Arc;

use axum::http::HeaderMap;
use herald_core::config::{HttpSettings, IpRange};

/// How the connection table shares its slots among clients.
#[derive(Debug, Clone)]
pub(crate) struct PeerRules {
    /// Most connections open at once (`http.max_connections`, clamped below
    /// the open-file limit).
    pub(crate) max: usize,
    /// Most connections one client address may hold
    /// (`http.max_connections_per_peer`).
    pub(crate) per_peer: usize,
    /// `http.trusted_proxies`.
    trusted: Arc<[IpRange]>,
}

impl PeerRules {
    /// The rules of `http` for a table of `max` connections.
    pub(crate) fn of(http: &HttpSettings, max: usize) -> Self {
        Self {
            max,
            per_peer: http.peer_connection_limit(max),
            trusted: http.trusted_proxies.clone().into(),
        }
    }

    /// `max` connections, with no limit per client and no proxy believed.
    pub(crate) fn uniform(max: usize) -> Self {
        Self {
            max,
            per_peer: max,
            trusted: Arc::from([]),
        }
    }

    /// Whether `ip` is a proxy whose forwarded address is believed.
    pub(crate) fn is_trusted(&self, ip: IpAddr) -> bool {
        self.trusted.iter().any(|range| range.contains(ip))
    }

    /// The client a request from `socket` stands for: the forwarded address
    /// when `socket` is a trusted proxy and the request names one
    /// ([`forwarded_client`]).
    pub(crate) fn client_of(&self, socket: IpAddr, headers: &HeaderMap) -> Option<IpAddr> {
        if self.trusted.is_empty() || !self.is_trusted(socket) {
            return None;
        }
        forwarded_client(headers, |ip| self.is_trusted(ip))
    }
}

/// The client address a chain of proxies forwards: walking
/// `X-Forwarded-For` (every such header, in order) from the right, the first
/// address that is not a trusted proxy, since each proxy appends the address
/// it got the connection from and only the trusted ones' entries are true;
/// without that header, the `for=` entries of `Forwarded` (RFC 7239) alike.
/// When every entry is trusted, the left-most. `None` when neither header
/// names an address, or an entry met before the client is not an address
/// (`unknown`, an obfuscated name): then nothing beyond it is believed.
pub(crate) fn forwarded_client(
    headers: &HeaderMap,
    trusted: impl Fn(IpAddr) -> bool,
) -> Option<IpAddr> {
    let entries: Vec<String> = if headers.contains_key("x-forwarded-for") {
        headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|e| e.trim().to_string())
            .collect()
    } else {
        headers
            .get_all("forwarded")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|element| {
                element.split(';').find_map(|pair| {
                    let (name, value) = pair.split_once('=')?;
                    name.trim()
                        .eq_ignore_ascii_case("for")
                        .then(|| value.trim().trim_matches('"').to_string())
                })
            })
            .collect()
    };
    let mut leftmost = None;
    for entry in entries.iter().rev() {
        let ip = parse_node(entry)?;
        if !trusted(ip) {
            return Some(ip);
        }
        leftmost = Some(ip);
    }
    leftmost
}

/// An address as a forwarding header writes it: `203.0.113.7`,
/// `203.0.113.7:4711`, `[2001:db8::1]:4711`, `2001:db8::1`.
fn parse_node(entry: &str) -> Option<IpAddr> {
    if let Ok(ip) = entry.parse() {
        return Some(ip);
    }
    if let Some(rest) = entry.strip_prefix('[') {
        return rest.split(']').next()?.parse().ok();
    }
    let (host, port) = entry.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    host.parse().ok()
}

/// Whether bytes wait unread in the socket `fd` (a request that arrived but
/// that its task has not read yet); false where this cannot be asked.
pub(crate) fn bytes_waiting(fd: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        if fd < 0 {
            return false;
        }
        let mut n: libc::c_int = 0;
        // SAFETY: FIONREAD writes one c_int; a descriptor closed meanwhile
        // makes the call fail (or ask another socket), never unsafe.
        let asked = unsafe { libc::ioctl(fd, libc::FIONREAD, std::ptr::from_mut(&mut n)) };
        asked == 0 && n > 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = fd;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn proxies(ip: IpAddr) -> bool {
        ip.to_string().starts_with("10.")
    }

    #[test]
    fn the_client_is_the_rightmost_untrusted_forwarded_address() {
        let h = headers(&[("x-forwarded-for", "1.1.1.1, 203.0.113.7, 10.0.0.2")]);
        // 1.1.1.1 is what the client wrote itself: not believed.
        assert_eq!(forwarded_client(&h, proxies), Some(ip("203.0.113.7")));
        let h = headers(&[
            ("x-forwarded-for", "1.1.1.1"),
            ("x-forwarded-for", "203.0.113.9:5555, 10.1.1.1"),
        ]);
        assert_eq!(forwarded_client(&h, proxies), Some(ip("203.0.113.9")));
        let h = headers(&[("x-forwarded-for", "10.0.0.5, 10.0.0.2")]);
        assert_eq!(forwarded_client(&h, proxies), Some(ip("10.0.0.5")));
        let h = headers(&[("x-forwarded-for", "1.1.1.1, unknown, 10.0.0.2")]);
        assert_eq!(forwarded_client(&h, proxies), None);
        assert_eq!(forwarded_client(&HeaderMap::new(), proxies), None);
    }

    #[test]
    fn forwarded_is_read_when_x_forwarded_for_is_absent() {
        let h = headers(&[(
            "forwarded",
            "for=1.1.1.1, for=\"[2001:db8::7]:4711\";proto=https, For=10.0.0.3",
        )]);
        assert_eq!(forwarded_client(&h, proxies), Some(ip("2001:db8::7")));
        let h = headers(&[("forwarded", "for=_hidden, for=10.0.0.3")]);
        assert_eq!(forwarded_client(&h, proxies), None);
    }

    #[test]
    fn only_a_trusted_proxy_is_believed() {
        let http = HttpSettings {
            trusted_proxies: vec!["10.0.0.0/8".parse().unwrap()],
            ..herald_core::config::Settings::default().http
        };
        let rules = PeerRules::of(&http, 1024);
        assert_eq!(rules.per_peer, 1024, "no limit of its own by default");
        let capped = HttpSettings {
            max_connections_per_peer: 256,
            ..http.clone()
        };
        assert_eq!(PeerRules::of(&capped, 1024).per_peer, 256);
        assert_eq!(PeerRules::of(&capped, 64).per_peer, 64);
        let h = headers(&[("x-forwarded-for", "203.0.113.7")]);
        assert_eq!(rules.client_of(ip("10.9.9.9"), &h), Some(ip("203.0.113.7")));
        assert_eq!(rules.client_of(ip("192.0.2.1"), &h), None);
    }
}

//! Where a bearer token may travel in cleartext: the host classification of
//! the cleartext-credential guard. It looks only at the URL's host, never at
//! DNS: a name counts as non-public by its shape alone.
//!
//! Non-public: loopback (127.0.0.0/8, `::1`), private ranges (RFC 1918
//! 10/8, 172.16/12, 192.168/16; `fc00::/7`), link-local (169.254/16,
//! `fe80::/10`), `localhost` and `*.localhost`, single-label names
//! (`keeper`, `runbooks`), and names under `.local`, `.internal`, `.svc` or
//! `.cluster.local`. Everything else is public, including `0.0.0.0` and
//! shared-address space (100.64/10): when in doubt, the token is refused.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::Host;

/// Name suffixes that never resolve on the public Internet (`.cluster.local`
/// is covered by `.local`).
const PRIVATE_SUFFIXES: [&str; 3] = [".local", ".internal", ".svc"];

/// Whether `host` is a non-public host (a token may go there over plain
/// `http://`).
pub fn is_non_public(host: &Host<&str>) -> bool {
    match host {
        Host::Ipv4(ip) => is_non_public_ipv4(*ip),
        Host::Ipv6(ip) => is_non_public_ipv6(*ip),
        Host::Domain(name) => is_non_public_name(name),
    }
}

/// [`is_non_public`] for an IP address.
pub fn is_non_public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_non_public_ipv4(v4),
        IpAddr::V6(v6) => is_non_public_ipv6(v6),
    }
}

fn is_non_public_ipv4(ip: Ipv4Addr) -> bool {
    ip.is_loopback() || ip.is_private() || ip.is_link_local()
}

fn is_non_public_ipv6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_non_public_ipv4(v4);
    }
    let first = ip.segments()[0];
    ip.is_loopback()
        // fc00::/7, unique local addresses
        || (first & 0xfe00) == 0xfc00
        // fe80::/10, link-local
        || (first & 0xffc0) == 0xfe80
}

/// A host name (not an address): `localhost`, a single label, or a private suffix.
fn is_non_public_name(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if name.is_empty() {
        return false;
    }
    // A name that is an address in brackets or dotted form was parsed as one
    // by `url`; a bare IPv6 literal here would be malformed, so check anyway.
    if let Ok(ip) = name.trim_matches(['[', ']']).parse::<IpAddr>() {
        return is_non_public_ip(ip);
    }
    name == "localhost"
        || name.ends_with(".localhost")
        || !name.contains('.')
        || PRIVATE_SUFFIXES.iter().any(|s| name.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url_host_is_non_public(url: &str) -> bool {
        let url = url::Url::parse(url).unwrap();
        is_non_public(&url.host().unwrap())
    }

    #[test]
    fn non_public_hosts() {
        for url in [
            "http://127.0.0.1:8080/mcp",
            "http://127.1.2.3/mcp",
            "http://[::1]:9/mcp",
            "http://10.1.2.3/mcp",
            "http://172.16.0.1/mcp",
            "http://172.31.255.255/mcp",
            "http://192.168.1.10/mcp",
            "http://169.254.169.254/mcp",
            "http://[fc00::1]/mcp",
            "http://[fd12:3456::1]/mcp",
            "http://[fe80::1]/mcp",
            "http://[::ffff:10.0.0.1]/mcp",
            "http://localhost:3000/mcp",
            "http://LOCALHOST./mcp",
            "http://api.localhost/mcp",
            "http://runbooks/mcp",
            "http://runbooks:8000/mcp",
            "http://printer.local/mcp",
            "http://mcp.corp.internal/mcp",
            "http://runbooks.tools.svc/mcp",
            "http://runbooks.tools.svc.cluster.local/mcp",
        ] {
            assert!(url_host_is_non_public(url), "{url} should be non-public");
        }
    }

    #[test]
    fn public_hosts() {
        for url in [
            "http://8.8.8.8/mcp",
            "http://172.32.0.1/mcp",
            "http://172.15.255.255/mcp",
            "http://192.169.0.1/mcp",
            "http://100.64.0.1/mcp",
            "http://0.0.0.0/mcp",
            "http://[2001:db8::1]/mcp",
            "http://[::ffff:8.8.8.8]/mcp",
            "http://mcp.example.com/mcp",
            "http://localhost.example.com/mcp",
            "http://internal.example.com/mcp",
            "http://svc.example.com/mcp",
            "http://127.0.0.1.nip.io/mcp",
            "http://mcp.example.local.com/mcp",
        ] {
            assert!(!url_host_is_non_public(url), "{url} should be public");
        }
    }

    #[test]
    fn numeric_shorthands_are_classified_as_the_address_they_mean() {
        // `url` normalizes these to IPv4 addresses; no DNS is involved.
        assert!(url_host_is_non_public("http://0x7f.1/mcp"));
        assert!(url_host_is_non_public("http://2130706433/mcp"));
        assert!(!url_host_is_non_public("http://134744072/mcp"));
    }
}

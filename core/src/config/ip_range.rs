//! An address or a CIDR block (`10.0.0.0/8`, `::1`), as
//! `http.trusted_proxies` lists them.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// An IP address block: an address and how many leading bits of it count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange {
    addr: IpAddr,
    prefix: u8,
}

impl IpRange {
    /// Whether `ip` is in the block (an IPv4 address mapped into IPv6,
    /// `::ffff:10.0.0.1`, is taken as the IPv4 one).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => masked(
                u128::from(u32::from(net)),
                u128::from(u32::from(ip)),
                32,
                self.prefix,
            ),
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                masked(u128::from(net), u128::from(ip), 128, self.prefix)
            }
            _ => false,
        }
    }
}

/// Whether the first `prefix` of `bits` bits of `a` and `b` agree.
fn masked(a: u128, b: u128, bits: u8, prefix: u8) -> bool {
    let shift = u32::from(bits - prefix);
    shift >= u32::from(bits) || (a >> shift) == (b >> shift)
}

/// Why a text is no address block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected an IP address or a CIDR block such as 10.0.0.0/8, got {0:?}")]
pub struct IpRangeError(String);

impl FromStr for IpRange {
    type Err = IpRangeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || IpRangeError(text.to_string());
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text, None),
        };
        let addr: IpAddr = addr.trim_matches(['[', ']']).parse().map_err(|_| bad())?;
        let bits = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|&p| p <= bits)
                .ok_or_else(bad)?,
            None => bits,
        };
        Ok(Self { addr, prefix })
    }
}

impl fmt::Display for IpRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_block_holds_the_addresses_under_its_prefix() {
        let block: IpRange = "10.1.0.0/16".parse().unwrap();
        assert!(block.contains(ip("10.1.200.3")));
        assert!(!block.contains(ip("10.2.0.1")));
        assert!(block.contains(ip("::ffff:10.1.0.9")));
        let one: IpRange = "127.0.0.1".parse().unwrap();
        assert!(one.contains(ip("127.0.0.1")));
        assert!(!one.contains(ip("127.0.0.2")));
        let all: IpRange = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("203.0.113.7")));
        assert!(!all.contains(ip("::1")));
        let v6: IpRange = "fd00::/8".parse().unwrap();
        assert!(v6.contains(ip("fd12::1")));
        assert!(!v6.contains(ip("fe80::1")));
        assert!("[::1]".parse::<IpRange>().unwrap().contains(ip("::1")));
    }

    #[test]
    fn what_is_no_block_is_refused() {
        for bad in [
            "",
            "10.0.0.0/33",
            "::/129",
            "proxy.local",
            "10.0.0/8",
            "1.2.3.4/x",
        ] {
            assert!(bad.parse::<IpRange>().is_err(), "{bad}");
        }
    }
}

//! Which addresses the server may fetch from on a user's behalf (a photo by its URL): only the
//! public internet, never the machine itself, its private network, or the cloud's metadata
//! service, so that a URL given to the API cannot reach inside (server-side request forgery).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether `ip` is an address of the public internet: not loopback, unspecified, private
/// (10/8, 172.16/12, 192.168/16, fc00::/7), shared (100.64/10), link-local (169.254/16 — the
/// metadata service —, fe80::/10), multicast, broadcast, reserved (240/4, 0/8), or set aside
/// for documentation and benchmarks; an IPv4 address written as IPv6 is judged as IPv4.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_unspecified()
        || a == 0
        || a >= 240
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (18..20).contains(&b)))
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || first == 0x2001 && ip.segments()[1] == 0x0db8
        || first == 0x0064 && ip.segments()[1] == 0xff9b
        || ip.to_ipv4().is_some_and(|v4| !is_public_v4(v4)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(text: &str) -> bool {
        is_public(text.parse().unwrap())
    }

    #[test]
    fn only_the_public_internet_is_reachable() {
        for ok in ["1.1.1.1", "114.114.114.114", "223.5.5.5", "2400:3200::1", "2001:4860:4860::8888"] {
            assert!(public(ok), "{ok}");
        }
        for inside in [
            "127.0.0.1",
            "127.8.9.10",
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.8",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "100.127.255.254",
            "169.254.169.254",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "203.0.113.9",
            "::1",
            "::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
        ] {
            assert!(!public(inside), "{inside}");
        }
        // Neighbours of the private ranges are public.
        assert!(public("172.32.0.1") && public("100.128.0.1") && public("11.0.0.1") && public("::ffff:8.8.8.8"));
    }
}

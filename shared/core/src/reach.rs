//! Which addresses the service may connect to on a client's behalf (its back-channel logout
//! endpoint, the one request the service makes to a URI a client chose), and the name
//! resolution port that tells where a name points ([`Resolver`]).
//!
//! A URI's host is judged by the addresses it resolves to, not by its spelling: a name that
//! resolves to 127.0.0.1 is the service's own host as surely as `127.0.0.1` is. The
//! registration refuses such a name (as it refuses the literal), and the delivery resolves the
//! name again and connects only to addresses it vetted (a name may resolve elsewhere later).
//!
//! * A client that registered itself (RFC 7591): public unicast addresses only, never the
//!   service's own host or the operator's private networks (loopback, RFC 1918, CGNAT, ULA,
//!   link-local, ...), except in local development (a loopback `--public-url` on the
//!   embedded store), where everything is on loopback.
//! * The operator's clients: what the operator registered (the registration already refuses
//!   a loopback or link-local literal outside local development; a receiver on the
//!   operator's private network, by name, is theirs to choose).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};

/// Which addresses a client's back-channel logout endpoint may be at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reach {
    /// The operator's clients, and local development: any address.
    #[default]
    Any,
    /// Public unicast addresses only (a self-registered client).
    Public,
}

impl Reach {
    /// The reach of a client, by how it was registered and where the service runs.
    pub const fn of(local_development: bool, self_registered: bool) -> Self {
        if self_registered && !local_development {
            Reach::Public
        } else {
            Reach::Any
        }
    }

    /// Whether the service may connect to `ip`.
    pub fn allows(self, ip: IpAddr) -> bool {
        match self {
            Reach::Any => true,
            Reach::Public => public(ip),
        }
    }

    /// What a refusal says.
    pub const fn refusal(self) -> &'static str {
        match self {
            Reach::Any => "no address",
            Reach::Public => {
                "resolves to an address that is not public (loopback, private, link-local, unique local, ...): a self-registered client's endpoint must be on the internet"
            }
        }
    }
}

/// The IPv4 address inside an IPv6 one that carries it (mapped, compatible, NAT64).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = ip.segments();
    let [.., a, b, c, d] = ip.octets();
    let tail = Ipv4Addr::new(a, b, c, d);
    // ::a.b.c.d (deprecated compatible) and 64:ff9b::a.b.c.d (NAT64, RFC 6052).
    let compatible =
        s[..6] == [0, 0, 0, 0, 0, 0] && !tail.is_unspecified() && tail.octets() != [0, 0, 0, 1];
    let nat64 = s[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    (compatible || nat64).then_some(tail)
}

fn public(ip: IpAddr) -> bool {
    fn v4(ip: Ipv4Addr) -> bool {
        let [a, b, c, _] = ip.octets();
        !(ip.is_private()
            || ip.is_loopback()
            || ip.is_link_local()
            || ip.is_unspecified()
            || ip.is_broadcast()
            || ip.is_documentation()
            || ip.is_multicast()
            || a == 0
            // 100.64.0.0/10, shared address space (CGNAT, cloud metadata neighbours)
            || (a == 100 && (b & 0xc0) == 64)
            // 192.0.0.0/24, IETF protocol assignments
            || (a == 192 && b == 0 && c == 0)
            // 198.18.0.0/15, benchmarking
            || (a == 198 && (b & 0xfe) == 18)
            // 240.0.0.0/4, reserved
            || a >= 240)
    }
    match ip {
        IpAddr::V4(ip) => v4(ip),
        IpAddr::V6(ip) => {
            if let Some(inner) = embedded_v4(ip) {
                return v4(inner);
            }
            let s = ip.segments();
            !(ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_multicast()
                || ip.is_unique_local()
                || ip.is_unicast_link_local()
                // fec0::/10, site-local (deprecated)
                || (s[0] & 0xffc0) == 0xfec0
                // 2001:db8::/32, documentation
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                // 100::/64, discard
                || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]))
        }
    }
}

/// Name resolution: where a host name points. Passed in like the clock and randomness, so
/// tests say where a name resolves.
#[async_trait::async_trait]
pub trait Resolver: Send + Sync {
    /// The addresses of `host` (a name, not an address literal); an error when it cannot be
    /// resolved.
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>>;
}

/// The system's resolver (`getaddrinfo`: `/etc/hosts`, then DNS).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemResolver;

#[async_trait::async_trait]
impl Resolver for SystemResolver {
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        Ok(tokio::net::lookup_host((host, 0))
            .await?
            .map(|a| a.ip())
            .collect())
    }
}

/// A resolver that knows no name (the default of a context built for tests): a registration
/// is then judged by its spelling alone, and a delivery through it reaches nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoResolver;

#[async_trait::async_trait]
impl Resolver for NoResolver {
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{host}: no resolver"),
        ))
    }
}

/// A resolver with a fixed table (tests): each name to its addresses.
#[derive(Debug, Default, Clone)]
pub struct StaticResolver(pub Vec<(String, Vec<IpAddr>)>);

#[async_trait::async_trait]
impl Resolver for StaticResolver {
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.0
            .iter()
            .find(|(name, _)| *name == host)
            .map(|(_, a)| a.clone())
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, host))
    }
}

/// Whether `uri`'s host may be reached under `reach`: `Err(why)` when its address literal, or
/// any address its name resolves to, is not allowed. A name that cannot be resolved now is
/// not refused (the delivery resolves it again, and refuses then).
pub async fn check_uri(
    resolver: &dyn Resolver,
    uri: &str,
    reach: Reach,
) -> Result<(), &'static str> {
    if reach == Reach::Any {
        return Ok(());
    }
    let ips = match url::Url::parse(uri).ok().as_ref().and_then(url::Url::host) {
        Some(url::Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
        Some(url::Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
        Some(url::Host::Domain(d)) => resolver.lookup(d).await.unwrap_or_default(),
        None => return Err("has no host"),
    };
    if ips.iter().all(|ip| reach.allows(*ip)) {
        Ok(())
    } else {
        Err(reach.refusal())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn each_reach_allows_what_it_says() {
        let own = [
            "127.0.0.1",
            "127.1.2.3",
            "169.254.169.254",
            "0.0.0.0",
            "::1",
            "::",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::7f00:1",
        ];
        let private = [
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "100.64.0.1",
            "198.18.0.1",
            "192.0.0.8",
            "240.0.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "fd00::1",
            "fc00::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
        ];
        let public = [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ];
        for a in own.iter().chain(&private) {
            assert!(!Reach::Public.allows(ip(a)), "{a}");
            assert!(Reach::Any.allows(ip(a)), "{a}");
        }
        for a in public {
            assert!(Reach::Public.allows(ip(a)), "{a}");
        }
        assert_eq!(Reach::of(true, true), Reach::Any);
        assert_eq!(Reach::of(false, true), Reach::Public);
        assert_eq!(Reach::of(false, false), Reach::Any);
    }

    #[tokio::test]
    async fn a_uri_is_judged_by_where_its_name_resolves() {
        let r = StaticResolver(vec![
            ("internal.example".into(), vec![ip("127.0.0.1")]),
            ("office.example".into(), vec![ip("10.1.2.3")]),
            (
                "mixed.example".into(),
                vec![ip("93.184.216.34"), ip("10.1.2.3")],
            ),
            ("rp.example".into(), vec![ip("93.184.216.34")]),
        ]);
        let check = |uri: &'static str, reach| {
            let r = r.clone();
            async move { check_uri(&r, uri, reach).await.is_ok() }
        };
        assert!(!check("https://internal.example/bcl", Reach::Public).await);
        assert!(!check("https://INTERNAL.example./bcl", Reach::Public).await);
        assert!(check("https://internal.example/bcl", Reach::Any).await);
        assert!(!check("https://office.example/bcl", Reach::Public).await);
        assert!(!check("https://mixed.example/bcl", Reach::Public).await);
        assert!(check("https://rp.example/bcl", Reach::Public).await);
        assert!(!check("https://10.0.0.1/bcl", Reach::Public).await);
        assert!(!check("https://[fd00::1]/bcl", Reach::Public).await);
        // Unknown now: not refused here (the delivery resolves again).
        assert!(check("https://unknown.example/bcl", Reach::Public).await);
    }
}

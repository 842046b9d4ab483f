//! Where an address is: its approximate location (city, country) and network (autonomous
//! system), from GeoIP databases in the MaxMind DB format the operator configures
//! (`SCANID_GEOIP_DB`), behind the [`GeoIp`] port so tests inject their own.
//!
//! The files are read once, at start, into memory (a City/Country database and an ASN
//! database, or one database with both kinds of fields); a file that cannot be read or is
//! not a MaxMind DB stops the start with its path in the message. Without a database every
//! lookup answers nothing: the app shows the address alone.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv6Addr};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Where an address is, as far as the databases know (country and city in English).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The city, when known.
    pub city: Option<String>,
    /// The country (ISO 3166-1 alpha-2), when known.
    pub country: Option<String>,
    /// ISO 3166-1 alpha-2, upper case.
    pub country_code: Option<String>,
}

/// The autonomous system an address is announced by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Network {
    /// The autonomous system number.
    pub asn: u32,
    /// Its organization, when known.
    pub org: Option<String>,
}

/// What the databases say about one address; both `None` when nothing is known.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geo {
    /// Where, when known.
    pub location: Option<Location>,
    /// Which network, when known.
    pub network: Option<Network>,
}

/// The lookup port: the MaxMind reader in production, a fake in tests.
pub trait GeoIp: Send + Sync {
    /// What the databases know about `ip` (nothing without them).
    fn locate(&self, ip: IpAddr) -> Geo;
}

/// No database configured: nothing is known about any address.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoGeoIp;

impl GeoIp for NoGeoIp {
    fn locate(&self, _ip: IpAddr) -> Geo {
        Geo::default()
    }
}

/// The address in `addr` (as recorded: an IP, maybe IPv4-mapped IPv6, or the `/64` a rate
/// limit source names), if it is one.
pub fn parse_addr(addr: &str) -> Option<IpAddr> {
    let addr = addr.strip_suffix("/64").unwrap_or(addr);
    match addr.parse::<IpAddr>().ok()? {
        IpAddr::V6(v6) => Some(v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4)),
        v4 => Some(v4),
    }
}

/// What `geo` knows about the address written in `addr`; nothing for text that is not an
/// address.
pub fn locate(geo: &dyn GeoIp, addr: &str) -> Geo {
    parse_addr(addr)
        .map(|ip| geo.locate(ip))
        .unwrap_or_default()
}

/// The place an address stands for, to recognise it again (`first_from_here`): its country
/// and autonomous system when a database knows them; else its network prefix (`/24` for
/// IPv4, `/48` for IPv6); else the text itself (bounded).
pub fn place(addr: &str, geo: &Geo) -> String {
    let country = geo
        .location
        .as_ref()
        .and_then(|l| l.country_code.as_deref());
    let asn = geo.network.as_ref().map(|n| n.asn);
    if country.is_some() || asn.is_some() {
        return format!(
            "{}/AS{}",
            country.unwrap_or("-"),
            asn.map_or_else(|| "-".to_owned(), |a| a.to_string())
        );
    }
    match parse_addr(addr) {
        Some(IpAddr::V4(v4)) => {
            let [a, b, c, _] = v4.octets();
            format!("{a}.{b}.{c}.0/24")
        }
        Some(IpAddr::V6(v6)) => {
            let s = v6.segments();
            format!("{}/48", Ipv6Addr::new(s[0], s[1], s[2], 0, 0, 0, 0, 0))
        }
        None => {
            let mut end = addr.len().min(64);
            while !addr.is_char_boundary(end) {
                end -= 1;
            }
            format!("raw:{}", &addr[..end])
        }
    }
}

/// A database that could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("SCANID_GEOIP_DB: {path}: {reason}")]
pub struct GeoIpError {
    /// The database file.
    pub path: PathBuf,
    /// Why it cannot be used.
    pub reason: String,
}

/// The fields scanid reads from a record (GeoIP2/GeoLite2 City, Country and ASN layouts).
#[derive(Debug, Default, Deserialize)]
struct Record {
    country: Option<Place>,
    city: Option<Place>,
    autonomous_system_number: Option<u32>,
    autonomous_system_organization: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Place {
    iso_code: Option<String>,
    #[serde(default)]
    names: BTreeMap<String, String>,
}

/// MaxMind DB files, loaded into memory once; each lookup asks every file and keeps the
/// first answer for each field.
pub struct MaxMind {
    readers: Vec<(PathBuf, maxminddb::Reader<Vec<u8>>)>,
}

impl std::fmt::Debug for MaxMind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MaxMind")
            .field(
                "files",
                &self.readers.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl MaxMind {
    /// Reads every file in `paths`.
    pub fn open(paths: &[PathBuf]) -> Result<Self, GeoIpError> {
        let readers = paths
            .iter()
            .map(|p| {
                maxminddb::Reader::open_readfile(p)
                    .map(|r| (p.clone(), r))
                    .map_err(|e| GeoIpError {
                        path: p.clone(),
                        reason: format!("not a readable MaxMind DB file ({e})"),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { readers })
    }

    fn record(path: &Path, reader: &maxminddb::Reader<Vec<u8>>, ip: IpAddr) -> Record {
        // An address a file does not cover (or an IPv6 address in an IPv4-only file) is
        // simply unknown there; a record that does not decode is logged, not answered.
        match reader.lookup(ip).and_then(|r| r.decode::<Record>()) {
            Ok(r) => r.unwrap_or_default(),
            Err(e) => {
                tracing::debug!(error = %e, file = %path.display(), "GeoIP lookup");
                Record::default()
            }
        }
    }
}

/// A name in English, bounded (it is shown and stored).
fn english(p: &Place) -> Option<String> {
    p.names.get("en").map(|n| n.chars().take(100).collect())
}

impl GeoIp for MaxMind {
    fn locate(&self, ip: IpAddr) -> Geo {
        let mut loc = Location::default();
        let mut asn = None;
        let mut org = None;
        for (path, reader) in &self.readers {
            let r = Self::record(path, reader, ip);
            if let Some(c) = &r.country {
                if loc.country_code.is_none() {
                    loc.country_code = c
                        .iso_code
                        .as_deref()
                        .filter(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()))
                        .map(str::to_ascii_uppercase);
                }
                if loc.country.is_none() {
                    loc.country = english(c);
                }
            }
            if loc.city.is_none() {
                loc.city = r.city.as_ref().and_then(english);
            }
            if asn.is_none() {
                asn = r.autonomous_system_number;
                org = r
                    .autonomous_system_organization
                    .map(|o| o.chars().take(100).collect());
            }
        }
        let known = loc.country_code.is_some() || loc.country.is_some() || loc.city.is_some();
        Geo {
            location: known.then_some(loc),
            network: asn.map(|asn| Network { asn, org }),
        }
    }
}

/// The configured lookup: [`MaxMind`] over `paths`, or [`NoGeoIp`] when there are none.
pub fn open(paths: &[PathBuf]) -> Result<std::sync::Arc<dyn GeoIp>, GeoIpError> {
    if paths.is_empty() {
        return Ok(std::sync::Arc::new(NoGeoIp));
    }
    Ok(std::sync::Arc::new(MaxMind::open(paths)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test databases, written by `tests/py/geoip_db.py` (mmdb-writer) into a temporary
    /// directory.
    fn databases() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/py/geoip_db.py");
        let ok = std::process::Command::new("python3")
            .arg(script)
            .arg(dir.path())
            .status()
            .unwrap()
            .success();
        assert!(
            ok,
            "tests/py/geoip_db.py failed (pip install -r tests/py/requirements.txt)"
        );
        dir
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn one_file_with_both_kinds_of_fields() {
        let dir = databases();
        let db = MaxMind::open(&[dir.path().join("both.mmdb")]).unwrap();
        let g = db.locate(ip("198.51.100.7"));
        assert_eq!(
            g.location,
            Some(Location {
                city: Some("Stockholm".into()),
                country: Some("Sweden".into()),
                country_code: Some("SE".into()),
            })
        );
        assert_eq!(
            g.network,
            Some(Network {
                asn: 64500,
                org: Some("Example Nordic Telecom".into())
            })
        );
        let lagos = db.locate(ip("203.0.113.200"));
        assert_eq!(lagos.location.unwrap().country_code.as_deref(), Some("NG"));
        assert_eq!(lagos.network.unwrap().asn, 64501);
        let berlin = db.locate(ip("2001:db8:1:2::5"));
        assert_eq!(berlin.location.unwrap().city.as_deref(), Some("Berlin"));
        // Not in the database: nothing known.
        assert_eq!(db.locate(ip("127.0.0.1")), Geo::default());
        assert_eq!(db.locate(ip("2001:db8:2::1")), Geo::default());
    }

    #[test]
    fn a_city_file_and_an_asn_file_together() {
        let dir = databases();
        let city_only = MaxMind::open(&[dir.path().join("city.mmdb")]).unwrap();
        let g = city_only.locate(ip("198.51.100.7"));
        assert_eq!(g.location.unwrap().city.as_deref(), Some("Stockholm"));
        assert_eq!(g.network, None);
        let both =
            MaxMind::open(&[dir.path().join("city.mmdb"), dir.path().join("asn.mmdb")]).unwrap();
        assert_eq!(
            both.locate(ip("198.51.100.7")),
            MaxMind::open(&[dir.path().join("both.mmdb")])
                .unwrap()
                .locate(ip("198.51.100.7"))
        );
        // A country without a city.
        let mobile = both.locate(ip("192.0.2.9"));
        let loc = mobile.location.unwrap();
        assert_eq!((loc.city, loc.country_code.as_deref()), (None, Some("SE")));
        assert_eq!(mobile.network.unwrap().asn, 64510);
    }

    #[test]
    fn a_file_that_cannot_be_read_names_itself() {
        let dir = databases();
        let missing = dir.path().join("missing.mmdb");
        let e = MaxMind::open(&[dir.path().join("both.mmdb"), missing.clone()]).unwrap_err();
        assert_eq!(e.path, missing);
        assert!(e.to_string().starts_with("SCANID_GEOIP_DB: "), "{e}");
        let not_mmdb = dir.path().join("not.mmdb");
        std::fs::write(&not_mmdb, b"not a database").unwrap();
        assert!(MaxMind::open(&[not_mmdb]).is_err());
        assert!(open(&[]).is_ok());
    }

    #[test]
    fn places_from_the_database_else_the_prefix() {
        let se = Geo {
            location: Some(Location {
                city: Some("Stockholm".into()),
                country: Some("Sweden".into()),
                country_code: Some("SE".into()),
            }),
            network: Some(Network {
                asn: 64500,
                org: None,
            }),
        };
        assert_eq!(place("198.51.100.7", &se), "SE/AS64500");
        let none = Geo::default();
        assert_eq!(place("198.51.100.7", &none), "198.51.100.0/24");
        assert_eq!(place("::ffff:198.51.100.7", &none), "198.51.100.0/24");
        assert_eq!(place("2001:db8:1:2::5", &none), "2001:db8:1::/48");
        assert_eq!(place("2001:db8:1:2::/64", &none), "2001:db8:1::/48");
        assert_eq!(place("", &none), "raw:");
        assert_eq!(
            locate(&NoGeoIp, "198.51.100.7"),
            Geo::default(),
            "no database"
        );
    }
}

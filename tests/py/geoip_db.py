#!/usr/bin/env python3
"""Writes the small MaxMind DB files the GeoIP tests read (nothing is downloaded).

    python3 tests/py/geoip_db.py OUT_DIR

writes, in OUT_DIR:
  city.mmdb  a GeoIP2-City-like database (country, city),
  asn.mmdb   a GeoLite2-ASN-like database (autonomous system number and organization),
  both.mmdb  one database with both kinds of fields.

The networks are documentation ranges (RFC 5737, RFC 3849):
  198.51.100.0/24  Stockholm, Sweden (SE), AS64500 "Example Nordic Telecom"
  203.0.113.0/24   Lagos, Nigeria (NG), AS64501 "Example West Africa Networks"
  192.0.2.0/24     Sweden (SE), no city, AS64510 "Example Mobile"
  2001:db8:1::/48  Berlin, Germany (DE), AS64502 "Example IPv6 Carrier"
Anything else (127.0.0.1, say) is not in them.
"""
import os
import sys

from mmdb_writer import MMDBWriter, MmdbU32
from netaddr import IPSet

NETWORKS = [
    ("198.51.100.0/24", "SE", "Sweden", "Stockholm", 64500, "Example Nordic Telecom"),
    ("203.0.113.0/24", "NG", "Nigeria", "Lagos", 64501, "Example West Africa Networks"),
    ("192.0.2.0/24", "SE", "Sweden", None, 64510, "Example Mobile"),
    ("2001:db8:1::/48", "DE", "Germany", "Berlin", 64502, "Example IPv6 Carrier"),
]


def city_fields(code, country, city):
    out = {"country": {"iso_code": code, "names": {"en": country}}}
    if city:
        out["city"] = {"names": {"en": city}}
    return out


def asn_fields(asn, org):
    return {
        "autonomous_system_number": MmdbU32(asn),
        "autonomous_system_organization": org,
    }


def write(path, database_type, fields):
    w = MMDBWriter(ip_version=6, ipv4_compatible=True, database_type=database_type,
                   languages=["en"], description="scanid test data")
    for net, code, country, city, asn, org in NETWORKS:
        w.insert_network(IPSet([net]), fields(code, country, city, asn, org))
    w.to_db_file(path)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        # `--help` is not a directory to write into.
        sys.exit("usage: geoip_db.py OUT_DIR\n" + __doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "city.mmdb"), "GeoIP2-City",
          lambda code, country, city, asn, org: city_fields(code, country, city))
    write(os.path.join(out, "asn.mmdb"), "GeoLite2-ASN",
          lambda code, country, city, asn, org: asn_fields(asn, org))
    write(os.path.join(out, "both.mmdb"), "scanid-test-City-ASN",
          lambda code, country, city, asn, org: {**city_fields(code, country, city),
                                                 **asn_fields(asn, org)})


if __name__ == "__main__":
    main()

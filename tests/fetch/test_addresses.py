"""The address classifier: every special range at its boundaries, and every spelling of an
address (decimal, octal, hex, shortened IPv4; mapped, compatible, embedded IPv6; zone ids)."""

from __future__ import annotations

import ipaddress

import pytest

from oraculum.fetch.addresses import (
    IPV4_DENY,
    IPV6_DENY,
    PUBLIC_ONLY,
    denial_reason,
    is_public,
    parse_host_literal,
)

# (address, public?) — each range's first and last address, and its neighbours outside it.
V4_TABLE = [
    ("0.0.0.0", False),
    ("0.255.255.255", False),
    ("1.0.0.0", True),
    ("9.255.255.255", True),
    ("10.0.0.0", False),
    ("10.255.255.255", False),
    ("11.0.0.0", True),
    ("100.63.255.255", True),
    ("100.64.0.0", False),
    ("100.127.255.255", False),
    ("100.128.0.0", True),
    ("126.255.255.255", True),
    ("127.0.0.0", False),
    ("127.0.0.1", False),
    ("127.255.255.255", False),
    ("128.0.0.0", True),
    ("169.253.255.255", True),
    ("169.254.0.0", False),
    ("169.254.169.254", False),
    ("169.254.255.255", False),
    ("169.255.0.0", True),
    ("172.15.255.255", True),
    ("172.16.0.0", False),
    ("172.31.255.255", False),
    ("172.32.0.0", True),
    ("191.255.255.255", True),
    ("192.0.0.0", False),
    ("192.0.0.9", False),
    ("192.0.0.255", False),
    ("192.0.1.0", True),
    ("192.0.2.0", False),
    ("192.0.2.255", False),
    ("192.0.3.0", True),
    ("192.88.98.255", True),
    ("192.88.99.0", False),
    ("192.88.99.255", False),
    ("192.88.100.0", True),
    ("192.167.255.255", True),
    ("192.168.0.0", False),
    ("192.168.255.255", False),
    ("192.169.0.0", True),
    ("198.17.255.255", True),
    ("198.18.0.0", False),
    ("198.19.255.255", False),
    ("198.20.0.0", True),
    ("198.51.99.255", True),
    ("198.51.100.0", False),
    ("198.51.100.255", False),
    ("198.51.101.0", True),
    ("203.0.112.255", True),
    ("203.0.113.0", False),
    ("203.0.113.255", False),
    ("203.0.114.0", True),
    ("223.255.255.255", True),
    ("224.0.0.0", False),
    ("239.255.255.250", False),
    ("239.255.255.255", False),
    ("240.0.0.0", False),
    ("255.255.255.255", False),
    ("8.8.8.8", True),
    ("93.184.215.14", True),
]

V6_TABLE = [
    ("::", False),
    ("::1", False),
    ("::2", False),
    ("::127.0.0.1", False),  # IPv4-compatible: is_global says True
    ("::8.8.8.8", False),
    ("::ffff:127.0.0.1", False),  # IPv4-mapped: judged as IPv4
    ("::ffff:10.0.0.1", False),
    ("::ffff:169.254.169.254", False),
    ("::ffff:8.8.8.8", True),
    ("::ffff:0:8.8.8.8", False),  # IPv4-translated
    ("64:ff9b::a00:1", False),  # NAT64 of 10.0.0.1: is_global says True
    ("64:ff9b::808:808", False),
    ("64:ff9b:1::1", False),
    ("100::", False),
    ("100::ffff:ffff:ffff:ffff", False),
    ("100:0:0:1::1", False),
    ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", False),
    ("2000::", True),
    ("2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", True),
    ("2001::", False),  # Teredo
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),
    ("2001:2::1", False),  # benchmarking
    ("2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", False),
    ("2001:200::", True),
    ("2001:4860:4860::8888", True),
    ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", True),
    ("2001:db8::", False),
    ("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", False),
    ("2001:db9::", True),
    ("2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", True),
    ("2002::", False),  # 6to4
    ("2002:a00:1::1", False),
    ("2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", False),
    ("2003::", True),
    ("2606:4700:4700::1111", True),
    ("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", True),
    ("3fff::", False),
    ("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", False),
    ("3fff:1000::", True),
    ("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", True),
    ("4000::", False),
    ("5f00::1", False),
    ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", False),
    ("fc00::", False),
    ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", False),
    ("fe80::", False),
    ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", False),
    ("fec0::1", False),
    ("ff00::", False),
    ("ff02::1", False),
    ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", False),
]


@pytest.mark.parametrize(("address", "public"), V4_TABLE + V6_TABLE)
def test_table(address: str, public: bool) -> None:
    assert is_public(address) is public
    assert (PUBLIC_ONLY.reason(ipaddress.ip_address(address)) is None) is public


@pytest.mark.parametrize(("network", "why"), [*IPV4_DENY, *IPV6_DENY])
def test_every_listed_range_is_refused_at_both_ends(
    network: ipaddress.IPv4Network | ipaddress.IPv6Network, why: str
) -> None:
    for address in (network.network_address, network.broadcast_address):
        reason = denial_reason(address)
        assert reason is not None, f"{address} ({why}) passed"


def test_refusals_name_their_range() -> None:
    assert denial_reason("169.254.169.254") == "link-local (cloud metadata)"
    assert denial_reason("::ffff:127.0.0.1") == "IPv4-mapped loopback"
    assert denial_reason("64:ff9b::a00:1") == "NAT64 well-known prefix (embeds IPv4)"
    assert denial_reason("4000::1") == "outside global unicast (2000::/3)"
    assert denial_reason("not-an-address") == "not an IP address"


@pytest.mark.parametrize(
    "address", ["fe80::1%eth0", "2001:4860:4860::8888%1", "[2001:4860:4860::8888%eth0]"]
)
def test_zone_ids_are_never_public(address: str) -> None:
    parsed = parse_host_literal(address)
    assert parsed is not None
    assert not is_public(parsed)


# Every spelling the C resolver (and a URL parser) accepts for one IPv4 address.
SPELLINGS = [
    ("127.0.0.1", "127.0.0.1"),
    ("127.1", "127.0.0.1"),
    ("127.0.1", "127.0.0.1"),
    ("2130706433", "127.0.0.1"),  # decimal
    ("017700000001", "127.0.0.1"),  # octal
    ("0x7f000001", "127.0.0.1"),  # hex
    ("0X7F.1", "127.0.0.1"),
    ("0177.0.0.01", "127.0.0.1"),
    ("0x7f.0x0.0x0.0x1", "127.0.0.1"),
    ("127.0.0.1.", "127.0.0.1"),  # trailing dot
    ("0", "0.0.0.0"),
    ("0x0", "0.0.0.0"),
    ("167772161", "10.0.0.1"),
    ("012.0.0.1", "10.0.0.1"),
    ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
    ("2852039166", "169.254.169.254"),
    ("0251.0376.0251.0376", "169.254.169.254"),
    ("169.254.43518", "169.254.169.254"),
    ("134744072", "8.8.8.8"),
    ("[::1]", "::1"),
    ("[::ffff:7f00:1]", "::ffff:127.0.0.1"),
    ("[0:0:0:0:0:ffff:127.0.0.1]", "::ffff:127.0.0.1"),
    ("::", "::"),
]


@pytest.mark.parametrize(("spelling", "address"), SPELLINGS)
def test_spellings_parse_to_the_address_a_socket_reaches(spelling: str, address: str) -> None:
    assert parse_host_literal(spelling) == ipaddress.ip_address(address)
    assert is_public(address) is (address == "8.8.8.8")


@pytest.mark.parametrize("name", ["example.com", "localhost", "1.2.3.example", "a..b", "0x1g"])
def test_names_are_not_literals(name: str) -> None:
    assert parse_host_literal(name) is None


@pytest.mark.parametrize(
    "bad", ["256.0.0.1", "1.2.3.4.5", "1.2.3.256", "1.16777216", "4294967296", "08.0.0.1", "[::g]"]
)
def test_malformed_numeric_hosts_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_host_literal(bad)

"""Which IP addresses a fetch may reach: an explicit table, not ``ipaddress.is_global``.

``is_global`` alone lets through multicast, NAT64, IPv4-compatible IPv6, 6to4, site-local and
more, and its answer changes with the interpreter's patch level, so the table below is written
out range by range (IANA's IPv4 and IPv6 special-purpose registries). IPv6 is public only inside
2000::/3 and outside the special blocks listed; an IPv4-mapped address is judged by its IPv4
address. A zone-scoped literal (``fe80::1%eth0``) is never public.

Host strings are parsed the way the C resolver reads them (``127.1``, ``0x7f000001``,
``017700000001``, ``2130706433`` are all 127.0.0.1), so a literal is judged by the address a
socket would actually reach, not by how it is spelt.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "IPV4_DENY",
    "IPV6_DENY",
    "PUBLIC_ONLY",
    "AddressPolicy",
    "IPAddress",
    "PublicOnly",
    "denial_reason",
    "is_public",
    "parse_host_literal",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# (range, why it is not public)
IPV4_DENY: tuple[tuple[ipaddress.IPv4Network, str], ...] = tuple(
    (ipaddress.IPv4Network(net), why)
    for net, why in (
        ("0.0.0.0/8", "this network (0.0.0.0 reaches local services)"),
        ("10.0.0.0/8", "private (RFC 1918)"),
        ("100.64.0.0/10", "shared address space (CGNAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local (cloud metadata)"),
        ("172.16.0.0/12", "private (RFC 1918)"),
        ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.0/24", "documentation (TEST-NET-1)"),
        ("192.88.99.0/24", "deprecated 6to4 relay anycast"),
        ("192.168.0.0/16", "private (RFC 1918)"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation (TEST-NET-2)"),
        ("203.0.113.0/24", "documentation (TEST-NET-3)"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved (incl. broadcast)"),
    )
)

# Everything outside 2000::/3 is refused anyway; the blocks outside it are listed too so the
# refusal names its reason, and the table reads as the registry does.
IPV6_DENY: tuple[tuple[ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.IPv6Network(net), why)
    for net, why in (
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("::/96", "IPv4-compatible (deprecated)"),
        ("::ffff:0:0:0/96", "IPv4-translated (RFC 6145)"),
        ("64:ff9b::/96", "NAT64 well-known prefix (embeds IPv4)"),
        ("64:ff9b:1::/48", "local-use NAT64 (embeds IPv4)"),
        ("100::/64", "discard-only"),
        ("100:0:0:1::/64", "dummy prefix"),
        ("2001::/23", "IETF protocol assignments (incl. Teredo, benchmarking, ORCHID)"),
        ("2001:db8::/32", "documentation"),
        ("2002::/16", "6to4 (embeds IPv4)"),
        ("3fff::/20", "documentation"),
        ("5f00::/16", "SRv6 SIDs"),
        ("fc00::/7", "unique local (ULA)"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local (deprecated)"),
        ("ff00::/8", "multicast"),
    )
)
_V6_UNICAST = ipaddress.IPv6Network("2000::/3")
_IPV4_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")


def denial_reason(address: IPAddress | str) -> str | None:
    """Why ``address`` is not public, or None when it is."""
    try:
        parsed = ipaddress.ip_address(address) if isinstance(address, str) else address
    except ValueError:
        return "not an IP address"
    if isinstance(parsed, ipaddress.IPv6Address):
        return _v6_reason(parsed)
    for network, why in IPV4_DENY:
        if parsed in network:
            return why
    # Belt and braces: whatever a later registry adds, the interpreter may know.
    return None if parsed.is_global else "not globally reachable"


def _v6_reason(address: ipaddress.IPv6Address) -> str | None:
    if address.scope_id:
        return "zone-scoped address"
    if address in _IPV4_MAPPED and address.ipv4_mapped is not None:
        inner = denial_reason(address.ipv4_mapped)
        return None if inner is None else f"IPv4-mapped {inner}"
    for network, why in IPV6_DENY:
        if address in network:
            return why
    if address not in _V6_UNICAST:
        return "outside global unicast (2000::/3)"
    return None if address.is_global else "not globally reachable"


def is_public(address: IPAddress | str) -> bool:
    return denial_reason(address) is None


def parse_host_literal(host: str) -> IPAddress | None:
    """``host`` as an IP address when it is one in any spelling the C resolver accepts
    (dotted, shortened, decimal, octal, hex IPv4; bracketed or bare IPv6, with a zone id);
    None for a name. Raises ValueError for a numeric host that is no valid address."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if ":" in bare:
        return ipaddress.IPv6Address(bare)
    return _inet_aton(bare)


def _inet_aton(host: str) -> ipaddress.IPv4Address | None:
    text = host[:-1] if host.endswith(".") else host  # a trailing dot is still the address
    parts = text.split(".")
    if not text or not all(_is_number(part) for part in parts):
        return None  # a name: the resolver answers for it, and its answers are checked
    if len(parts) > 4:
        return _bad(host)
    values = [_number(part) for part in parts]
    # a.b.c.d, a.b.c (c is 16 bits), a.b (b is 24 bits), a (32 bits)
    last_bits = 8 * (5 - len(values))
    if any(v > 255 for v in values[:-1]) or values[-1] >= 1 << last_bits:
        return _bad(host)
    total = values[-1]
    for index, value in enumerate(values[:-1]):
        total |= value << (24 - 8 * index)
    return ipaddress.IPv4Address(total)


def _bad(host: str) -> ipaddress.IPv4Address:
    raise ValueError(f"{host!r} is a malformed IPv4 address")


def _is_number(part: str) -> bool:
    lowered = part.lower()
    if lowered.startswith("0x"):
        return all(c in "0123456789abcdef" for c in lowered[2:])
    return part.isdigit() and part.isascii()


def _number(part: str) -> int:
    lowered = part.lower()
    if lowered.startswith("0x"):
        return int(lowered[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        if any(c in "89" for c in part):
            raise ValueError(f"{part!r} is not an octal number")
        return int(part, 8)
    return int(part)


# Only web ports may be reached, by a tunnel (raw TCP) or a plain request alike: a page cannot
# reach a public host's mail, SSH, Redis or Elasticsearch port through the fetch, whose plain
# requests a text protocol would half understand (advocate's default list).
WEB_PORTS = frozenset({80, 443, 8000, 8080, 8443})


def web_port_reason(port: int) -> str | None:
    """Why ``port`` is refused (not a web port), or None."""
    if port in WEB_PORTS:
        return None
    allowed = ", ".join(str(p) for p in sorted(WEB_PORTS))
    return f"port {port} is not a web port (fetches go to {allowed} only)"


class AddressPolicy(Protocol):
    """Decides which resolved addresses a fetch may connect to, and on which ports. The
    product uses :data:`PUBLIC_ONLY`; tests pass their own object to declare their loopback
    test origins public — there is no user-facing switch."""

    def reason(self, address: IPAddress) -> str | None:
        """Why ``address`` is refused, or None when it is allowed."""
        ...

    def port_reason(self, port: int) -> str | None:
        """Why a request or tunnel to ``port`` is refused, or None when it is allowed."""
        ...


@dataclass(frozen=True)
class PublicOnly:
    def reason(self, address: IPAddress) -> str | None:
        return denial_reason(address)

    def port_reason(self, port: int) -> str | None:
        return web_port_reason(port)


PUBLIC_ONLY = PublicOnly()

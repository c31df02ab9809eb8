import { BlockList, isIP } from 'node:net';

/** Why an address is not a public destination. */
export type AddressKind =
  | 'cloud metadata'
  | 'unspecified'
  | 'broadcast'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared (carrier-grade NAT)'
  | 'multicast'
  | 'reserved';

type Range = [network: string, prefix: number];

/**
 * Ranges by kind, most specific first: the first kind that holds an address names it (the metadata
 * addresses sit inside link-local, CGNAT and fc00::/7; 0.0.0.0 inside 0.0.0.0/8). IPv4 ranges also
 * hold their IPv4-mapped and NAT64 forms (::ffff:127.0.0.1, 64:ff9b::7f00:1). Checked against
 * IANA's IPv4 and IPv6 special-purpose address registries: every block they mark not globally
 * reachable is here or, for IPv6, outside global unicast. A few reachable ones inside a listed
 * block (anycast 192.0.0.9 and 192.0.0.10 in 192.0.0.0/24; 2001:1::1, AMT and AS112 in
 * 2001::/23) are refused with it, as no webhook receiver lives there.
 */
const IPV4: [AddressKind, Range[]][] = [
  // AWS, GCP, Azure, Oracle and others at 169.254.169.254; Alibaba Cloud at 100.100.100.200;
  // Azure's wire server (the VM agent's channel to the host) at 168.63.129.16, a public address.
  [
    'cloud metadata',
    [
      ['169.254.169.254', 32],
      ['100.100.100.200', 32],
      ['168.63.129.16', 32],
    ],
  ],
  ['unspecified', [['0.0.0.0', 32]]],
  ['broadcast', [['255.255.255.255', 32]]],
  ['loopback', [['127.0.0.0', 8]]],
  [
    'private',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ],
  ],
  ['link-local', [['169.254.0.0', 16]]],
  ['shared (carrier-grade NAT)', [['100.64.0.0', 10]]],
  ['multicast', [['224.0.0.0', 4]]],
  [
    'reserved',
    [
      ['0.0.0.0', 8], // "this network"
      ['192.0.0.0', 24], // IETF protocol assignments
      ['192.0.2.0', 24], // documentation
      ['192.88.99.0', 24], // 6to4 relays (deprecated)
      ['198.18.0.0', 15], // benchmarking
      ['198.51.100.0', 24], // documentation
      ['203.0.113.0', 24], // documentation
      ['240.0.0.0', 4], // future use
    ],
  ],
];

const IPV6: [AddressKind, Range[]][] = [
  [
    'cloud metadata',
    [
      ['fd00:ec2::254', 128], // AWS over IPv6
      ['fd20:ce::254', 128], // GCP over IPv6
    ],
  ],
  ['unspecified', [['::', 128]]],
  ['loopback', [['::1', 128]]],
  ['private', [['fc00::', 7]]], // unique local
  ['link-local', [['fe80::', 10]]],
  ['multicast', [['ff00::', 8]]],
  [
    'reserved',
    [
      ['2001::', 23], // IETF protocol assignments, Teredo among them
      ['2001:db8::', 32], // documentation
      ['3fff::', 20], // documentation (RFC 9637)
      ['2002::', 16], // 6to4 (deprecated): tunnels to any IPv4 address
      ['64:ff9b:1::', 48], // local-use NAT64
      // Outside global unicast, so reserved anyway; listed as the registry names them.
      ['5f00::', 16], // SRv6 segment identifiers (RFC 9602)
      ['100::', 64], // discard-only (RFC 6666)
    ],
  ],
];

/** Only global unicast (2000::/3) is public; the rest of IPv6 is reserved, or IPv4 in IPv6 clothes. */
const GLOBAL_UNICAST: Range = ['2000::', 3];
/** IPv4-mapped (::ffff:a.b.c.d), and well-known NAT64 (64:ff9b::a.b.c.d reaches a.b.c.d through a translator). */
const IPV4_IN_IPV6: Range[] = [
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
];

function blockList(ranges: Range[], family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

// BlockList compares IPv4-mapped addresses with IPv4 ranges itself; NAT64's forms are added here.
const IPV4_KINDS = IPV4.map(([kind, ranges]) => {
  const list = blockList(ranges, 'ipv4');
  for (const [network, prefix] of ranges) list.addSubnet(`64:ff9b::${network}`, 96 + prefix, 'ipv6');
  return [kind, list] as const;
});
const IPV6_KINDS = IPV6.map(([kind, ranges]) => [kind, blockList(ranges, 'ipv6')] as const);
const globalUnicast = blockList([GLOBAL_UNICAST], 'ipv6');
const ipv4InIpv6 = blockList(IPV4_IN_IPV6, 'ipv6');

/**
 * The kind of a non-public address, or undefined for a public one (and for text that is no
 * address: callers pass what a resolver or `net.isIP` accepted). A zone (`fe80::1%eth0`) is ignored.
 */
export function nonPublicKind(address: string): AddressKind | undefined {
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return IPV4_KINDS.find(([, list]) => list.check(bare, 'ipv4'))?.[0];
  if (family !== 6) return undefined;
  if (ipv4InIpv6.check(bare, 'ipv6')) return IPV4_KINDS.find(([, list]) => list.check(bare, 'ipv6'))?.[0];
  const kind = IPV6_KINDS.find(([, list]) => list.check(bare, 'ipv6'))?.[0];
  return kind ?? (globalUnicast.check(bare, 'ipv6') ? undefined : 'reserved');
}

import fc from 'fast-check';
import { type AddressKind, nonPublicKind } from './address-ranges';

/** The ranges as the contract lists them, by kind, most specific first (the first match names an address). */
const IPV4_RANGES: [string, AddressKind][] = [
  ['169.254.169.254/32', 'cloud metadata'],
  ['100.100.100.200/32', 'cloud metadata'],
  ['168.63.129.16/32', 'cloud metadata'],
  ['0.0.0.0/32', 'unspecified'],
  ['255.255.255.255/32', 'broadcast'],
  ['127.0.0.0/8', 'loopback'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['169.254.0.0/16', 'link-local'],
  ['100.64.0.0/10', 'shared (carrier-grade NAT)'],
  ['224.0.0.0/4', 'multicast'],
  ['0.0.0.0/8', 'reserved'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['240.0.0.0/4', 'reserved'],
];

const IPV6_RANGES: [string, AddressKind][] = [
  ['fd00:ec2::254/128', 'cloud metadata'],
  ['fd20:ce::254/128', 'cloud metadata'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
  ['2001::/23', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['3fff::/20', 'reserved'],
  ['2002::/16', 'reserved'],
  ['5f00::/16', 'reserved'],
  ['64:ff9b:1::/48', 'reserved'],
  ['100::/64', 'reserved'],
];

const ipv4Number = (text: string) => text.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const ipv4Text = (n: number) => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
const ipv6Number = (text: string): bigint => {
  const [head = '', tail = ''] = text.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [
    ...groups(head),
    ...Array<string>(text.includes('::') ? missing : 0).fill('0'),
    ...groups(tail),
  ];
  return all.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
};
const ipv6Text = (n: bigint) =>
  Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');

function ipv4Range(cidr: string) {
  const [network = '', prefix = ''] = cidr.split('/');
  const size = 2 ** (32 - Number(prefix));
  const start = ipv4Number(network);
  return { start, size, has: (n: number) => n >= start && n < start + size };
}

function ipv6Range(cidr: string) {
  const [network = '', prefix = ''] = cidr.split('/');
  const size = 1n << BigInt(128 - Number(prefix));
  const start = ipv6Number(network);
  return { start, size, has: (n: bigint) => n >= start && n < start + size };
}

/** The expected kind of an IPv4 address: the first range of the table that holds it. */
const expectedIpv4 = (n: number) => IPV4_RANGES.find(([cidr]) => ipv4Range(cidr).has(n))?.[1];
const expectedIpv6 = (n: bigint) =>
  IPV6_RANGES.find(([cidr]) => ipv6Range(cidr).has(n))?.[1] ??
  (ipv6Range('2000::/3').has(n) ? undefined : 'reserved');

const anyIpv4 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const anyIpv6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });

describe('nonPublicKind', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['100.127.255.255', 'shared (carrier-grade NAT)'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['0.1.2.3', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2002:7f00:1::1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['fec0::1', 'reserved'],
    // Azure's wire server, in each form it can be reached by.
    ['168.63.129.16', 'cloud metadata'],
    ['::ffff:168.63.129.16', 'cloud metadata'],
    ['::ffff:a83f:8110', 'cloud metadata'],
    ['64:ff9b::a83f:8110', 'cloud metadata'],
    ['64:ff9b::168.63.129.16', 'cloud metadata'],
    ['fd20:ce::254', 'cloud metadata'],
    // IANA's special-purpose blocks, each at its ends.
    ['3fff::', 'reserved'],
    ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
    ['5f00::', 'reserved'],
    ['5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
    ['100::', 'reserved'],
    ['100::ffff:ffff:ffff:ffff', 'reserved'],
    ['100:0:0:1::1', 'reserved'], // dummy prefix (RFC 9780)
    ['2001:2::1', 'reserved'], // benchmarking
    ['2001::1', 'reserved'], // Teredo
    ['2001:20::1', 'reserved'], // ORCHIDv2
    ['64:ff9b:1::a00:1', 'reserved'],
    ['64:ff9b:1:ffff::1', 'reserved'],
    ['192.0.0.0', 'reserved'],
    ['192.0.0.255', 'reserved'],
    ['192.0.0.170', 'reserved'], // NAT64 discovery
    ['198.18.0.0', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['::ffff:198.18.0.1', 'reserved'],
    ['64:ff9b::c612:1', 'reserved'],
    ['::ffff:192.0.0.8', 'reserved'],
    ['2002:a9fe:a9fe::1', 'reserved'], // 6to4 of 169.254.169.254
  ])('%s is %s', (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '223.255.255.255',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2606:4700:4700::1111',
    '2a00:1450:4007:80f::200e',
    '168.63.129.15',
    '168.63.129.17',
    '::ffff:168.63.129.17',
    '3fff:1000::1',
    '3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '198.17.255.255',
    '198.20.0.0',
    '192.0.1.0',
  ])('%s is public', (address) => {
    expect(nonPublicKind(address)).toBeUndefined();
  });

  it.each(['', 'localhost', '127.0.0.1.nip.io', '999.1.1.1'])('%p is no address, so no kind', (text) => {
    expect(nonPublicKind(text)).toBeUndefined();
  });

  it.each(IPV4_RANGES)('every IPv4 address in %s, mapped or through NAT64 too, has its kind', (cidr) => {
    const range = ipv4Range(cidr);
    const inRange = fc.integer({ min: range.start, max: range.start + range.size - 1 });
    fc.assert(
      fc.property(inRange, (n) => {
        const kind = expectedIpv4(n);
        return (
          nonPublicKind(ipv4Text(n)) === kind &&
          nonPublicKind(`::ffff:${ipv4Text(n)}`) === kind &&
          nonPublicKind(`64:ff9b::${ipv4Text(n)}`) === kind
        );
      }),
    );
  });

  it.each(IPV6_RANGES)('every IPv6 address in %s has its kind', (cidr) => {
    const range = ipv6Range(cidr);
    const inRange = fc.bigInt({ min: range.start, max: range.start + range.size - 1n });
    fc.assert(fc.property(inRange, (n) => nonPublicKind(ipv6Text(n)) === expectedIpv6(n)));
  });

  it('finds IPv4 addresses outside every range public, in any of their forms', () => {
    const outside = anyIpv4.filter((n) => expectedIpv4(n) === undefined);
    fc.assert(
      fc.property(outside, (n) =>
        [ipv4Text(n), `::ffff:${ipv4Text(n)}`, `64:ff9b::${ipv4Text(n)}`].every(
          (form) => nonPublicKind(form) === undefined,
        ),
      ),
    );
  });

  it('finds global unicast IPv6 outside the reserved ranges public, and nothing else', () => {
    const ipv4InIpv6 = [ipv6Range('::ffff:0:0/96'), ipv6Range('64:ff9b::/96')];
    const native = anyIpv6.filter((n) => !ipv4InIpv6.some((range) => range.has(n)));
    const globalUnicast = fc.bigInt({ min: 1n << 125n, max: (1n << 126n) - 1n });
    fc.assert(fc.property(native, (n) => nonPublicKind(ipv6Text(n)) === expectedIpv6(n)));
    fc.assert(fc.property(globalUnicast, (n) => nonPublicKind(ipv6Text(n)) === expectedIpv6(n)));
  });
});

import { BlockList, isIP } from 'node:net';
import { nonPublicKind } from './address-ranges';
import { commaItems } from '../util/comma-items';

/** What `WEBHOOK_ALLOWED_HOSTS` allows although it is not public: host names as written in URLs, and IP ranges. */
export interface AllowedHosts {
  names: string[];
  ranges: { network: string; prefix: number; family: 'ipv4' | 'ipv6' }[];
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Lower case, no trailing dot, no IPv6 brackets: the form in which names and literals are compared. */
export function bareHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/**
 * Reads `WEBHOOK_ALLOWED_HOSTS`: entries separated by commas, each a host name (`localhost`), an
 * address (`10.1.2.3`, `::1`) or a range in CIDR notation (`127.0.0.0/8`, `fd00::/8`). Returns the
 * first entry that is none of these instead, for the configuration error.
 */
export function parseAllowedHosts(value: string): AllowedHosts | { invalid: string } {
  const allowed: AllowedHosts = { names: [], ranges: [] };
  for (const entry of commaItems(value)) {
    if (entry === '') continue;
    const [address = '', prefixText, ...rest] = bareHost(entry).split('/');
    const family = isIP(address);
    const width = family === 6 ? 128 : 32;
    const prefix = prefixText === undefined ? width : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
    if (family !== 0 && rest.length === 0 && prefix >= 0 && prefix <= width) {
      allowed.ranges.push({ network: address, prefix, family: family === 6 ? 'ipv6' : 'ipv4' });
    } else if (prefixText === undefined && HOST_NAME.test(address)) {
      allowed.names.push(address);
    } else {
      return { invalid: entry };
    }
  }
  return allowed;
}

/**
 * Which destinations a receiver may have. Public addresses always; a non-public one (loopback,
 * private, link-local, metadata, …: `nonPublicKind`) only when the receiver's host name is allowed
 * as written, or the address lies in an allowed range.
 */
export class DestinationPolicy {
  private readonly names: Set<string>;
  private readonly ranges = new BlockList();

  constructor(allowed: AllowedHosts) {
    this.names = new Set(allowed.names);
    for (const range of allowed.ranges) this.ranges.addSubnet(range.network, range.prefix, range.family);
  }

  /** Why `host` may not be reached at `address` (one it resolved to, or itself when a literal), or undefined. */
  refusal(host: string, address: string): string | undefined {
    const kind = nonPublicKind(address);
    if (!kind || this.names.has(bareHost(host)) || this.allowsAddress(address)) return undefined;
    const name = bareHost(host) === address ? '' : ` (${bareHost(host)})`;
    const article = /^[aeiou]/.test(kind) ? 'an' : 'a';
    return `destination ${address}${name} is ${article} ${kind} address; allow it with WEBHOOK_ALLOWED_HOSTS`;
  }

  private allowsAddress(address: string): boolean {
    const bare = address.replace(/%.*$/, '');
    const family = isIP(bare);
    // BlockList matches IPv4-mapped IPv6 addresses against IPv4 ranges too, and the other way round.
    return family !== 0 && this.ranges.check(bare, family === 6 ? 'ipv6' : 'ipv4');
  }
}

import { lookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { DestinationPolicy } from './destination-policy';

/** A destination the policy does not allow: no socket was opened. */
export class RefusedDestinationError extends Error {
  override readonly name = 'RefusedDestinationError';
}

/** How names are resolved: `dns.lookup` (the system's resolver, as sockets use by default), or a test's. */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for sockets that resolves as usual, then keeps only the addresses the policy allows
 * for this host. The check runs on every connection, after the resolution the socket will use, so
 * a name that resolved to a public address when configured and to 127.0.0.1 now (DNS rebinding)
 * is refused. A host whose addresses are all refused fails with the first refusal; one that has
 * public addresses besides private ones gets the public ones only.
 *
 * Sockets skip `lookup` for IP literals: callers check those themselves (`DestinationPolicy.refusal`).
 */
export function guardedLookup(policy: DestinationPolicy, resolve: Resolver = lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowed = addresses.filter(({ address }) => !policy.refusal(hostname, address));
      const [first] = allowed;
      if (!first) {
        const refusal = addresses.length
          ? policy.refusal(hostname, addresses[0]!.address)
          : `${hostname} resolved to no address`;
        return callback(new RefusedDestinationError(refusal), '', 0);
      }
      if (options.all) return callback(null, allowed);
      return callback(null, first.address, first.family);
    });
  };
}

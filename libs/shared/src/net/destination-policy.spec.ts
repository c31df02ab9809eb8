import type { LookupAddress } from 'node:dns';
import { type AllowedHosts, DestinationPolicy, parseAllowedHosts } from './destination-policy';
import { guardedLookup, RefusedDestinationError, type Resolver } from './guarded-lookup';

function allowing(value: string): DestinationPolicy {
  const allowed = parseAllowedHosts(value);
  if ('invalid' in allowed) throw new Error(`invalid: ${allowed.invalid}`);
  return new DestinationPolicy(allowed);
}

describe('parseAllowedHosts', () => {
  it('reads host names, addresses and CIDR ranges, in any case and spacing', () => {
    expect(
      parseAllowedHosts(' LocalHost., 10.0.0.0/8,[::1] ,fd00::/8,receiver.internal,'),
    ).toEqual<AllowedHosts>({
      names: ['localhost', 'receiver.internal'],
      ranges: [
        { network: '10.0.0.0', prefix: 8, family: 'ipv4' },
        { network: '::1', prefix: 128, family: 'ipv6' },
        { network: 'fd00::', prefix: 8, family: 'ipv6' },
      ],
    });
    expect(parseAllowedHosts('')).toEqual({ names: [], ranges: [] });
  });

  it.each([
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/8/8',
    '10.0.0.0/x',
    'host/8',
    'under_score',
    '*.internal',
    'a..b',
  ])('names %p as neither a host name nor a range', (entry) => {
    expect(parseAllowedHosts(`localhost,${entry}`)).toEqual({ invalid: entry });
  });
});

describe('DestinationPolicy', () => {
  it('lets public addresses through and refuses the others, naming the address, its kind and the variable', () => {
    const policy = allowing('');
    expect(policy.refusal('receiver.example', '93.184.216.34')).toBeUndefined();
    expect(policy.refusal('localhost', '127.0.0.1')).toBe(
      'destination 127.0.0.1 (localhost) is a loopback address; allow it with WEBHOOK_ALLOWED_HOSTS',
    );
    expect(policy.refusal('[::ffff:a9fe:a9fe]', '::ffff:a9fe:a9fe')).toBe(
      'destination ::ffff:a9fe:a9fe is a cloud metadata address; allow it with WEBHOOK_ALLOWED_HOSTS',
    );
    expect(policy.refusal('0.0.0.0', '0.0.0.0')).toMatch(
      /^destination 0\.0\.0\.0 is an unspecified address;/,
    );
  });

  it("refuses Azure's wire server and the newer special-purpose blocks, whatever name leads there", () => {
    const policy = allowing('');
    expect(policy.refusal('wire.example', '168.63.129.16')).toBe(
      'destination 168.63.129.16 (wire.example) is a cloud metadata address; allow it with WEBHOOK_ALLOWED_HOSTS',
    );
    expect(policy.refusal('docs.example', '3fff::1')).toMatch(
      /^destination 3fff::1 \(docs\.example\) is a reserved address;/,
    );
    expect(policy.refusal('sid.example', '5f00::1')).toMatch(/is a reserved address;/);
    expect(policy.refusal('gce.example', 'fd20:ce::254')).toMatch(/is a cloud metadata address;/);
    expect(allowing('168.63.129.16').refusal('wire.example', '168.63.129.16')).toBeUndefined();
  });

  it('allows a name as written in the URL, whatever it resolves to, and nothing else by it', () => {
    const policy = allowing('receiver.internal');
    expect(policy.refusal('Receiver.Internal.', '10.1.2.3')).toBeUndefined();
    expect(policy.refusal('other.internal', '10.1.2.3')).toMatch(/is a private address/);
  });

  it('allows addresses in a range, IPv4-mapped forms included, and only those', () => {
    const policy = allowing('127.0.0.0/8,fd00::/8');
    expect(policy.refusal('a.test', '127.0.0.2')).toBeUndefined();
    expect(policy.refusal('a.test', '::ffff:127.0.0.2')).toBeUndefined();
    expect(policy.refusal('a.test', 'fd12::1')).toBeUndefined();
    expect(policy.refusal('a.test', '::1')).toMatch(/is a loopback address/);
    expect(policy.refusal('a.test', '169.254.169.254')).toMatch(/is a cloud metadata address/);
  });
});

describe('guardedLookup', () => {
  /** A resolver whose answers the test sets, as a DNS server an attacker controls would. */
  function scripted(...answers: LookupAddress[][]): Resolver {
    return (_hostname, _options, callback) => callback(null, answers.shift() ?? []);
  }

  function lookUp(lookup: ReturnType<typeof guardedLookup>, all: boolean) {
    return new Promise<{ error: Error | null; result: unknown }>((done) =>
      lookup('rebind.example', { all }, (error, address, family) =>
        done({ error, result: all ? address : { address, family } }),
      ),
    );
  }

  it('checks every resolution, so a name that turns private later (DNS rebinding) is refused then', async () => {
    const lookup = guardedLookup(
      allowing(''),
      scripted([{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }]),
    );
    expect(await lookUp(lookup, false)).toEqual({
      error: null,
      result: { address: '93.184.216.34', family: 4 },
    });
    const refused = await lookUp(lookup, false);
    expect(refused.error).toBeInstanceOf(RefusedDestinationError);
    expect(refused.error?.message).toBe(
      'destination 127.0.0.1 (rebind.example) is a loopback address; allow it with WEBHOOK_ALLOWED_HOSTS',
    );
  });

  it('keeps only the allowed addresses of a mixed answer, for one address or all of them', async () => {
    const answer: LookupAddress[] = [
      { address: '::ffff:10.0.0.1', family: 6 },
      { address: '2606:4700::1111', family: 6 },
      { address: '1.1.1.1', family: 4 },
    ];
    expect(await lookUp(guardedLookup(allowing(''), scripted(answer)), false)).toEqual({
      error: null,
      result: { address: '2606:4700::1111', family: 6 },
    });
    expect(await lookUp(guardedLookup(allowing(''), scripted(answer)), true)).toEqual({
      error: null,
      result: answer.slice(1),
    });
  });

  it('passes a resolver error on as it is', async () => {
    const failing: Resolver = (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    const { error } = await lookUp(guardedLookup(allowing(''), failing), true);
    expect(error).toMatchObject({ code: 'ENOTFOUND' });
  });
});

import { createRedisClient, type RedisClient } from '@app/shared/redis/redis';
import { ProblemException } from '@app/shared/http/problem';
import { RedisScripts } from '@app/shared/redis/redis-scripts';
import { PointInTimeLeases, REAPER_MARGIN_MS } from '@app/api/search/walks/point-in-time-leases';
import { freePort } from '../support/processes';
import { startOwnRedisCluster } from '../support/redis-cluster';
import { startOwnRedis } from '../support/redis-server';

const KEEP_ALIVE_MS = 300_000;

/** The 429 problem `call` answered, or undefined when it succeeded. */
async function refusal(call: Promise<unknown>): Promise<ProblemException | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    if (error instanceof ProblemException) return error;
    throw error;
  }
}

/** A Redis of the test's own: one server, or a cluster of three primaries (docs/operations.md, "Redis Cluster"). */
async function ownRedis(clustered: boolean) {
  const own = clustered ? await startOwnRedisCluster() : await startOwnRedis();
  return { url: own.url, flushAll: () => own.flushAll(), stop: () => own.stop() };
}

/**
 * The ceilings on points in time (docs/contract.md §7) against a real Redis: the Lua scripts as
 * they run, on one server and on a cluster, where each script's keys must share a slot.
 */
describe.each([
  ['one Redis server', false],
  ['a Redis Cluster', true],
] as const)('PointInTimeLeases on %s', (_, clustered) => {
  let redis: Awaited<ReturnType<typeof ownRedis>>;
  let client: RedisClient;
  /** The keys matching `pattern`, wherever in the cluster they are. */
  const keys = async (pattern: string) =>
    'nodes' in client
      ? (await Promise.all(client.nodes('master').map((node) => node.keys(pattern)))).flat()
      : client.keys(pattern);
  let now: number;
  const leases = (all: number, perCaller: number) =>
    new PointInTimeLeases(new RedisScripts(client), KEEP_ALIVE_MS, { all, perCaller }, () => now);

  beforeAll(async () => {
    redis = await ownRedis(clustered);
    client = createRedisClient({ REDIS_URL: redis.url, REDIS_CLUSTER: clustered });
    // The client queues nothing while it connects (it fails fast, as the API's must): wait for it.
    if (client.status !== 'ready') await new Promise((ready) => client.once('ready', ready));
  }, 30_000);

  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  }, 30_000);

  beforeEach(async () => {
    now = 1_000_000_000;
    await redis.flushAll();
  });

  it('gives one walk one point in time, however often it is asked for, and counts it once', async () => {
    const pits = leases(1, 1);
    expect(await pits.acquire('w1', 'c1')).toEqual({ open: true });
    await pits.register('w1', 'c1', 'pit-1');
    for (let i = 0; i < 20; i += 1) expect(await pits.acquire('w1', 'c1')).toEqual({ pit: 'pit-1' });
    expect(await client.zcard('{search-pit}:all')).toBe(1);
  });

  it('refuses a walk past the per-caller ceiling and past the overall one, with Retry-After, never a held walk', async () => {
    const pits = leases(3, 2);
    for (const walk of ['a1', 'a2']) {
      await pits.acquire(walk, 'alice');
      await pits.register(walk, 'alice', `pit-${walk}`);
    }
    now += 10_000;
    const own = await refusal(pits.acquire('a3', 'alice'));
    expect(own?.getStatus()).toBe(429);
    expect(own?.body.detail).toMatch(/this caller already holds 2 cursor walks/i);
    // The first slot lapses keep-alive + reaper margin after its last page, 10 s ago.
    expect(Number(own?.headers['Retry-After'])).toBe((KEEP_ALIVE_MS + REAPER_MARGIN_MS - 10_000) / 1_000);
    await pits.acquire('b1', 'bob');
    const all = await refusal(pits.acquire('b2', 'bob'));
    expect(all?.getStatus()).toBe(429);
    expect(all?.body.detail).toMatch(/as many cursor walks as it allows/);
    // A walk already held goes on whatever the ceilings.
    expect(await pits.acquire('a1', 'alice')).toEqual({ pit: 'pit-a1' });
  });

  it('frees a slot at release, but not for a point in time the walk no longer reads', async () => {
    const pits = leases(1, 1);
    await pits.acquire('w1', 'c1');
    await pits.register('w1', 'c1', 'pit-2');
    await pits.release('w1', 'c1', 'pit-1');
    expect(await refusal(pits.acquire('w2', 'c1'))).toBeDefined();
    await pits.release('w1', 'c1', 'pit-2');
    expect(await pits.acquire('w2', 'c1')).toEqual({ open: true });
    await pits.abandon('w2', 'c1');
    expect(await client.zcard('{search-pit}:all')).toBe(0);
  });

  it('counts the walks held as the overall ceiling does: opening ones in, released and lapsed ones out', async () => {
    const pits = leases(10, 10);
    expect(await pits.held()).toBe(0);
    for (const [walk, caller] of [
      ['a1', 'alice'],
      ['a2', 'alice'],
      ['b1', 'bob'],
    ] as const) {
      await pits.acquire(walk, caller);
      if (walk !== 'b1') await pits.register(walk, caller, `pit-${walk}`);
    }
    // Asked for again, a held walk is not counted twice.
    await pits.acquire('a1', 'alice');
    expect(await pits.held()).toBe(3);
    await pits.release('a2', 'alice', 'pit-a2');
    expect(await pits.held()).toBe(2);
    // Still in the sorted set until the next acquire drops it, a lapsed slot is no longer counted.
    now += KEEP_ALIVE_MS + REAPER_MARGIN_MS;
    expect(await client.zcard('{search-pit}:all')).toBe(2);
    expect(await pits.held()).toBe(0);
  });

  it('lets slots lapse on their own, and every key expires in Redis too (a crashed API leaks nothing)', async () => {
    const pits = leases(1, 1);
    await pits.acquire('w1', 'c1');
    await pits.register('w1', 'c1', 'pit-1');
    const held = await keys('{search-pit}:*');
    expect(held.length).toBeGreaterThan(0);
    for (const key of held) {
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(KEEP_ALIVE_MS + REAPER_MARGIN_MS);
    }
    now += KEEP_ALIVE_MS + REAPER_MARGIN_MS - 1;
    expect(await refusal(pits.acquire('w2', 'c1'))).toBeDefined();
    now += 2;
    expect(await pits.acquire('w2', 'c1')).toEqual({ open: true });
  });

  it('makes a request wait while another opens the same walk, then hands it that point in time', async () => {
    const pits = leases(5, 5);
    await pits.acquire('w1', 'c1');
    const waiting = pits.acquire('w1', 'c1');
    await pits.register('w1', 'c1', 'pit-1');
    expect(await waiting).toEqual({ pit: 'pit-1' });
  });

  it('answers 503 while Redis is away', async () => {
    const away = createRedisClient({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    try {
      const pits = new PointInTimeLeases(new RedisScripts(away), KEEP_ALIVE_MS, { all: 1, perCaller: 1 });
      expect((await refusal(pits.acquire('w1', 'c1')))?.getStatus()).toBe(503);
    } finally {
      away.disconnect();
    }
  });
});

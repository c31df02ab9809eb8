import { setTimeout as sleep } from 'node:timers/promises';
import { ProblemException } from '@app/shared/http/problem';
import type { RedisScripts, Script } from '@app/shared/redis/redis-scripts';

/** What a cursor walk holds in Redis: the point in time it reads, or the right to open one. */
export type Lease = { pit: string } | { open: true };

export interface LeaseCeilings {
  /** Points in time open at once, all callers together (SEARCH_PIT_MAX_OPEN). */
  all: number;
  /** Points in time one caller may hold at once (SEARCH_PIT_MAX_PER_CALLER). */
  perCaller: number;
}

/**
 * How long a walk's slot is counted after its last page: the point in time's keep-alive, plus
 * the interval at which Elasticsearch reaps expired contexts (`search.keep_alive_interval`, one
 * minute), so the count never falls below what the engine still holds.
 */
export const REAPER_MARGIN_MS = 60_000;
/** The mark of a walk whose point in time is being opened: others wait for it rather than open their own. */
const OPENING = 'opening';
/** How long an opening may take before the mark lapses (the search client's own request timeout). */
const OPENING_MS = 10_000;
/** How long a request waits for a walk's point in time another request is opening, and how often it looks. */
const WAIT_FOR_OPENING_MS = 5_000;
const WAIT_STEP_MS = 25;

/**
 * Every key of the leases in one hash slot (`{search-pit}`), so the scripts' keys stay together on
 * a Redis cluster too: the count of all walks, one count per caller, one key per walk.
 */
const ALL = '{search-pit}:all';
const callerKey = (caller: string) => `{search-pit}:caller:${caller}`;
const walkKey = (walk: string) => `{search-pit}:walk:${walk}`;

/**
 * KEYS: walk, all, caller. ARGV: walk, now, hold, opening, ceiling for all, ceiling per caller.
 * A walk that holds a point in time gets it back, its slots extended. Otherwise, expired slots
 * are dropped, and a slot is taken under both ceilings: the walk is marked as opening.
 */
const ACQUIRE = `
local held = redis.call('GET', KEYS[1])
if held == '${OPENING}' then return {'opening'} end
local now = tonumber(ARGV[2])
local hold = tonumber(ARGV[3])
if held then
  redis.call('PEXPIRE', KEYS[1], hold)
  for i = 2, 3 do
    redis.call('ZADD', KEYS[i], now + hold, ARGV[1])
    redis.call('PEXPIRE', KEYS[i], hold)
  end
  return {'pit', held}
end
for i = 2, 3 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now) end
for i, ceiling in ipairs({ARGV[5], ARGV[6]}) do
  if redis.call('ZSCORE', KEYS[i + 1], ARGV[1]) == false and redis.call('ZCARD', KEYS[i + 1]) >= tonumber(ceiling) then
    local first = redis.call('ZRANGE', KEYS[i + 1], 0, 0, 'WITHSCORES')
    return {'full', i == 1 and 'all' or 'caller', first[2] or tostring(now)}
  end
end
redis.call('SET', KEYS[1], '${OPENING}', 'PX', ARGV[4])
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], now + hold, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], hold)
end
return {'open'}
`;

/** KEYS: walk, all, caller. ARGV: walk, point in time, now, hold. The walk reads this point in time now. */
const REGISTER = `
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], tonumber(ARGV[3]) + tonumber(ARGV[4]), ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ARGV[4])
end
return 1
`;

/**
 * KEYS: walk, all, caller. ARGV: walk, what the walk is expected to hold (a point in time, or the
 * opening mark). Frees the walk's slots, unless another request gave the walk another point in time.
 */
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
for i = 2, 3 do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 1
`;

/**
 * The points in time that cursor walks hold, counted in Redis (docs/contract.md §7): one per walk,
 * however often its cursors are followed or replayed, under a ceiling for all callers together and
 * one per caller, shared by every API process. Each slot expires on its own (the keep-alive plus
 * `REAPER_MARGIN_MS` after the walk's last page), so a crashed process leaks nothing for longer.
 * Each call is one Lua script: one Redis round trip per cursor page.
 */
export class PointInTimeLeases {
  private readonly acquireWalk: Script<string[]>;
  private readonly registerWalk: Script<number>;
  private readonly releaseWalk: Script<number>;
  private readonly holdMs: number;

  constructor(
    private readonly redis: RedisScripts,
    keepAliveMs: number,
    private readonly ceilings: LeaseCeilings,
    private readonly now: () => number = Date.now,
  ) {
    this.acquireWalk = redis.define('acquireWalk', 3, ACQUIRE);
    this.registerWalk = redis.define('registerWalk', 3, REGISTER);
    this.releaseWalk = redis.define('releaseWalk', 3, RELEASE);
    this.holdMs = keepAliveMs + REAPER_MARGIN_MS;
  }

  /**
   * The point in time `walk` reads (its slot extended), or the right to open one (a slot taken, the
   * walk marked as opening: `register` or `abandon` must follow). While another request opens the
   * walk's point in time, waits for it. A 429 problem when a ceiling is reached.
   */
  async acquire(walk: string, caller: string): Promise<Lease> {
    const waitUntil = this.now() + WAIT_FOR_OPENING_MS;
    for (;;) {
      const [verdict, detail, firstExpiry] = await this.call(() =>
        this.acquireWalk(
          ...this.keys(walk, caller),
          walk,
          this.now(),
          this.holdMs,
          OPENING_MS,
          this.ceilings.all,
          this.ceilings.perCaller,
        ),
      );
      if (verdict === 'pit') return { pit: detail! };
      if (verdict === 'open') return { open: true };
      if (verdict === 'full') throw this.tooMany(detail === 'caller', Number(firstExpiry));
      if (this.now() >= waitUntil) throw ProblemException.unavailable('Search', 1);
      await sleep(WAIT_STEP_MS);
    }
  }

  /** The walk reads `pit` from now on (after `acquire` said open, or when the engine gave it a new id). */
  async register(walk: string, caller: string, pit: string): Promise<void> {
    await this.call(() => this.registerWalk(...this.keys(walk, caller), walk, pit, this.now(), this.holdMs));
  }

  /** Frees the walk's slot, unless the walk meanwhile reads another point in time than `pit`. */
  async release(walk: string, caller: string, pit: string): Promise<void> {
    await this.call(() => this.releaseWalk(...this.keys(walk, caller), walk, pit));
  }

  /**
   * The walks that hold a point in time, or are opening one, now: all callers and API processes
   * together, as the overall ceiling counts them (a lapsed slot not, though not yet dropped).
   */
  held(): Promise<number> {
    return this.redis.count(ALL, `(${this.now()}`, '+inf');
  }

  /** Frees the slot `acquire` took for an opening that failed. */
  abandon(walk: string, caller: string): Promise<void> {
    return this.release(walk, caller, OPENING);
  }

  private keys(walk: string, caller: string): [string, string, string] {
    return [walkKey(walk), ALL, callerKey(caller)];
  }

  private tooMany(own: boolean, firstExpiry: number): ProblemException {
    const seconds = Math.max(1, Math.ceil((firstExpiry - this.now()) / 1_000));
    const detail = own
      ? `This caller already holds ${this.ceilings.perCaller} cursor walks, the most one caller may: ` +
        'follow one to its last page (which frees it) or wait until one lapses'
      : 'The service holds as many cursor walks as it allows';
    return new ProblemException(
      429,
      `${detail}; try again in ${seconds} s. A search by page number is not limited.`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }

  /** Redis away: the cursor page cannot be counted, so it is not served (docs/contract.md §4). */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if (error instanceof ProblemException) throw error;
      throw ProblemException.unavailable('Search cursors');
    }
  }
}

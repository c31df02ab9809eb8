import { startOwnRedis, type OwnRedis } from './redis-server';
import { startSystem, type System } from './system';
import { openTestContext, type TestContext } from './test-context';

type Env = Record<string, string>;

export interface BootOptions {
  /**
   * Empties the test database, index and bucket before the file (`true`, the default), before each
   * test (`'each'`), or not at all (`false`: the index alias is only made sure of, for a file that
   * searches but writes nothing).
   */
  reset?: boolean | 'each';
  /**
   * The processes' Redis: the test Redis database (`'shared'`, the default), a server of the
   * file's own (`'own'`, which a test may stop or flush), or a new one for each test (`'own-each'`).
   */
  redis?: 'shared' | 'own' | 'own-each';
  /** What the file writes before the processes start (they see it from their first request). */
  seed?: (context: TestContext) => Promise<unknown>;
  /**
   * The API and worker processes started before the file's tests, with these settings on top of
   * the test environment (a function when they name something a hook made first, as a webhook
   * receiver's URL); `false` when each test starts its own with `boot.start`.
   */
  system?: false | { env?: Env | (() => Env); worker?: boolean };
  /** How long booting may take (default 120 s). */
  timeoutMs?: number;
}

/** What `bootSystem` booted, read inside hooks and tests (it is there once its `beforeAll` ran). */
export interface Boot {
  readonly context: TestContext;
  readonly system: System;
  readonly redis: OwnRedis;
  /**
   * Starts API and worker processes for the current test on the file's stores (its own Redis
   * included), stopped after the test: for files whose tests each need another setting.
   */
  start(env?: Env, options?: { worker?: boolean }): Promise<System>;
}

/**
 * The one setup of an end-to-end file: registers the `beforeAll` that opens a test context,
 * empties the stores, starts a Redis of the file's own if asked, seeds and starts the processes,
 * and the `afterAll`/`afterEach` hooks that stop all of it, last started first stopped. Anything
 * else a file starts (a webhook receiver, a JWKS server) goes in its own `beforeAll` declared
 * before this call, and its `afterAll` after it, so that it outlives the processes that call it.
 */
export function bootSystem(options: BootOptions = {}): Boot {
  const { reset = true, redis: redisMode = 'shared', system: fileSystem = {} } = options;
  const timeoutMs = options.timeoutMs ?? 120_000;
  let context: TestContext | undefined;
  let redis: OwnRedis | undefined;
  let system: System | undefined;
  const perTest: System[] = [];

  const booted = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not booted here (see bootSystem's options)`);
    return value;
  };
  const redisEnv = (): Env => (redis ? { REDIS_URL: redis.url } : {});

  beforeAll(async () => {
    context = await openTestContext();
    if (reset === true) await context.reset();
    else if (reset === false) await context.indexAdmin.ensureAlias();
    if (redisMode === 'own') redis = await startOwnRedis();
    if (reset !== 'each') await options.seed?.(context);
    if (fileSystem) {
      const env = typeof fileSystem.env === 'function' ? fileSystem.env() : fileSystem.env;
      system = await startSystem({ ...redisEnv(), ...env }, { worker: fileSystem.worker ?? true });
    }
  }, timeoutMs);

  if (reset === 'each' || redisMode === 'own-each') {
    beforeEach(async () => {
      if (redisMode === 'own-each') redis = await startOwnRedis();
      if (reset === 'each') {
        await context!.reset();
        await options.seed?.(context!);
      }
    }, timeoutMs);
  }

  afterEach(async () => {
    await Promise.all(perTest.splice(0).map((started) => started.stop()));
    if (redisMode === 'own-each') await redis?.stop();
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await redis?.stop();
    await context?.close();
  }, 60_000);

  return {
    get context() {
      return booted(context, 'the test context');
    },
    get system() {
      return booted(system, 'a system started for the file');
    },
    get redis() {
      return booted(redis, 'a Redis of the file’s own');
    },
    async start(env = {}, { worker = true } = {}) {
      const started = await startSystem({ ...redisEnv(), ...env }, { worker });
      perTest.push(started);
      return started;
    },
  };
}

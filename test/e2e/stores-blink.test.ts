import { storesBlink } from '../support/scenarios/stores-blink';

/**
 * Each backing store blinks under three APIs behind a Service (docs/reliability.md); `npm run chaos`
 * runs it longer.
 *
 * @runs-alone: it starts a MariaDB, a Redis and an Elasticsearch node of its own and holds that no
 * request meets a connection error, which a file beside it starving the proxy's event loop breaks.
 */
describe('a store blinks under three APIs: MySQL, Redis, Elasticsearch and S3 each down in turn', () => {
  it('keeps every API ready and in the pool, answers 2xx or a proper 503, recovers each route, loses no change', async () => {
    const report = await storesBlink({
      callers: 3,
      videosPerCaller: 20,
      blinkMs: 5_000,
      beforeMs: 2_000,
      afterMs: 8_000,
      recoveryMs: 5_000,
      changeRate: 8,
      searchRate: 5,
    });
    expect(report.violations).toEqual([]);
  }, 420_000);
});

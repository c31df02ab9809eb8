import { networkInterfaces } from 'node:os';
import { tcpOpen } from '../../scripts/services/wait.ts';
import { bootSystem } from '../support/boot';
import { startService, type StartedService } from '../support/processes';
import { ensureTestIndex } from '../support/test-context';

/** An IPv4 address of this machine other than loopback: where a neighbour would connect. */
function nonLoopbackIpv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
}

const ADDRESS = nonLoopbackIpv4();
const portOf = (url: string) => Number(new URL(url).port);

/**
 * The ports for operators (the API's metrics, the worker's health and metrics) listen on
 * INTERNAL_HOST, loopback by default; the public API port listens on every interface
 * (docs/contract.md §9). Without an address other than loopback there is nothing to show, and the
 * tests say so instead of passing.
 */
describe('internal ports (§9)', () => {
  if (!ADDRESS) {
    it.skip('cannot run: this machine has no IPv4 address other than loopback (os.networkInterfaces())', () => {});
    return;
  }
  const address = ADDRESS;

  describe('with INTERNAL_HOST unset (127.0.0.1)', () => {
    const boot = bootSystem({ reset: false });

    it('the public port answers on an address other than loopback, the metrics and worker ports do not', async () => {
      // The public port on that address shows the address is reachable at all.
      expect(await tcpOpen(address, portOf(boot.system.api))).toBe(true);
      const live = await fetch(`http://${address}:${portOf(boot.system.api)}/health/live`, {
        signal: AbortSignal.timeout(5_000),
      });
      expect(live.status).toBe(200);
      for (const internal of [boot.system.apiMetrics, boot.system.workerHealth]) {
        expect([internal, await tcpOpen(address, portOf(internal))]).toEqual([internal, false]);
        expect([internal, await tcpOpen('127.0.0.1', portOf(internal))]).toEqual([internal, true]);
      }
      const scrape = await fetch(`${boot.system.apiMetrics}/metrics`, { signal: AbortSignal.timeout(5_000) });
      expect(scrape.status).toBe(200);
      const ready = await fetch(`${boot.system.workerHealth}/health/ready`, {
        signal: AbortSignal.timeout(5_000),
      });
      expect(ready.status).toBe(200);
    }, 30_000);
  });

  describe('with INTERNAL_HOST set to that address (as a pod sets its own)', () => {
    let api: StartedService;

    beforeAll(async () => {
      await ensureTestIndex();
      api = await startService('api', { INTERNAL_HOST: address });
    }, 120_000);

    afterAll(async () => {
      await api?.process.stop();
    }, 60_000);

    it('the metrics port answers on that address, and not on loopback', async () => {
      const port = portOf(api.metrics);
      const scrape = await fetch(`http://${address}:${port}/metrics`, { signal: AbortSignal.timeout(5_000) });
      expect(scrape.status).toBe(200);
      expect(await tcpOpen('127.0.0.1', port)).toBe(false);
      expect(await tcpOpen(address, portOf(api.url))).toBe(true);
    }, 30_000);
  });
});

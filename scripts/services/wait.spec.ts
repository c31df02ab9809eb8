import { waitFor } from './wait';

describe('waitFor', () => {
  it('answers the first value a probe gives, after the probes that gave none or threw', async () => {
    let calls = 0;
    const value = await waitFor(
      'the third probe',
      () => {
        calls += 1;
        if (calls === 1) return Promise.reject(new Error('not up'));
        return Promise.resolve(calls === 3 ? 'ready' : undefined);
      },
      { timeoutMs: 5_000, intervalMs: 1 },
    );
    expect(value).toBe('ready');
    expect(calls).toBe(3);
  });

  it("names what it waited for and the probe's last error past the deadline", async () => {
    await expect(
      waitFor('a server that never comes', () => Promise.reject(new Error('connection refused')), {
        timeoutMs: 50,
        intervalMs: 5,
      }),
    ).rejects.toThrow('Timed out waiting for a server that never comes: connection refused');
  });

  // Without the deadline on the probe itself this wait would never end: the test's own 2 s fail it.
  it('gives up on a probe that never settles at the deadline, rather than waiting for it', async () => {
    await expect(
      waitFor('a node that accepts and never answers', () => new Promise<never>(() => undefined), {
        timeoutMs: 100,
        intervalMs: 10,
      }),
    ).rejects.toThrow('Timed out waiting for a node that accepts and never answers');
  }, 2_000);
});

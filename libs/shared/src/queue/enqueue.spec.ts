import { enqueue, QUEUE_TIMEOUT_MS } from './enqueue';

describe('enqueue', () => {
  const warnings: string[] = [];
  const logger = { warn: (message: string) => void warnings.push(message) };

  beforeEach(() => {
    warnings.length = 0;
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('resolves once Redis has taken the job', async () => {
    await expect(enqueue(Promise.resolve('job'), 'sync-video')).resolves.toBeUndefined();
    await expect(
      enqueue(Promise.resolve('job'), 'sync-video', { logger, warn: 'not queued' }),
    ).resolves.toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it("without a fallback, rejects with Redis's refusal", async () => {
    await expect(enqueue(Promise.reject(new Error('Connection is closed.')), 'cancel_purge')).rejects.toThrow(
      'Connection is closed.',
    );
  });

  it('without a fallback, rejects once QUEUE_TIMEOUT_MS has passed', async () => {
    jest.useFakeTimers();
    const queued = enqueue(new Promise(() => undefined), 'schedule_purge');
    const settled = expect(queued).rejects.toThrow(
      `queue schedule_purge timed out after ${QUEUE_TIMEOUT_MS} ms`,
    );
    await jest.advanceTimersByTimeAsync(QUEUE_TIMEOUT_MS);
    await settled;
  });

  it('with a fallback, logs the refusal or the timeout and resolves', async () => {
    await enqueue(Promise.reject(new Error('Connection is closed.')), 'erasure e1', {
      logger,
      warn: 'erasure e1 left to the sweep',
    });
    jest.useFakeTimers();
    const queued = enqueue(new Promise(() => undefined), 'deliver-webhook', {
      logger,
      warn: 'delivery d1 attempt 2 left to the sweep',
    });
    await jest.advanceTimersByTimeAsync(QUEUE_TIMEOUT_MS);
    await queued;
    expect(warnings).toEqual([
      'erasure e1 left to the sweep: Error: Connection is closed.',
      `delivery d1 attempt 2 left to the sweep: Error: queue deliver-webhook timed out after ${QUEUE_TIMEOUT_MS} ms`,
    ]);
  });
});

import type { Job, Queue } from 'bullmq';
import { nextInLineReadySince, readySince } from './queue-age';

const ADDED = 1_800_000_000_000;

const job = (fields: { delay?: number; processedOn?: number; timestamp?: number }) =>
  ({
    timestamp: fields.timestamp ?? ADDED,
    opts: fields.delay === undefined ? {} : { delay: fields.delay },
    processedOn: fields.processedOn,
  }) as Job;

describe('readySince', () => {
  it('is when the job was added, for one added to run now', () => {
    expect(readySince(job({}))).toBe(ADDED);
    expect(readySince(job({ delay: 0 }))).toBe(ADDED);
  });

  it('is when its delay ended, for a delayed job that came due', () => {
    expect(readySince(job({ delay: 30_000 }))).toBe(ADDED + 30_000);
  });

  it('is when its last attempt started, for a retry: it went back in line after that', () => {
    expect(readySince(job({ delay: 30_000, processedOn: ADDED + 90_000 }))).toBe(ADDED + 90_000);
  });
});

describe('nextInLineReadySince', () => {
  const queueHolding = (jobs: Job[]) => {
    const asked: unknown[][] = [];
    const queue = {
      getJobs: (...args: unknown[]) => {
        asked.push(args);
        return Promise.resolve(jobs);
      },
    } as unknown as Pick<Queue, 'getJobs'>;
    return { queue, asked };
  };

  it('reads one job of each line, the next to run (ascending), and answers the earlier', async () => {
    const { queue, asked } = queueHolding([job({ timestamp: ADDED + 5_000 }), job({ delay: 1_000 })]);
    await expect(nextInLineReadySince(queue)).resolves.toBe(ADDED + 1_000);
    expect(asked).toEqual([[['wait', 'prioritized'], 0, 0, true]]);
  });

  it('is null when nothing waits', async () => {
    await expect(nextInLineReadySince(queueHolding([]).queue)).resolves.toBeNull();
  });
});

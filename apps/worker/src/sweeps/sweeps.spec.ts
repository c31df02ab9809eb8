import { loadConfig } from '@app/shared/config/load-config';
import { JOB_NAMES } from '@app/shared/queue/jobs';
import fc from 'fast-check';
import { isOverdue, keepsItsSlot, SWEEP_NAMES, SWEEPS, type Sweep } from './sweeps';

describe('SWEEPS', () => {
  it('keeps the schedules Redis already holds: the same job names, queues, intervals and kept runs', () => {
    const schedule = ({ queue, every, keep }: Sweep) =>
      `${queue} every ${every}${keep === undefined ? '' : `, keeping ${keep}`}`;
    expect(Object.fromEntries(SWEEP_NAMES.map((name) => [name, schedule(SWEEPS[name])]))).toEqual({
      'purge-sweep': 'maintenance every PURGE_SWEEP_INTERVAL_MS',
      'erasure-sweep': 'maintenance every PURGE_SWEEP_INTERVAL_MS',
      'trash-sweep': 'maintenance every PURGE_SWEEP_INTERVAL_MS',
      'orphan-sweep': 'maintenance every ORPHAN_SWEEP_INTERVAL_MS',
      'reconcile-index': 'maintenance every RECONCILE_INTERVAL_MS',
      'webhook-sweep': 'webhooks every WEBHOOK_SWEEP_INTERVAL_MS, keeping 100',
      'outbox-prune': 'maintenance every OUTBOX_PRUNE_INTERVAL_MS',
      'expunge-deletes': 'maintenance every EXPUNGE_INTERVAL_MS',
    });
  });

  it('names no sweep like a job that is asked for, so each name has one handler', () => {
    expect(SWEEP_NAMES.filter((name) => (JOB_NAMES as string[]).includes(name))).toEqual([]);
  });

  it('gives each sweep an interval the configuration sets by default', () => {
    const config = loadConfig({});
    for (const name of SWEEP_NAMES) expect(config[SWEEPS[name].every]).toBeGreaterThan(0);
  });

  it('has a handler class per sweep', () => {
    const handlers = SWEEP_NAMES.map((name) => SWEEPS[name].handler);
    expect(new Set(handlers).size).toBe(SWEEP_NAMES.length);
    for (const handler of handlers) expect(typeof handler.prototype.handle).toBe('function');
  });
});

describe('keepsItsSlot', () => {
  it('keeps a schedule of the same interval whose offset lies within it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 86_400_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (every, at) => {
          const offset = Math.floor(every * at);
          expect(keepsItsSlot({ every, offset }, every)).toBe(true);
          expect(keepsItsSlot({ every }, every)).toBe(true);
        },
      ),
    );
  });

  it('starts over a schedule of another interval, or one whose offset an older, longer interval left', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 86_400_000 }),
        fc.integer({ min: 1, max: 86_400_000 }),
        (every, interval) => {
          fc.pre(every !== interval);
          expect(keepsItsSlot({ every, offset: 0 }, interval)).toBe(false);
          expect(keepsItsSlot({ every: interval, offset: interval + (every % interval) }, interval)).toBe(
            false,
          );
        },
      ),
    );
    expect(keepsItsSlot({ every: 1_000, offset: 32_531 }, 1_000)).toBe(false);
    expect(keepsItsSlot({ offset: 0 }, 1_000)).toBe(false);
  });
});

describe('isOverdue', () => {
  const times = fc.integer({ min: 0, max: 4_000_000_000_000 });
  const grace = fc.integer({ min: 1_000, max: 86_400_000 });

  it('leaves a schedule whose next run is ahead, or due within the grace, alone', () => {
    fc.assert(
      fc.property(times, grace, fc.integer({ min: -86_400_000, max: 86_400_000 }), (now, graceMs, ahead) => {
        fc.pre(-ahead <= graceMs);
        expect(isOverdue({ next: now + ahead }, now, graceMs)).toBe(false);
      }),
    );
  });

  it('finds a schedule whose next run was due longer ago than the grace', () => {
    fc.assert(
      fc.property(times, grace, fc.integer({ min: 1, max: 86_400_000 }), (now, graceMs, late) => {
        expect(isOverdue({ next: now - graceMs - late }, now, graceMs)).toBe(true);
      }),
    );
  });

  it('leaves a schedule that names no next run alone (BullMQ has nothing to compare)', () => {
    expect(isOverdue({}, Date.now(), 1_000)).toBe(false);
  });
});

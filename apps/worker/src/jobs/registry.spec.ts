import { loadConfig } from '@app/shared/config/load-config';
import { JOB_NAMES } from '@app/shared/queue/jobs';
import { JOB_HANDLERS, SWEEP_NAMES, SWEEPS, type Sweep } from './registry';

describe('JOB_HANDLERS and SWEEPS', () => {
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

  it('has a handler class of its own per job and per sweep', () => {
    const handlers = [
      ...JOB_NAMES.map((name) => JOB_HANDLERS[name]),
      ...SWEEP_NAMES.map((name) => SWEEPS[name].handler),
    ];
    expect(new Set(handlers).size).toBe(JOB_NAMES.length + SWEEP_NAMES.length);
    for (const { prototype } of handlers)
      expect(typeof (prototype as { handle?: unknown }).handle).toBe('function');
  });
});

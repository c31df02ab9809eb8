import fc from 'fast-check';
import { cpuBudget, machineMs, type CpuRun } from './cpu-budget';

/** A side of `requests` requests whose processes spent `ms` CPU ms per request each. */
const side = (requests: number, ms: Record<string, number>): CpuRun => ({
  requests,
  cpu: Object.fromEntries(
    Object.entries(ms).map(([part, perRequest]) => [part, (perRequest * requests) / 1000]),
  ),
});

describe('cpuBudget', () => {
  const plain = side(1000, { elasticsearch: 2.5, api: 0.1, bench: 0.3 });
  const floor = side(900, { elasticsearch: 2.5, floor: 0.2, api: 0.1, bench: 0.35 });
  const framework = side(800, { elasticsearch: 2.6, framework: 0.45, api: 0.1, bench: 0.35 });
  const api = side(700, { elasticsearch: 2.9, api: 0.8, mysql: 0.15, redis: 0.05, bench: 0.35 });

  it('sums every process per request and predicts the ratio from it', () => {
    const cpu = cpuBudget({ plain, floor, framework, api }, 0.85);
    expect(cpu.plain).toBeCloseTo(2.9);
    expect(cpu.floor).toBeCloseTo(3.15);
    expect(cpu.framework).toBeCloseTo(3.5);
    expect(cpu.api).toBeCloseTo(4.25);
    expect(cpu.predicted).toBeCloseTo(2.9 / 4.25);
  });

  it("splits what the API adds by process, and bounds any API with this query by each floor's hop", () => {
    const cpu = cpuBudget({ plain, floor, framework, api }, 0.85);
    expect(cpu.added.engine).toBeCloseTo(0.4);
    expect(cpu.added.api).toBeCloseTo(0.7);
    expect(cpu.added.stores).toBeCloseTo(0.2);
    expect(cpu.added.loadGenerator).toBeCloseTo(0.05);
    expect(cpu.budget).toBeCloseTo(2.9 / 0.85 - 2.9);
    expect(cpu.hop).toBeCloseTo(0.25);
    expect(cpu.best).toBeCloseTo(2.9 / (2.9 + 0.25 + 0.4));
    // The engine's own extra for the frameworks' floor (0.1 ms) is the run's noise, not the hop's.
    expect(cpu.frameworkHop).toBeCloseTo(0.5);
    expect(cpu.frameworkBest).toBeCloseTo(2.9 / (2.9 + 0.5 + 0.4));
  });

  it('accounts for all the API adds, and its best ratio is never below what it measured from CPU when it costs more than the floor', () => {
    const ms = fc.double({ min: 0, max: 5, noNaN: true });
    const run = fc.record({
      elasticsearch: fc.double({ min: 0.1, max: 5, noNaN: true }),
      api: ms,
      floor: ms,
      framework: ms,
      mysql: ms,
      redis: ms,
      bench: ms,
    });
    fc.assert(
      fc.property(run, run, run, run, fc.integer({ min: 1, max: 10_000 }), (p, f, n, a, requests) => {
        const sides = {
          plain: side(requests, p),
          floor: side(requests, f),
          framework: side(requests, n),
          api: side(requests, a),
        };
        const cpu = cpuBudget(sides, 0.85);
        const { engine, api: node, stores, loadGenerator } = cpu.added;
        // Every process but the floors is in one of the parts.
        expect(
          engine + node + stores + loadGenerator + (a.floor - p.floor) + (a.framework - p.framework),
        ).toBeCloseTo(cpu.api - cpu.plain, 6);
        expect(cpu.plain).toBeCloseTo(machineMs(sides.plain), 9);
        if (cpu.api >= cpu.plain + cpu.hop + engine)
          expect(cpu.best).toBeGreaterThanOrEqual(cpu.predicted - 1e-9);
        if (cpu.api >= cpu.plain + cpu.frameworkHop + engine)
          expect(cpu.frameworkBest).toBeGreaterThanOrEqual(cpu.predicted - 1e-9);
      }),
    );
  });
});

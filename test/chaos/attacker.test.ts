import { attackerBesideUsers } from '../support/scenarios/attacker';
import { recordReport } from './results';

describe('chaos: an attacker beside the users', () => {
  it('keeps ordinary callers answered within 1.5× their p99, the API within 50 MB, and loses nothing', async () => {
    const report = await attackerBesideUsers({
      phaseMs: Number(process.env.CHAOS_ATTACKER_PHASE_MS ?? 40_000),
      rounds: 3,
      searchesPerSecond: 20,
      deletesPerSecond: 2,
      stalledBodies: 200,
      attackerRate: 20,
      maxP99Ratio: 1.5,
    });
    recordReport('an attacker beside the users', report);
    expect(report.violations).toEqual([]);
  }, 1_800_000);
});

import { attackerBesideUsers } from '../support/scenarios/attacker';

/**
 * The attacker beside the users in miniature; `npm run chaos` runs it longer and bounds ordinary p99 too.
 * @runs-alone: it measures the API's memory before, during and after the attack.
 */
describe('an attacker beside the users', () => {
  it('answers every ordinary caller, holds no memory for the attacker, and loses nothing', async () => {
    const report = await attackerBesideUsers({
      phaseMs: 4_000,
      rounds: 2,
      searchesPerSecond: 10,
      deletesPerSecond: 2,
      stalledBodies: 200,
      attackerRate: 20,
    });
    expect(report.violations).toEqual([]);
  }, 300_000);
});

import { soak } from '../support/scenarios/soak';
import { recordReport } from './results';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);

describe('chaos: soak', () => {
  it(
    `answers ${SECONDS} s of mixed traffic without an error, with flat API and worker memory`,
    async () => {
      const report = await soak({
        seconds: SECONDS,
        rate: Number(process.env.SOAK_RATE ?? 40),
        concurrency: 8,
        videos: 2_000,
      });
      recordReport('soak', report);
      expect(report.violations).toEqual([]);
    },
    (SECONDS + 300) * 1_000,
  );
});

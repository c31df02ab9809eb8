import { elasticsearchOutage } from '../support/scenarios/elasticsearch-outage';
import { recordReport } from './results';

describe('chaos: Elasticsearch stopped while deletes and searches run', () => {
  it('keeps deletes at 200 and searches at 503, never shows a deleted video, and the reconciler repairs the index', async () => {
    const report = await elasticsearchOutage({
      videos: 600,
      deletes: 300,
      beforeMs: 10_000,
      outageMs: Number(process.env.CHAOS_OUTAGE_SECONDS ?? 60) * 1_000,
      afterMs: 30_000,
      searchRate: 20,
    });
    recordReport('Elasticsearch outage', report);
    expect(report.violations).toEqual([]);
  }, 900_000);
});

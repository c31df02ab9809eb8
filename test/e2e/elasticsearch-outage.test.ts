import { elasticsearchOutage } from '../support/scenarios/elasticsearch-outage';

/** Scenario 3 of the reliability issue in miniature; `npm run chaos` runs it longer and larger. */
describe('Elasticsearch stopped while deletes and searches run', () => {
  it('deletes keep answering 200, searches 503, no deleted video shows, and the index is repaired', async () => {
    const report = await elasticsearchOutage({
      videos: 60,
      deletes: 30,
      beforeMs: 2_000,
      outageMs: 8_000,
      afterMs: 4_000,
      searchRate: 10,
    });
    expect(report.violations).toEqual([]);
  }, 240_000);
});

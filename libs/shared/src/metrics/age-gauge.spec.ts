import { Registry } from 'prom-client';
import { ageGauge } from './age-gauge';

describe('ageGauge', () => {
  const NOW = 1_800_000_000_000;
  let now = NOW;

  beforeEach(() => {
    now = NOW;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  const values = async (registry: Registry, name: string) =>
    (await registry.getSingleMetric(name)!.get()).values.map(({ labels, value }) => ({ labels, value }));

  it('ages each series from its moment at scrape time, so the age grows between two reads', async () => {
    const registry = new Registry();
    const since = ageGauge({ name: 'age_seconds', help: 'h', labelNames: ['queue'], registers: [registry] });
    since({ queue: 'a' }, new Date(NOW - 90_000));
    since({ queue: 'b' }, NOW - 1_500);
    expect(await values(registry, 'age_seconds')).toEqual([
      { labels: { queue: 'a' }, value: 90 },
      { labels: { queue: 'b' }, value: 1.5 },
    ]);
    now += 10_000;
    expect((await values(registry, 'age_seconds'))[0]).toEqual({ labels: { queue: 'a' }, value: 100 });
  });

  it('reads 0 with nothing to age, and never below 0 for a moment still ahead', async () => {
    const registry = new Registry();
    const since = ageGauge({ name: 'age_seconds', help: 'h', labelNames: ['queue'], registers: [registry] });
    since({ queue: 'a' }, NOW - 5_000);
    since({ queue: 'a' }, null);
    since({ queue: 'b' }, NOW + 60_000);
    expect(await values(registry, 'age_seconds')).toEqual([
      { labels: { queue: 'a' }, value: 0 },
      { labels: { queue: 'b' }, value: 0 },
    ]);
  });

  it('has one series without labels, 0 before its first moment', async () => {
    const registry = new Registry();
    const since = ageGauge({ name: 'lag_seconds', help: 'h', registers: [registry] });
    expect(await values(registry, 'lag_seconds')).toEqual([{ labels: {}, value: 0 }]);
    since({}, NOW - 2_000);
    expect(await values(registry, 'lag_seconds')).toEqual([{ labels: {}, value: 2 }]);
  });
});

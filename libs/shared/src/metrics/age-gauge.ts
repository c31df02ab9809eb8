import { Gauge, type GaugeConfiguration, type LabelValues } from 'prom-client';

/** Sets the moment a series of an age gauge counts from; null: nothing to age (the series reads 0). */
export type SetSince<L extends string> = (labels: LabelValues<L>, since: Date | number | null) => void;

/**
 * A gauge of ages in seconds, for the metrics read from the stores on an interval: each series
 * keeps the moment it counts from, as last read, and its value is taken at scrape time, so an age
 * grows between two reads as it does (a purge late by 10 s at one read is late by 20 s ten seconds
 * later), instead of standing still for a refresh interval.
 */
export function ageGauge<L extends string = never>(
  configuration: Omit<GaugeConfiguration<L>, 'collect'>,
): SetSince<L> {
  const series = new Map<string, { labels: LabelValues<L>; since: number | null }>();
  new Gauge<L>({
    ...configuration,
    collect() {
      const now = Date.now();
      for (const { labels, since } of series.values()) {
        this.set(labels, since === null ? 0 : Math.max(0, (now - since) / 1000));
      }
    },
  });
  return (labels, since) => {
    series.set(JSON.stringify(labels), { labels, since: since === null ? null : Number(since) });
  };
}

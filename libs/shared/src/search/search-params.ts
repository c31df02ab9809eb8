import { DAY_MS } from '../util/time';

/**
 * Date bounds of docs/contract.md §7: a date (`2024-05-01`) or a date-time with optional fraction and offset
 * (`Z` or `±hh:mm`; none means UTC). A date-only lower bound starts that day at 00:00:00 UTC; a
 * date-only upper bound includes the whole day.
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;

/** Milliseconds since the epoch of a UTC day; any year 0–9999 (`Date.UTC` maps 0–99 to 1900–1999). */
function utcDay(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

function validCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(utcDay(year, month, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function parseDateBound(value: string, bound: 'from' | 'to'): Date | null {
  const dateOnly = DATE.exec(value);
  if (dateOnly) {
    const [year, month, day] = dateOnly.slice(1, 4).map(Number) as [number, number, number];
    if (!validCalendarDate(year, month, day)) return null;
    const start = utcDay(year, month, day);
    return new Date(bound === 'from' ? start : start + DAY_MS - 1);
  }
  const dateTime = DATE_TIME.exec(value);
  if (!dateTime) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = dateTime.slice(1, 7).map(Number);
  if (!validCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;
  const offset = dateTime[8];
  if (offset && offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59))
    return null;
  // Milliseconds are the index's precision. A finer fraction rounds towards the inside of the
  // range: down for an upper bound, up for a lower one, so both stay inclusive and exact.
  const fraction = dateTime[7] ?? '';
  const parsed = new Date(`${value.slice(0, 19)}${fraction.slice(0, 4)}${offset ?? 'Z'}`);
  if (Number.isNaN(parsed.getTime())) return null;
  const finer = /[1-9]/.test(fraction.slice(4));
  return bound === 'from' && finer ? new Date(parsed.getTime() + 1) : parsed;
}

/** Elasticsearch refuses `from + size` beyond this window. */
export const MAX_RESULT_WINDOW = 10_000;

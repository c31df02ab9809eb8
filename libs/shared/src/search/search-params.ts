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

const NS_PER_MS = 1_000_000n;

/** Division rounding down or up, for instants before 1970 too (BigInt division truncates towards zero). */
const floorDiv = (a: bigint, b: bigint) => (a < 0n && a % b !== 0n ? a / b - 1n : a / b);
const ceilDiv = (a: bigint, b: bigint) => -floorDiv(-a, b);

/**
 * The exact instant a bound names, in nanoseconds since the epoch (a date-only upper bound is the
 * last instant of its day), or null when the text is not one of the contract's forms.
 */
export function boundInstant(value: string, bound: 'from' | 'to'): bigint | null {
  const dateOnly = DATE.exec(value);
  if (dateOnly) {
    const [year, month, day] = dateOnly.slice(1, 4).map(Number) as [number, number, number];
    if (!validCalendarDate(year, month, day)) return null;
    const start = BigInt(utcDay(year, month, day)) * NS_PER_MS;
    return bound === 'from' ? start : start + BigInt(DAY_MS) * NS_PER_MS - 1n;
  }
  const dateTime = DATE_TIME.exec(value);
  if (!dateTime) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = dateTime.slice(1, 7).map(Number);
  if (!validCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;
  const offset = dateTime[8];
  let offsetMinutes = 0;
  if (offset && offset !== 'Z') {
    const [hours, minutes] = [Number(offset.slice(1, 3)), Number(offset.slice(4, 6))];
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (offset.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
  }
  const seconds = hour * 3600 + minute * 60 + second - offsetMinutes * 60;
  const fraction = BigInt((dateTime[7] ?? '.').slice(1).padEnd(9, '0'));
  return (BigInt(utcDay(year, month, day)) + BigInt(seconds) * 1000n) * NS_PER_MS + fraction;
}

/**
 * A bound at the index's precision, milliseconds, carrying the `exact` instant it was read as. A
 * finer fraction rounds towards the inside of the range: up for a lower bound, down for an upper
 * one, so both stay inclusive and exact. Two bounds inside one millisecond then cross, though in
 * order: whether a range is reversed is a question for `exact`.
 */
export class DateBound extends Date {
  constructor(
    readonly exact: bigint,
    bound: 'from' | 'to',
  ) {
    super(Number(bound === 'from' ? ceilDiv(exact, NS_PER_MS) : floorDiv(exact, NS_PER_MS)));
  }
}

export function parseDateBound(value: string, bound: 'from' | 'to'): DateBound | null {
  const instant = boundInstant(value, bound);
  return instant === null ? null : new DateBound(instant, bound);
}

/** Elasticsearch refuses `from + size` beyond this window. */
export const MAX_RESULT_WINDOW = 10_000;

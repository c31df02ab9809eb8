import fc from 'fast-check';

/**
 * Request parameters at and around each boundary of docs/contract.md (§5–§7, §10), each paired with
 * what the contract says of it. The oracle is written here from the contract's words, apart from
 * the API's schemas, so a schema that drifts from the contract fails the boundary test.
 */

/** One parameter as sent (absent when `value` is undefined) and whether the contract accepts it. */
export interface Arg {
  value?: string;
  valid: boolean;
}

export const ok = (value?: string): Arg => ({ value, valid: true });
export const bad = (value: string): Arg => ({ value, valid: false });

/** Characters of every kind a user types: letters, accents, CJK, an emoji (two UTF-16 units), query syntax. */
const visible = fc.constantFrom(
  'a',
  'Z',
  '7',
  'é',
  'ß',
  '中',
  '😀',
  '"',
  ':',
  '*',
  '\\',
  '(',
  ']',
  '&',
  '%',
  '+',
  '#',
  '/',
);
const anyCharacter = fc.oneof(visible, fc.constantFrom(' ', '\t'));

/** Text of exactly `length` characters (code points) whose first and last are not white space. */
function trimmedText(length: number): fc.Arbitrary<string> {
  if (length <= 0) return fc.constant('');
  if (length === 1) return visible;
  return fc
    .tuple(visible, fc.array(anyCharacter, { minLength: length - 2, maxLength: length - 2 }), visible)
    .map(([first, middle, last]) => first + middle.join('') + last);
}

const padding = fc.constantFrom('', ' ', '  ', '\t ');

/** Numbers at and around a range's ends, and any in between (`inside`); just past its top, and beyond (`outside`). */
function around(min: number, max: number): { inside: fc.Arbitrary<number>; outside: fc.Arbitrary<number> } {
  return {
    inside: fc.oneof(fc.constantFrom(min, min + 1, max - 1, max), fc.integer({ min, max })),
    outside: fc.oneof(fc.constantFrom(max + 1, max + 2), fc.integer({ min: max + 1, max: max * 4 })),
  };
}

/** A required text parameter the contract trims, then bounds to `min`–`max` characters. */
export function requiredText(min: number, max: number): fc.Arbitrary<Arg> {
  const { inside, outside } = around(min, max);
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(padding, inside.chain(trimmedText), padding).map(([a, t, b]) => ok(a + t + b)),
    },
    { weight: 2, arbitrary: outside.chain(trimmedText).map(bad) },
    // Empty, or nothing but white space: nothing left after trimming.
    { weight: 2, arbitrary: padding.map(bad) },
    { weight: 1, arbitrary: fc.constant({ valid: false }) },
  );
}

/** What an identity may hold besides visible characters: spaces, invisible format characters, U+FFFD (§3). */
const identityCharacter = fc.oneof(visible, fc.constantFrom(' ', '\u00a0', '\u200b', '\ufeff', '\ufffd'));

/** Control characters (C0, DEL, C1), which no identity holds (§3). */
const control = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0x9f }))
  .map((code) => String.fromCharCode(code));

/** An opaque identity of 1–`max` characters, compared exactly: white space and invisible ones included. */
export function identity(max: number): fc.Arbitrary<string> {
  return around(1, max).inside.chain((length) =>
    fc.array(identityCharacter, { minLength: length, maxLength: length }).map((chars) => chars.join('')),
  );
}

/** An optional identity parameter: valid, too long, empty, with a control character, or absent. */
export function identityParam(max: number): fc.Arbitrary<Arg> {
  return fc.oneof(
    { weight: 4, arbitrary: identity(max).map(ok) },
    { weight: 2, arbitrary: around(1, max).outside.chain(trimmedText).map(bad) },
    { weight: 1, arbitrary: fc.constant(bad('')) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(identity(max - 1), control, fc.nat())
        .map(([id, c, at]) => bad([...id].toSpliced(at % ([...id].length + 1), 0, c).join(''))),
    },
    { weight: 1, arbitrary: fc.constant(ok()) },
  );
}

/** An optional integer as the contract writes them: digits only (leading zeros allowed), `min`–`max`. */
export function integerParam(min: number, max: number): fc.Arbitrary<Arg> {
  const { inside } = around(min, max);
  return fc.oneof(
    { weight: 4, arbitrary: inside.map((n) => ok(String(n))) },
    { weight: 1, arbitrary: inside.map((n) => ok(`00${n}`)) },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc
            .constantFrom(min - 1, max + 1)
            .filter((n) => n >= 0)
            .map(String),
          fc.constantFrom('-1', '1.5', '1e2', '+5', ' 5', '5 ', '', 'ten', '0x10', '99999999999999999999999'),
        )
        .map((value) => ({
          value,
          valid: /^\d+$/.test(value) && Number(value) >= min && Number(value) <= max,
        })),
    },
    { weight: 1, arbitrary: fc.constant(ok()) },
  );
}

/** One of the listed words exactly, absent, or something else. */
export function wordParam(words: readonly string[], invalid: readonly string[]): fc.Arbitrary<Arg> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...words).map(ok) },
    { weight: 1, arbitrary: fc.constantFrom(...invalid).map(bad) },
    { weight: 1, arbitrary: fc.constant(ok()) },
  );
}

// ——— Dates (§7): a date, or a date-time with optional fraction and offset; none = UTC ———

const DAY_NS = 86_400_000_000_000n;

function leap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (no Date object: years 0–99 included). */
function daysFromEpoch(year: number, month: number, day: number): number {
  let days = 0;
  for (let y = 1970; y < year; y++) days += leap(y) ? 366 : 365;
  for (let y = year; y < 1970; y++) days -= leap(y) ? 366 : 365;
  const monthDays = [31, leap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  for (let m = 1; m < month; m++) days += monthDays[m - 1]!;
  return days + day - 1;
}

function calendarDate(year: number, month: number, day: number): boolean {
  const monthDays = [31, leap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return month >= 1 && month <= 12 && day >= 1 && day <= monthDays[month - 1]!;
}

/**
 * The exact instant a bound names, in nanoseconds since the epoch; a date-only upper bound is the
 * last instant of its day. Undefined when the contract refuses the text.
 */
export function boundInstant(text: string, bound: 'from' | 'to'): bigint | undefined {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))?)?$/.exec(
      text,
    );
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone, sign, zh, zm] = match;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  if (!calendarDate(year, month, day)) return undefined;
  const dayStart = BigInt(daysFromEpoch(year, month, day)) * DAY_NS;
  if (h === undefined) return bound === 'from' ? dayStart : dayStart + DAY_NS - 1n;
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zone && zone !== 'Z') {
    if (Number(zh) > 23 || Number(zm) > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm));
  }
  const seconds = hour * 3600 + minute * 60 + second - offsetMinutes * 60;
  return dayStart + BigInt(seconds) * 1_000_000_000n + BigInt((fraction ?? '').padEnd(9, '0'));
}

const dayOf = fc.constantFrom(
  '2019-12-31',
  '2020-01-01',
  '2020-02-29',
  '2024-05-01',
  '2024-05-02',
  '0001-01-01',
  '9999-12-31',
);
const time = fc.constantFrom('00:00:00', '23:59:59', '10:30:00', '12:00:00');
const fraction = fc.constantFrom('', '.0', '.5', '.001', '.999', '.0001', '.123456789', '.999999999');
const zone = fc.constantFrom('', 'Z', '+00:00', '-00:00', '+02:00', '-05:30', '+14:00', '-12:00', '+23:59');

/** A date bound: the contract's forms near each other (so the order check meets equal and adjacent bounds), or not one. */
export const dateText: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 2, arbitrary: dayOf },
  { weight: 4, arbitrary: fc.tuple(dayOf, time, fraction, zone).map(([d, t, f, z]) => `${d}T${t}${f}${z}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '2023-02-29',
      '2024-02-30',
      '2024-13-01',
      '2024-00-10',
      '2024-05-01T24:00:00Z',
      '2024-05-01T10:60:00Z',
      '2024-05-01T10:00:60Z',
      '2024-05-01T10:00:00+2',
      '2024-05-01T10:00:00+0200',
      '2024-05-01T10:00:00+24:00',
      '2024-05-01T10:00:00.Z',
      '2024-05-01T10:00:00.1234567890Z',
      '2024-5-1',
      '01/05/2024',
      '20240501',
      '2024-05-01T',
      'yesterday',
      '',
      ' 2024-05-01',
    ),
  },
  { weight: 2, arbitrary: fc.constant(undefined) },
);

// ——— UUIDs (§5) ———

/** The contract's UUID rule, read from §5. */
export function contractUuid(text: string): boolean {
  return (
    /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(text) ||
    /^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(text) ||
    /^f{8}-f{4}-f{4}-f{4}-f{12}$/i.test(text)
  );
}

const hex = fc.constantFrom(...'0123456789abcdef');
const hexes = (n: number) => fc.array(hex, { minLength: n, maxLength: n }).map((a) => a.join(''));

function uuidWith(version: fc.Arbitrary<string>, variant: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(hexes(8), hexes(4), version, hexes(3), variant, hexes(3), hexes(12))
    .map(([a, b, v, c, r, d, e]) => `${a}-${b}-${v}${c}-${r}${d}-${e}`);
}

/** Upper, lower or mixed letter case: the contract compares ids case-insensitively. */
export const anyCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

/** Ids the contract accepts, in any letter case. */
export const validUuid: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 6, arbitrary: uuidWith(fc.constantFrom(...'12345678'), fc.constantFrom(...'89ab')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
      ),
    },
  )
  .chain(anyCase);

/** Near-UUIDs: another version or variant, wrapped, unhyphenated, padded, cut short, or not hex. */
export const nearUuid: fc.Arbitrary<string> = fc.oneof(
  uuidWith(fc.constantFrom(...'09abcdef'), fc.constantFrom(...'89ab')),
  uuidWith(fc.constantFrom(...'12345678'), fc.constantFrom(...'01234567cdef')),
  validUuid.map((u) => `{${u}}`),
  validUuid.map((u) => `urn:uuid:${u}`),
  validUuid.map((u) => u.replaceAll('-', '')),
  validUuid.map((u) => ` ${u}`),
  validUuid.map((u) => `${u} `),
  validUuid.map((u) => u.slice(1)),
  validUuid.map((u) => `${u}0`),
  validUuid.map((u) => `g${u.slice(1)}`),
  fc.constantFrom('0', 'null', 'undefined', '00000000-0000-0000-0000-00000000000', 'x'.repeat(300)),
);

// ——— Requests ———

/** A query string from parameters, absent ones left out, in the order given. */
export function queryString(params: [string, Arg][]): string {
  const present = params.filter(([, arg]) => arg.value !== undefined);
  return present
    .map(([name, arg]) => `${encodeURIComponent(name)}=${encodeURIComponent(arg.value!)}`)
    .join('&');
}

/** Whether every parameter is valid on its own. */
export const allValid = (args: Arg[]) => args.every((arg) => arg.valid);

// ——— Synonym rules (§7.3): at most 10,000 rules of at most 10 terms; a term 1–64 characters ———

/** The contract's bounds of a synonym set, and the term length this service chose. */
export const SYNONYM_BOUNDS = { rules: 10_000, terms: 10, termCharacters: 64 } as const;

/** Letters of several scripts and widths (an emoji is no letter: a term needs one). */
const termLetter = fc.constantFrom('a', 'Z', '7', 'é', 'ß', 'ж', '中', 'ا');

/** A term of exactly `length` characters: letters, with inner single spaces. */
function termOf(length: number): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof({ weight: 5, arbitrary: termLetter }, { weight: 1, arbitrary: fc.constant(' ') }), {
      minLength: length,
      maxLength: length,
    })
    .map((chars) => {
      // No space at either end nor two together: the term is exactly as long as asked.
      const text = chars.map((c, i) =>
        c === ' ' && (i === 0 || i === length - 1 || chars[i - 1] === ' ') ? 'a' : c,
      );
      return text.join('');
    });
}

const termLength = around(1, SYNONYM_BOUNDS.termCharacters);
const validTerm = termLength.inside.chain(termOf);
const terms = (min: number, max: number) => fc.array(validTerm, { minLength: min, maxLength: max });

/** A rule the contract takes: 2–10 equivalent terms, or 1–9 terms mapped to the rest. */
const validRule: fc.Arbitrary<string> = fc.oneof(
  terms(2, SYNONYM_BOUNDS.terms).map((list) => list.join(', ')),
  fc
    .integer({ min: 1, max: SYNONYM_BOUNDS.terms - 1 })
    .chain((from) => fc.tuple(terms(from, from), terms(1, SYNONYM_BOUNDS.terms - from)))
    .map(([from, to]) => `${from.join(', ')} => ${to.join(' ,')}`),
);

/** A rule it refuses: too many terms, a term too long or empty, a side without terms, `=>` twice, one term. */
const badRuleText: fc.Arbitrary<string> = fc.oneof(
  terms(SYNONYM_BOUNDS.terms + 1, SYNONYM_BOUNDS.terms + 3).map((list) => list.join(', ')),
  fc.tuple(validTerm, termLength.outside.chain(termOf)).map(([a, long]) => `${a}, ${long}`),
  validTerm.map((a) => `${a}, , ${a}`),
  validTerm.map((a) => `${a} =>`),
  validTerm.map((a) => `=> ${a}`),
  validTerm.map((a) => `${a} => ${a} => ${a}`),
  validTerm,
  fc.constant(''),
  validTerm.map((a) => `${a}, x\u0000y`),
);

/** One rule and whether the contract takes it. */
export const synonymRule: fc.Arbitrary<Arg> = fc.oneof(
  { weight: 4, arbitrary: validRule.map(ok) },
  { weight: 1, arbitrary: badRuleText.map(bad) },
);

/** A body of `PUT /api/search/synonyms`: its JSON, and the names a refusal must give (none when valid). */
export interface SynonymBody {
  json: string;
  rules: string[];
  /** `rules[<index>]` of each bad rule, `rules` for too many, an unknown field's name. */
  refused: string[];
}

export const synonymBody: fc.Arbitrary<SynonymBody> = fc
  .oneof(
    {
      weight: 6,
      arbitrary: fc.array(synonymRule, { maxLength: 12 }).map((rules) => ({
        rules: rules.map((rule) => rule.value!),
        refused: rules.flatMap((rule, index) => (rule.valid ? [] : [`rules[${index}]`])),
      })),
    },
    // The most rules a set may hold, and one more.
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(SYNONYM_BOUNDS.rules - 1, SYNONYM_BOUNDS.rules, SYNONYM_BOUNDS.rules + 1)
        .map((count) => ({
          rules: Array.from({ length: count }, (_, i) => `t${i}, s${i} w${i % 7}`),
          refused: count > SYNONYM_BOUNDS.rules ? ['rules'] : [],
        })),
    },
  )
  .chain((body) =>
    fc.constantFrom('none', 'none', 'unknown').map((extra) => {
      const fields: Record<string, unknown> = {
        rules: body.rules,
        ...(extra === 'unknown' ? { comment: 'x' } : {}),
      };
      return {
        json: JSON.stringify(fields),
        rules: body.rules,
        refused: [...body.refused, ...(extra === 'unknown' ? ['comment'] : [])],
      };
    }),
  );

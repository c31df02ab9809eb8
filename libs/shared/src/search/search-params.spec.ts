import { boundInstant, parseDateBound } from './search-params';

describe('parseDateBound (contract §7)', () => {
  it.each([
    ['2024-05-01', 'from', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01', 'to', '2024-05-01T23:59:59.999Z'],
    ['2024-02-29', 'to', '2024-02-29T23:59:59.999Z'],
    ['2024-05-01T10:00:00', 'from', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:00Z', 'to', '2024-05-01T10:00:00.000Z'],
    // Sub-millisecond fractions round towards the inside of the range.
    ['2024-05-01T10:00:00.123456Z', 'from', '2024-05-01T10:00:00.124Z'],
    ['2024-05-01T10:00:00.123456Z', 'to', '2024-05-01T10:00:00.123Z'],
    ['2024-05-01T10:00:00.123000Z', 'from', '2024-05-01T10:00:00.123Z'],
    ['2024-05-01T10:00:00.999999999Z', 'from', '2024-05-01T10:00:01.000Z'],
    // Years 0–99 are years 0–99, not 1900–1999.
    ['0001-01-01', 'from', '0001-01-01T00:00:00.000Z'],
    ['0099-12-31', 'to', '0099-12-31T23:59:59.999Z'],
    ['0000-02-29', 'from', '0000-02-29T00:00:00.000Z'],
    ['0050-06-15T12:00:00Z', 'from', '0050-06-15T12:00:00.000Z'],
    // An offset may carry an instant past the years an index can hold; the query builder clamps it.
    ['9999-12-31T23:59:59-00:01', 'from', '+010000-01-01T00:00:59.000Z'],
    ['2024-05-01T10:00:00+02:00', 'from', '2024-05-01T08:00:00.000Z'],
    ['2024-05-01T00:30:00-01:30', 'from', '2024-05-01T02:00:00.000Z'],
  ] as const)('%s as %s → %s', (input, bound, expected) => {
    expect(parseDateBound(input, bound)?.toISOString()).toBe(expected);
  });

  it.each([
    '2023-02-29',
    '0100-02-29',
    '2024-13-01',
    '2024-05-32',
    '2024-5-1',
    '2024-05-01T24:00:00Z',
    '2024-05-01T10:00Z',
    '2024-05-01 10:00:00',
    '2024-05-01T10:00:00+0200',
    '2024-05-01T10:00:00+24:00',
    'yesterday',
    '',
  ])('refuses %p', (input) => {
    expect(parseDateBound(input, 'from')).toBeNull();
  });
});

describe('boundInstant (contract §7: both bounds inclusive)', () => {
  it('keeps what the milliseconds drop, so one instant is a valid range', () => {
    const text = '2024-05-01T10:00:00.0001Z';
    const [from, to] = [parseDateBound(text, 'from')!, parseDateBound(text, 'to')!];
    // At the index's precision the two bounds cross; exactly, they are the same instant.
    expect(from.getTime()).toBeGreaterThan(to.getTime());
    expect(from.exact).toBe(to.exact);
    expect(boundInstant('2024-05-01T10:00:00.0002Z', 'from')! > boundInstant(text, 'to')!).toBe(true);
  });

  it('reads instants before 1970 and offsets exactly', () => {
    expect(boundInstant('1969-12-31T23:59:59.9999999Z', 'from')).toBe(-100n);
    expect(parseDateBound('1969-12-31T23:59:59.9999999Z', 'to')?.toISOString()).toBe(
      '1969-12-31T23:59:59.999Z',
    );
    expect(parseDateBound('1969-12-31T23:59:59.9999999Z', 'from')?.toISOString()).toBe(
      '1970-01-01T00:00:00.000Z',
    );
    expect(boundInstant('1970-01-01T01:00:00+01:00', 'from')).toBe(0n);
    expect(boundInstant('1970-01-01', 'to')).toBe(86_400_000_000_000n - 1n);
  });
});

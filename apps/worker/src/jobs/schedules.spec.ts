import fc from 'fast-check';
import { isOverdue, keepsItsSlot } from './schedules';

describe('keepsItsSlot', () => {
  it('keeps a schedule of the same interval whose offset lies within it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 86_400_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (every, at) => {
          const offset = Math.floor(every * at);
          expect(keepsItsSlot({ every, offset }, every)).toBe(true);
          expect(keepsItsSlot({ every }, every)).toBe(true);
        },
      ),
    );
  });

  it('starts over a schedule of another interval, or one whose offset an older, longer interval left', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 86_400_000 }),
        fc.integer({ min: 1, max: 86_400_000 }),
        (every, interval) => {
          fc.pre(every !== interval);
          expect(keepsItsSlot({ every, offset: 0 }, interval)).toBe(false);
          expect(keepsItsSlot({ every: interval, offset: interval + (every % interval) }, interval)).toBe(
            false,
          );
        },
      ),
    );
    expect(keepsItsSlot({ every: 1_000, offset: 32_531 }, 1_000)).toBe(false);
    expect(keepsItsSlot({ offset: 0 }, 1_000)).toBe(false);
  });
});

describe('isOverdue', () => {
  const times = fc.integer({ min: 0, max: 4_000_000_000_000 });
  const grace = fc.integer({ min: 1_000, max: 86_400_000 });

  it('leaves a schedule whose next run is ahead, or due within the grace, alone', () => {
    fc.assert(
      fc.property(times, grace, fc.integer({ min: -86_400_000, max: 86_400_000 }), (now, graceMs, ahead) => {
        fc.pre(-ahead <= graceMs);
        expect(isOverdue({ next: now + ahead }, now, graceMs)).toBe(false);
      }),
    );
  });

  it('finds a schedule whose next run was due longer ago than the grace', () => {
    fc.assert(
      fc.property(times, grace, fc.integer({ min: 1, max: 86_400_000 }), (now, graceMs, late) => {
        expect(isOverdue({ next: now - graceMs - late }, now, graceMs)).toBe(true);
      }),
    );
  });

  it('leaves a schedule that names no next run alone (BullMQ has nothing to compare)', () => {
    expect(isOverdue({}, Date.now(), 1_000)).toBe(false);
  });
});

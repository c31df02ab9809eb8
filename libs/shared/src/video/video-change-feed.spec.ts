import fc from 'fast-check';
import { entriesOf, MAX_IDS_PER_CHANGE, type Change } from './video-change-feed';

const change: fc.Arbitrary<Change> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record({
      ids: fc.array(fc.stringMatching(/^[a-z0-9]{1,4}$/), { minLength: 1, maxLength: 60 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ reset: true as const }) },
);

describe('entriesOf: the stream entries of changes published together', () => {
  it('names every id once, in entries of at most MAX_IDS_PER_CHANGE, or is one reset if any change is', () => {
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 40 }), (changes) => {
        const entries = entriesOf(changes);
        if (changes.some((one) => 'reset' in one)) {
          expect(entries).toEqual([['reset', '1']]);
          return;
        }
        const named = entries.map(([field, ids]) => {
          expect(field).toBe('ids');
          return ids!.split(' ');
        });
        for (const ids of named) expect(ids.length).toBeLessThanOrEqual(MAX_IDS_PER_CHANGE);
        const wanted = new Set(changes.flatMap((one) => ('ids' in one ? one.ids : [])));
        expect(named.flat().sort()).toEqual([...wanted].sort());
        // No entry more than the ids need.
        expect(entries.length).toBe(Math.ceil(wanted.size / MAX_IDS_PER_CHANGE));
      }),
    );
  });
});

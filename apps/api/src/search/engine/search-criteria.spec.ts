import { SynonymTable } from '@app/shared/synonyms/synonym-table';
import { fingerprint } from '../walks/search-cursor';
import { BOUND_PARAMETERS, CURSOR_BINDING, type SearchCriteria } from './search-criteria';

/**
 * Every criterion set, each to a value and to another. Typed `Required<SearchCriteria>`: a criterion
 * added to `SearchCriteria` fails to compile here (and in `CURSOR_BINDING`) until it is given.
 */
const every: Required<SearchCriteria> = {
  q: 'pandas dataframe',
  authorId: 'a1',
  from: new Date('2020-01-01T00:00:00Z'),
  to: new Date('2021-01-01T00:00:00Z'),
  sort: 'relevance',
  corrections: { pnadas: 'pandas' },
  facets: ['year'],
  synonyms: new SynonymTable([{ kind: 'equivalent', terms: ['df', 'dataframe'] }]),
};
const other: Required<SearchCriteria> = {
  q: 'pandas series',
  authorId: 'a2',
  from: new Date('2019-01-01T00:00:00Z'),
  to: new Date('2022-01-01T00:00:00Z'),
  sort: 'newest',
  corrections: {},
  facets: ['author'],
  synonyms: SynonymTable.EMPTY,
};

describe('the criteria a cursor is bound to (CURSOR_BINDING)', () => {
  it('declares every criterion, binding or not', () => {
    expect(Object.keys(CURSOR_BINDING).sort()).toEqual(Object.keys(every).sort());
  });

  it.each(Object.keys(every) as (keyof SearchCriteria)[])(
    'a cursor of another %s is of another search exactly when the criterion binds',
    (key) => {
      const changed = { ...every, [key]: other[key] };
      const binds = 'parameter' in CURSOR_BINDING[key];
      expect(fingerprint(changed) !== fingerprint(every)).toBe(binds);
      // An absent optional criterion binds as much as a present one.
      if (binds && key !== 'q' && key !== 'sort') {
        const without: SearchCriteria = { ...every };
        delete without[key];
        expect(fingerprint(without)).not.toBe(fingerprint(every));
      }
    },
  );

  it('binds the parameters docs/contract.md §7 names, in its order', () => {
    expect(BOUND_PARAMETERS).toEqual(['q', 'authorId', 'dateFrom', 'dateTo', 'sort']);
  });

  it('fingerprints as before the binding was derived: cursors already handed out stay valid', () => {
    // The hash of the list the hand-written fingerprint built: [q trimmed, authorId, from, to, sort].
    expect(fingerprint({ q: ' pandas ', sort: 'relevance' })).toBe(
      fingerprint({ q: 'pandas', sort: 'relevance', facets: ['author'], corrections: { a: 'b' } }),
    );
    expect(fingerprint(every)).toBe('Y2jRy_-5mjB9_B1Jdsz1Yx');
  });
});

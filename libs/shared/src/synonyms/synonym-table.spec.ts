import fc from 'fast-check';
import { stemWord } from '../search/search-text';
import type { SynonymRule } from './synonym-rules';
import { SynonymTable } from './synonym-table';

const stems = (text: string) => text.split(' ').map(stemWord);
/** The terms a query of `text` also finds, as stem runs. */
const found = (table: SynonymTable, text: string) =>
  table.match(stems(text)).flatMap((match) => match.alternatives.map((term) => term.stems.join(' ')));

/** Distinct plain words, so no two terms of a generated rule share a stem by chance. */
const words = fc.uniqueArray(
  fc.constantFrom('alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'),
  {
    minLength: 2,
    maxLength: 8,
  },
);

describe('SynonymTable', () => {
  it('makes equivalent terms find each other (fast-check)', () => {
    fc.assert(
      fc.property(words, (terms) => {
        const table = new SynonymTable([{ kind: 'equivalent', terms }]);
        for (const term of terms)
          expect(found(table, term).sort()).toEqual(
            terms
              .filter((t) => t !== term)
              .map(stemWord)
              .sort(),
          );
      }),
    );
  });

  it('maps one way: the left finds the right, never the reverse (fast-check)', () => {
    fc.assert(
      fc.property(words, fc.nat(), (terms, cut) => {
        const at = 1 + (cut % (terms.length - 1));
        const rule: SynonymRule = { kind: 'explicit', from: terms.slice(0, at), to: terms.slice(at) };
        const table = new SynonymTable([rule]);
        for (const from of rule.from) expect(found(table, from).sort()).toEqual(rule.to.map(stemWord).sort());
        for (const to of rule.to) expect(found(table, to)).toEqual([]);
      }),
    );
  });

  it('compares terms as the search compares words: case, accents, inflection', () => {
    const table = new SynonymTable([{ kind: 'equivalent', terms: ['JS', 'JavaScript'] }]);
    expect(found(table, 'js')).toEqual(['javascript']);
    expect(found(table, 'javascripts')).toEqual(['js']);
  });

  it('matches terms of several words over runs of a query, the longest first, each word once', () => {
    const table = new SynonymTable([
      { kind: 'equivalent', terms: ['ml', 'machine learning'] },
      { kind: 'equivalent', terms: ['learning', 'training'] },
    ]);
    expect(table.match(stems('deep machine learning talk'))).toEqual([
      { start: 1, end: 3, alternatives: [{ words: ['ml'], stems: ['ml'] }] },
    ]);
    expect(found(table, 'ml')).toEqual(['machin learn']);
    expect(found(table, 'learning machine')).toEqual(['train']);
  });

  it('merges the rules that name a term, without repeats, and does not chain them', () => {
    const table = new SynonymTable([
      { kind: 'equivalent', terms: ['a1', 'b1'] },
      { kind: 'equivalent', terms: ['b1', 'c1'] },
      { kind: 'explicit', from: ['a1'], to: ['b1', 'a1', 'd1'] },
    ]);
    expect(found(table, 'a1')).toEqual(['b1', 'd1']);
    expect(found(table, 'b1')).toEqual(['a1', 'c1']);
    expect(found(table, 'c1')).toEqual(['b1']);
  });

  it('knows no word when empty, and names every stem of its terms', () => {
    expect(SynonymTable.EMPTY.empty).toBe(true);
    expect(SynonymTable.EMPTY.match(stems('anything at all'))).toEqual([]);
    const table = new SynonymTable([{ kind: 'explicit', from: ['k8s'], to: ['kubernetes clusters'] }]);
    expect(table.empty).toBe(false);
    expect(['k8s', 'kubernet', 'cluster'].every((stem) => table.names(stem))).toBe(true);
    expect(table.names('python')).toBe(false);
  });
});

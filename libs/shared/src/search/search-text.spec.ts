import fc from 'fast-check';
import { boundedQuery, foldedText, foldWord, MAX_QUERY_WORDS, stemmedText, stemWord } from './search-text';

const foldedWordCount = (text: string) => foldedText(text).split(' ').filter(Boolean).length;

describe('search text', () => {
  it.each([
    ['Español', 'espanol'],
    ['INTRODUCCIÓN', 'introduccion'],
    ['Straße', 'strasse'],
    ['Øresund', 'oresund'],
    ['Łódź', 'lodz'],
    ['Ærø', 'aero'],
    ['ﬁle', 'file'],
    ['Python', 'python'],
  ])('folds %p to %p', (word, folded) => {
    expect(foldWord(word)).toBe(folded);
  });

  it('cuts words as the index does, inner apostrophes kept, and folds them', () => {
    expect(foldedText('Don’t panic: Ünïcødé, día 2!')).toBe("don't panic unicode dia 2");
  });

  it('stems the forms of an English word alike, once', () => {
    expect(new Set(['deploy', 'deploying', 'deployed', 'deployment', 'deploys'].map(stemWord))).toEqual(
      new Set(['deploy']),
    );
    expect(stemmedText('Pandas DataFrames, DÉPLOYING')).toBe('panda datafram deploy');
    // Porter2 is not idempotent: a stem must never be stemmed again (the memo answers the same).
    expect(stemWord('hettinger')).toBe('hetting');
    expect(stemWord('hettinger')).toBe('hetting');
  });

  describe('the bound on what a query expands to', () => {
    it('keeps a query within the bound as it is', () => {
      const title = 'The Zen of Python: 19 aphorisms, explained one by one, with examples';
      expect(boundedQuery(title)).toBe(title);
    });

    it('cuts a character that folds into many words (U+FDFA) to the bound', () => {
      const q = '\uFDFA'.repeat(256);
      expect(foldedWordCount(q)).toBeGreaterThan(10 * MAX_QUERY_WORDS);
      const bounded = boundedQuery(q);
      expect(foldedWordCount(bounded)).toBeLessThanOrEqual(MAX_QUERY_WORDS);
      expect(foldedWordCount(bounded)).toBeGreaterThan(MAX_QUERY_WORDS - 4);
      expect(q.startsWith(bounded)).toBe(true);
    });

    it('for any text: a start of it, within the bound, and the whole text when it fits (fast-check)', () => {
      const piece = fc.constantFrom(
        'a',
        'Python ',
        ' ',
        'é',
        '\uFDFA',
        '\uFB03',
        '\u3300',
        '😀',
        '-',
        'x y ',
      );
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 256 }), (pieces) => {
          const q = pieces.join('');
          const bounded = boundedQuery(q);
          expect(q.startsWith(bounded)).toBe(true);
          expect(foldedWordCount(bounded)).toBeLessThanOrEqual(MAX_QUERY_WORDS);
          if (foldedWordCount(q) <= MAX_QUERY_WORDS) expect(bounded).toBe(q);
          // Nothing more of q would have fitted: one more character goes past the bound.
          else {
            const next = [...q].slice(0, [...bounded].length + 1).join('');
            expect(foldedWordCount(next)).toBeGreaterThan(MAX_QUERY_WORDS);
          }
        }),
      );
    });
  });
});

import { foldedText, foldWord, stemmedText, stemWord } from './search-text';

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
});

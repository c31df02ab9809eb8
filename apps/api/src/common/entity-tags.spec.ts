import { matchesStrongly, matchesWeakly, parseTagList } from './entity-tags';

describe('entity tags in conditional requests (RFC 9110)', () => {
  it('reads `*`, one tag or a list, weak or strong, and refuses anything else', () => {
    expect(parseTagList('*')).toBe('*');
    expect(parseTagList('"7-ab"')).toEqual([{ weak: false, tag: '7-ab' }]);
    expect(parseTagList(' W/"1" , "2"')).toEqual([
      { weak: true, tag: '1' },
      { weak: false, tag: '2' },
    ]);
    for (const bad of ['', '7-ab', '"unclosed', '"a" "b"', '"a",,', 'w/"a"', '"a"b'])
      expect([bad, parseTagList(bad)]).toEqual([bad, undefined]);
  });

  it('compares strongly for If-Match (a weak tag never matches) and weakly for If-None-Match', () => {
    const tags = parseTagList('W/"1", "2"')!;
    expect(matchesStrongly(tags, '1')).toBe(false);
    expect(matchesStrongly(tags, '2')).toBe(true);
    expect(matchesWeakly(tags, '1')).toBe(true);
    expect(matchesStrongly('*', 'anything')).toBe(true);
  });
});

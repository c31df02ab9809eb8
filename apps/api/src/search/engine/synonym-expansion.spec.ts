import fc from 'fast-check';
import { parseRule, type SynonymRule } from '@app/shared/synonyms/synonym-rules';
import { SynonymTable } from '@app/shared/synonyms/synonym-table';
import type { SearchCriteria } from './search-criteria';
import { buildSearchRequests, positionRequest, type Slice } from './search-query.builder';
import { buildSuggestRequest } from './suggest-query.builder';
import { MAX_SYNONYM_WORDS, synonymGroups } from './synonym-expansion';

const window: Slice = { kind: 'window', from: 0, size: 21 };
const table = (...rules: string[]) =>
  new SynonymTable(rules.map((text) => (parseRule(text) as { ok: true; rule: SynonymRule }).rule));
const requests = (q: string, synonyms?: SynonymTable) => {
  const criteria: SearchCriteria = { q, sort: 'relevance', ...(synonyms ? { synonyms } : {}) };
  return JSON.stringify({
    ...buildSearchRequests(criteria, window, 'videos'),
    position: positionRequest(criteria, { id: 'pit', keepAlive: '5m' }, 'v1'),
    suggest: buildSuggestRequest(q, 8, 'videos', synonyms),
  });
};

const queryWord = fc.constantFrom('python', 'the', 'Async', 'data', 'pandas', 'of', 'testing', 'web', 'déjà');
const otherWord = fc.constantFrom('rust', 'golang', 'kotlin', 'swift', 'haskell', 'erlang');

describe('synonyms in the search and the suggestions', () => {
  it('sends the very same requests when no rule names a word of the query (fast-check)', () => {
    const rules = fc.array(
      fc.array(otherWord, { minLength: 2, maxLength: 4 }).map((words) => words.join(', ')),
      { maxLength: 5 },
    );
    fc.assert(
      fc.property(fc.array(queryWord, { minLength: 1, maxLength: 8 }), rules, (words, set) => {
        const q = words.join(' ');
        const plain = requests(q);
        expect(requests(q, SynonymTable.EMPTY)).toBe(plain);
        expect(requests(q, table(...set))).toBe(plain);
      }),
    );
  });

  /** Every term the ranking asks some field for, as its text. */
  const asked = (q: string, synonyms: SynonymTable) =>
    [...requests(q, synonyms).matchAll(/"query":"([^"]*)"/g)].map((match) => match[1]);

  it('widens a word both ways by an equivalence, and one way by a mapping', () => {
    const set = table('js, javascript', 'k8s => kubernetes');
    expect(asked('js testing', set)).toContain('javascript');
    expect(asked('javascript testing', set)).toContain('js');
    expect(asked('k8s operators', set)).toContain('kubernet');
    expect(asked('kubernetes operators', set)).not.toContain('k8s');
  });

  it('asks for a synonym where the word is asked, as the best of the alternatives of that word', () => {
    const { rank, count } = buildSearchRequests(
      { q: 'js testing', sort: 'relevance', synonyms: table('js, javascript') },
      window,
      'videos',
    );
    const alternatives = (rank.query?.bool?.must as { dis_max: { queries: object[] } }).dis_max.queries;
    // Any word in the heading: the plain words, and the word or its synonym.
    expect(alternatives[0]).toEqual({
      bool: {
        should: [
          { match: { 'stems.heading': { query: 'test', analyzer: 'video_text_stop' } } },
          {
            dis_max: {
              queries: [
                { match: { 'stems.heading': { query: 'js', analyzer: 'video_text_stop' } } },
                {
                  match: {
                    'stems.heading': { query: 'javascript', operator: 'and', analyzer: 'video_text_stop' },
                  },
                },
              ],
            },
          },
        ],
        boost: 2.5,
      },
    });
    // Every word in the description: each plain word, and the word or its synonym.
    expect(alternatives.at(-1)).toEqual({
      bool: {
        must: [
          { match: { 'stems.description': { query: 'test', operator: 'and', zero_terms_query: 'all' } } },
          {
            dis_max: {
              queries: [
                { match: { 'stems.description': { query: 'js', operator: 'and' } } },
                { match: { 'stems.description': { query: 'javascript', operator: 'and' } } },
              ],
            },
          },
        ],
        boost: 4,
      },
    });
    // The count matches what the ranking does.
    expect(JSON.stringify(count.query)).toContain('javascript');
  });

  it('matches a synonym of several words where all its words are', () => {
    const asks = asked('ml talks', table('ml, machine learning'));
    expect(asks).toContain('machin learn');
    expect(asked('machine learning talks', table('ml, machine learning'))).toContain('ml');
  });

  it('widens a suggestion, a synonym as a phrase of the title, the last word still a prefix', () => {
    const request = buildSuggestRequest('js test', 8, 'videos', table('js, javascript'));
    expect(request.query?.bool?.must).toEqual({
      bool: {
        must: [
          { match_bool_prefix: { 'folded.title': { query: 'test', operator: 'and' } } },
          {
            dis_max: {
              queries: [
                { match: { 'folded.title': { query: 'js', operator: 'and' } } },
                { match_phrase: { 'folded.title': 'javascript' } },
              ],
            },
          },
        ],
      },
    });
    const last = buildSuggestRequest('machine ml', 8, 'videos', table('ml, machine learning'));
    expect(JSON.stringify(last.query?.bool?.must)).toContain(
      '{"dis_max":{"queries":[{"match_bool_prefix":{"folded.title":{"query":"ml","operator":"and"}}},{"match_phrase":{"folded.title":"machine learning"}}]}}',
    );
  });

  it(`widens a query by at most ${MAX_SYNONYM_WORDS} words of synonyms, however many rules name its words`, () => {
    const many = table(...Array.from({ length: 300 }, (_, i) => `js, script${i} words${i}`));
    const groups = synonymGroups(['js', 'js', 'js'], many)!;
    const words = groups.flatMap((group) => group.alternatives.flatMap((term) => term.stems));
    expect(words.length).toBeLessThanOrEqual(MAX_SYNONYM_WORDS);
    expect(words.length).toBeGreaterThan(MAX_SYNONYM_WORDS - 2);
  });
});

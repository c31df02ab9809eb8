import { bootSystem } from '../support/boot';
import { seedVideos } from '../support/seed';
import { searcher, token } from '../support/system';

const reader = token('reader');

interface Page {
  items: {
    id: string;
    title: string;
    description: string;
    highlights?: { title?: string[]; description?: string[] };
  }[];
  total: number;
  facets?: Record<string, { value: string; count: number }[]>;
  nextCursor?: string;
}

interface Problem {
  status: number;
  errors: { name: string; reason: string }[];
}

const HOSTILE_TITLE = 'Wombat <img src=x onerror=alert(1)> & "friends"';
const LONG_DESCRIPTION = [
  'An introduction that says nothing in particular about the animals of the evening.',
  'Then a long middle part about burrows, grass, nights and the ways of marsupials in general, '.repeat(4),
  'and finally the <script>wombat</script> itself, at the very end.',
].join(' ');

describe('search highlights and facets (contract §7.1)', () => {
  const seeded: { id: string; author: string; year: number }[] = [];
  const boot = bootSystem({
    seed: async (context) => {
      const [hostile] = await seedVideos(context, 1, {
        title: () => HOSTILE_TITLE,
        description: () => LONG_DESCRIPTION,
        authorId: 'hostile',
        publishedAt: () => new Date(Date.UTC(2016, 5, 1)),
      });
      seeded.push({ id: hostile!, author: 'hostile', year: 2016 });
      // 36 more matches of "numbat", over three authors and years in uneven numbers.
      for (const [author, count, year] of [
        ['ann', 20, 2019],
        ['bob', 11, 2021],
        ['cyd', 5, 2019],
      ] as const) {
        const ids = await seedVideos(context, count, {
          title: (i) => `Numbat sighting ${author} ${i}`,
          authorId: author,
          publishedAt: (i) => new Date(Date.UTC(year, 0, 1 + i)),
        });
        seeded.push(...ids.map((id) => ({ id, author, year })));
      }
    },
    system: { worker: false },
  });

  const search = <T = Page>(query: string) => searcher(() => boot.system, reader)<T>(query);

  it('marks the matched words in HTML-escaped fragments, leaving the item itself as stored', async () => {
    const { status, body } = await search('q=wombat&highlight=true');
    expect(status).toBe(200);
    const [item] = body.items;
    expect(item!.title).toBe(HOSTILE_TITLE);
    expect(item!.highlights!.title).toEqual([
      '<mark>Wombat</mark> &lt;img src=x onerror=alert(1)&gt; &amp; &quot;friends&quot;',
    ]);
    const fragments = item!.highlights!.description!;
    expect(fragments.length).toBeGreaterThanOrEqual(1);
    expect(fragments.join(' ')).toContain('&lt;script&gt;<mark>wombat</mark>&lt;/script&gt;');
    for (const fragment of fragments) {
      expect(fragment.replace(/<\/?mark>/g, '')).not.toMatch(/[<>"]/);
      expect(fragment.replace(/<\/?mark>/g, '').length).toBeLessThanOrEqual(200);
    }
    expect(body.items.every((each) => each.highlights !== undefined)).toBe(true);
    const plain = await search('q=wombat');
    expect(plain.body.items.every((each) => each.highlights === undefined)).toBe(true);
  });

  it('counts years and authors over every match, not only the page, and within the filters', async () => {
    const matches = seeded.filter((video) => video.author !== 'hostile');
    const expected = (key: 'author' | 'year') => {
      const counts = new Map<string, number>();
      for (const video of matches) counts.set(String(video[key]), (counts.get(String(video[key])) ?? 0) + 1);
      return [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count);
    };
    const { status, body } = await search('q=numbat&limit=5&facets=year,author');
    expect(status).toBe(200);
    expect(body.items).toHaveLength(5);
    expect(body.total).toBe(matches.length);
    expect(body.facets).toEqual({ year: expected('year'), author: expected('author') });

    const filtered = await search('q=numbat&authorId=bob&facets=author');
    expect(filtered.body.facets).toEqual({ author: [{ value: 'bob', count: 11 }] });
    expect((await search('q=numbat')).body.facets).toBeUndefined();
  });

  it('keeps its facets and highlights on a cursor page', async () => {
    const first = await search('q=numbat&limit=30&facets=author&highlight=true');
    const second = await search(
      `q=numbat&limit=30&facets=author&highlight=true&cursor=${encodeURIComponent(first.body.nextCursor!)}`,
    );
    expect(second.status).toBe(200);
    expect(second.body.items).toHaveLength(6);
    expect(second.body.facets).toEqual(first.body.facets);
    expect(
      second.body.items.every((item) => item.highlights?.title?.[0]?.startsWith('<mark>Numbat</mark>')),
    ).toBe(true);
  });

  it('refuses an unknown facet or a highlight that is not true or false, naming each', async () => {
    const { status, headers, body } = await search<Problem>('q=numbat&facets=year,colour&highlight=yes');
    expect(status).toBe(400);
    expect(headers.get('content-type')).toContain('application/problem+json');
    expect(body.errors.map((error) => error.name).sort()).toEqual(['facets', 'highlight']);
  });
});

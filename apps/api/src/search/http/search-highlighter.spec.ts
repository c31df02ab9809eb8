import { FRAGMENT_LENGTH, Highlighter, MAX_FRAGMENTS } from './search-highlighter';

const strip = (html: string) => html.replace(/<\/?mark>/g, '');
const marked = (html: string) => [...html.matchAll(/<mark>(.*?)<\/mark>/g)].map((match) => match[1]);

describe('Highlighter', () => {
  it('marks every matched word of the title, in any letter case or accents', () => {
    const highlights = new Highlighter('espanol python').highlight({
      title: 'Python en Español: PYTHON avanzado',
      description: 'nothing here',
    });
    expect(highlights).toEqual({
      title: ['<mark>Python</mark> en <mark>Español</mark>: <mark>PYTHON</mark> avanzado'],
    });
  });

  it('escapes hostile text so that only its own marks are markup', () => {
    const title = '<script>alert("x")</script> & <img src=x onerror=alert(1)>';
    const { title: [fragment] = [] } = new Highlighter('script alert').highlight({ title, description: '' });
    expect(fragment).toBe(
      '&lt;<mark>script</mark>&gt;<mark>alert</mark>(&quot;x&quot;)&lt;/<mark>script</mark>&gt; &amp; &lt;img src=x onerror=<mark>alert</mark>(1)&gt;',
    );
    // Nothing but <mark> survives as a tag.
    expect(fragment!.replace(/<\/?mark>/g, '')).not.toMatch(/[<>"]/);
  });

  it('marks other inflections of a word, as the search matches them', () => {
    expect(
      new Highlighter('deploy dataframe').highlight({ title: 'Deploying DataFrames', description: '' }),
    ).toEqual({
      title: ['<mark>Deploying</mark> <mark>DataFrames</mark>'],
    });
  });

  it('treats the last word as the start of a word, as the search does (as-you-type)', () => {
    expect(
      new Highlighter('pandas datafr').highlight({ title: 'pandas DataFrames', description: '' }),
    ).toEqual({
      title: ['<mark>pandas</mark> <mark>DataFrames</mark>'],
    });
    // One letter is too little to be worth marking as a start.
    expect(new Highlighter('pandas d').highlight({ title: 'data', description: '' })).toEqual({});
  });

  it('cuts a long description into at most three fragments around the matches, words whole', () => {
    let counter = 0;
    // Every filler word is different, so a fragment is found in one place only.
    const filler = (n: number) => Array.from({ length: n }, () => `word${counter++}`).join(' ');
    const description = [
      filler(60),
      'okapi',
      filler(60),
      'zebra okapi',
      filler(60),
      'okapi',
      filler(60),
      'okapi',
      filler(10),
    ].join(' ');
    const fragments = new Highlighter('okapi zebra').highlight({ title: 'none', description }).description!;
    expect(fragments.length).toBe(MAX_FRAGMENTS);
    for (const fragment of fragments) {
      expect(strip(fragment).length).toBeLessThanOrEqual(FRAGMENT_LENGTH);
      expect(description).toContain(strip(fragment));
      // Cut at spaces: every word of a fragment is a whole word of the description.
      for (const word of strip(fragment).split(' ')) expect(description.split(' ')).toContain(word);
    }
    // The fragment with both words is chosen, and the fragments keep the text's order.
    expect(fragments.some((fragment) => marked(fragment).includes('zebra'))).toBe(true);
    const starts = fragments.map((fragment) => description.indexOf(strip(fragment)));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('keeps a short description whole and leaves out fields with no match', () => {
    expect(
      new Highlighter('okapi').highlight({ title: 'Zebras', description: 'An okapi, briefly.' }),
    ).toEqual({
      description: ['An <mark>okapi</mark>, briefly.'],
    });
    expect(new Highlighter('okapi').highlight({ title: 'Zebras', description: 'Stripes' })).toEqual({});
  });
});

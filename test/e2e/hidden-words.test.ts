import type { estypes } from '@elastic/elasticsearch';
import fc from 'fast-check';
import { typoSuggestions } from '@app/api/search/engine/suggest-query.builder';
import { VideoState } from '@app/shared/video/video-state';
import { bootSystem } from '../support/boot';
import { followErasure } from '../support/erasures';
import { waitFor } from '../support/processes';
import { seedVideos, waitUntilGone } from '../support/seed';
import { call, token, type ApiResponse } from '../support/system';

/** Whoever searches: none of the hidden videos is theirs. */
const stranger = token('hidden-words-stranger');

/** The word every video holds: a search for it beside a hidden word has pages, cursors and facets. */
const COMMON = 'gardening';

interface Hidden {
  how: 'soft-deleted' | 'purged' | 'erased';
  authorId: string;
  year: number;
  words: { title: string; description: string; tag: string; speaker: string; event: string };
  id?: string;
}

const HIDDEN: Hidden[] = [
  {
    how: 'soft-deleted',
    authorId: 'hidden-soft-author',
    year: 1987,
    words: {
      title: 'zorblaxine',
      description: 'quimbletorph',
      tag: 'frondivexa',
      speaker: 'marguvelo',
      event: 'plonkaretta',
    },
  },
  {
    how: 'purged',
    authorId: 'hidden-purged-author',
    year: 1988,
    words: {
      title: 'wombatrixel',
      description: 'snorpentilax',
      tag: 'glimmerduvo',
      speaker: 'trevanquist',
      event: 'bolvarinthe',
    },
  },
  {
    how: 'erased',
    authorId: 'hidden-erased-author',
    year: 1989,
    words: {
      title: 'kestramovin',
      description: 'drubbelquanz',
      tag: 'yarnopelix',
      speaker: 'hulverstane',
      event: 'jombrequist',
    },
  },
];

/** An active video whose word a typo still finds: corrections are not simply switched off. */
const ACTIVE_WORD = 'quokkamondel';

const hiddenWords = HIDDEN.flatMap((video) => Object.values(video.words));
const capitalised = (word: string) => `${word[0]!.toUpperCase()}${word.slice(1)}`;

type Edit = { kind: 'substitute' | 'delete' | 'insert' | 'transpose'; at: number; letter: string };

/** One edit inside the word, its first letter kept (the engine's suggester keeps it too). */
function edited(word: string, { kind, at, letter }: Edit): string {
  const i = 1 + (at % (word.length - 2));
  switch (kind) {
    case 'substitute':
      return `${word.slice(0, i)}${letter}${word.slice(i + 1)}`;
    case 'delete':
      return `${word.slice(0, i)}${word.slice(i + 1)}`;
    case 'insert':
      return `${word.slice(0, i)}${letter}${word.slice(i)}`;
    case 'transpose':
      return `${word.slice(0, i)}${word[i + 1]}${word[i]}${word.slice(i + 2)}`;
  }
}

const anEdit: fc.Arbitrary<Edit> = fc.record({
  kind: fc.constantFrom('substitute', 'delete', 'insert', 'transpose'),
  at: fc.nat(),
  letter: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
});

/** A typo of `word`: one or two edits, never the word itself. */
const typoOf = (word: string, maxEdits = 2) =>
  fc
    .array(anEdit, { minLength: 1, maxLength: maxEdits })
    .map((edits) => edits.reduce(edited, word))
    .filter((typo) => typo !== word);

interface Page {
  items: { id: string; authorId: string }[];
  total: number;
  facets?: Record<'author' | 'year', { value: string; count: number }[]>;
  nextCursor?: string;
}

/**
 * Every text of an answer a caller can read: its headers, its body, and its cursor decoded as
 * base64url (each `.`-separated part, as a signed cursor would be read), lower case.
 */
function readable(answer: ApiResponse<unknown>): string {
  const headers = [...answer.headers].map(([name, value]) => `${name}: ${value}`);
  const cursor = (answer.body as { nextCursor?: unknown }).nextCursor;
  const decoded =
    typeof cursor === 'string'
      ? cursor.split('.').flatMap((part) => {
          const bytes = Buffer.from(part, 'base64url');
          return [bytes.toString('utf8'), bytes.toString('latin1')];
        })
      : [];
  return [...headers, JSON.stringify(answer.body), ...decoded].join('\n').toLowerCase();
}

describe('nothing reveals a hidden video (contract §7)', () => {
  let activeId: string;
  /** What no answer to the stranger may contain: every hidden word, video id and author id. */
  let secrets: string[];
  const boot = bootSystem({
    seed: async (context) => {
      for (const video of HIDDEN) {
        const { title, description, tag, speaker, event } = video.words;
        [video.id] = await seedVideos(context, 1, {
          authorId: video.authorId,
          title: () => capitalised(title),
          description: () => `Notes on ${description} and ${COMMON}.`,
          tags: () => [tag, COMMON],
          speakers: () => [capitalised(speaker)],
          event: () => capitalised(event),
          publishedAt: () => new Date(Date.UTC(video.year, 4, 1)),
        });
      }
      const [active] = await seedVideos(context, 1, {
        authorId: 'active-author',
        title: () => `${capitalised(ACTIVE_WORD)} ${COMMON}`,
        publishedAt: () => new Date(Date.UTC(2021, 0, 1)),
      });
      activeId = active!;
      await seedVideos(context, 4, {
        authorId: 'active-author',
        title: (i) => `${capitalised(COMMON)} basics ${i}`,
        description: () => `Notes on soil and ${COMMON}.`,
        publishedAt: (i) => new Date(Date.UTC(2020, 0, 1 + i)),
      });
    },
    // The erasure below completes once its purges are done, which the purge sweep notices.
    system: { env: { PURGE_SWEEP_INTERVAL_MS: '1000' } },
  });

  beforeAll(async () => {
    const [soft, purged, erased] = HIDDEN.map((video) => ({ id: video.id!, owner: token(video.authorId) }));
    const api = boot.system.api;
    expect((await call('DELETE', `${api}/api/videos/${soft!.id}`, soft!.owner)).status).toBe(200);
    expect(
      (await call('DELETE', `${api}/api/videos/${purged!.id}?permanent=true`, purged!.owner)).status,
    ).toBe(200);
    const erasure = await call<{ erasureId: string }>(
      'DELETE',
      `${api}/api/authors/hidden-erased-author/videos?permanent=true`,
      erased!.owner,
    );
    expect(erasure.status).toBe(202);
    const { final } = await followErasure(api, erasure.body.erasureId, erased!.owner, { timeoutMs: 60_000 });
    expect(final).toMatchObject({ state: 'completed', done: 1 });
    await waitUntilGone(boot.context, [purged!.id, erased!.id]);
    // The index as the deletions left it: the soft-deleted video's document held as not active, the
    // others' removed (their terms stay in the engine's files until its segments merge).
    await waitFor(
      'the index to hold the deletions',
      async () => {
        const documents = await Promise.all(
          HIDDEN.map((video) => boot.context.indexInventory.document(video.id!)),
        );
        const [softDocument, ...gone] = documents;
        return softDocument?.state === VideoState.SoftDeleted && gone.every((document) => document === null)
          ? true
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    await boot.context.indexAdmin.refresh();
    secrets = [...hiddenWords, ...HIDDEN.flatMap((video) => [video.id!, video.authorId])];
  }, 180_000);

  const search = (query: string) =>
    call<Page>('GET', `${boot.system.api}/api/videos/search?${query}`, stranger);
  const suggest = (q: string) =>
    call<{ items: { id: string; title: string }[] }>(
      'GET',
      `${boot.system.api}/api/videos/suggest?q=${encodeURIComponent(q)}`,
      stranger,
    );

  /** What `answer` shows of the hidden videos: secrets found, and hidden years among its facets. */
  const shown = (answer: ApiResponse<unknown>) => {
    expect(answer.status).toBe(200);
    const text = readable(answer);
    const years = ((answer.body as Page).facets?.year ?? []).map((facet) => facet.value);
    return [
      ...secrets.filter((secret) => text.includes(secret.toLowerCase())),
      ...HIDDEN.map((video) => String(video.year)).filter((year) => years.includes(year)),
    ];
  };

  /**
   * A search as the stranger, with facets and highlights, a page of one so a cursor follows; and
   * the cursor followed to the end (which closes its walk). Every answer's leaks.
   */
  const searchedLeaks = async (q: string): Promise<string[]> => {
    const query = `q=${encodeURIComponent(q)}&limit=1&facets=author,year&highlight=true`;
    const first = await search(query);
    const leaks = shown(first);
    if (first.body.nextCursor) {
      const rest = await search(`${query.replace('limit=1', 'limit=100')}&cursor=${first.body.nextCursor}`);
      leaks.push(...shown(rest));
      expect(rest.body.nextCursor).toBeUndefined();
    }
    return leaks;
  };

  it('is a real hazard: the engine itself still offers a soft-deleted video’s words as corrections', async () => {
    // Without this, the searches below could pass because the engine had forgotten the words.
    for (const word of Object.values(HIDDEN[0]!.words)) {
      const typo = edited(word, { kind: 'substitute', at: 3, letter: 'q' });
      const answer = await boot.context.indexReads.search({
        index: boot.context.indexReads.alias,
        size: 0,
        suggest: typoSuggestions(typo),
      });
      const entries = (answer.suggest?.spelling ?? []) as estypes.SearchTermSuggest[];
      const options = entries.flatMap((entry) =>
        Array.isArray(entry.options) ? entry.options : [entry.options],
      );
      expect(options.map((option) => option.text)).toContain(word);
    }
  }, 30_000);

  it('shows nothing of them to a search by any of their exact words, alone or beside a common one', async () => {
    for (const word of hiddenWords) {
      expect([word, await searchedLeaks(word)]).toEqual([word, []]);
      expect([word, await searchedLeaks(`${word} ${COMMON}`)]).toEqual([word, []]);
    }
  }, 120_000);

  it('shows nothing of them to a search by the start of any of their words, as typed', async () => {
    for (const word of hiddenWords) {
      const prefix = word.slice(0, 6);
      expect([prefix, await searchedLeaks(prefix)]).toEqual([prefix, []]);
      expect([prefix, await searchedLeaks(`${COMMON} ${prefix}`)]).toEqual([prefix, []]);
    }
  }, 120_000);

  it('never corrects a typo to any of their words, nor shows it in a cursor (generated typos)', async () => {
    const cases = fc
      .constantFrom(...hiddenWords)
      .chain((word) => fc.record({ word: fc.constant(word), typo: typoOf(word), beside: fc.boolean() }));
    await fc.assert(
      fc.asyncProperty(cases, async ({ typo, beside }) => {
        const q = beside ? `${typo} ${COMMON}` : typo;
        expect([q, await searchedLeaks(q)]).toEqual([q, []]);
      }),
      { numRuns: 60 },
    );
  }, 180_000);

  it('suggests none of their titles, whatever start of a word is typed', async () => {
    for (const word of hiddenWords) {
      for (const typed of [word.slice(0, 3), word.slice(0, 6), word]) {
        const answer = await suggest(typed);
        expect([typed, shown(answer)]).toEqual([typed, []]);
      }
    }
  }, 60_000);

  it('counts none of them in the facets of a search every video matches', async () => {
    const answer = await search(`q=${COMMON}&facets=author,year&limit=100`);
    expect(shown(answer)).toEqual([]);
    expect(answer.body.facets).toEqual({
      author: [{ value: 'active-author', count: 5 }],
      year: [
        { value: '2020', count: 4 },
        { value: '2021', count: 1 },
      ],
    });
  }, 30_000);

  it("still corrects a typo of an active video's word, and its cursor shows neither word", async () => {
    await fc.assert(
      fc.asyncProperty(typoOf(ACTIVE_WORD, 1), async (typo) => {
        const alone = await search(`q=${typo}`);
        expect([typo, alone.body.items.map((item) => item.id)]).toEqual([typo, [activeId]]);
        const beside = await search(`q=${encodeURIComponent(`${typo} ${COMMON}`)}&limit=1`);
        expect(beside.body.items.map((item) => item.id)).toEqual([activeId]);
        // The answer holds the video itself; its cursor holds neither the typo nor its correction.
        const cursor = readable({
          ...beside,
          headers: new Headers(),
          body: { nextCursor: beside.body.nextCursor },
        });
        expect(beside.body.nextCursor).toBeDefined();
        expect([cursor.includes(ACTIVE_WORD), cursor.includes(typo)]).toEqual([false, false]);
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});

import type { VideoSummary } from '@app/shared/video/video.repository';
import { renderItemHead } from '../active/item-heads';
import { renderSearchPage } from './search-page.renderer';

const video = (overrides: Partial<VideoSummary> = {}): VideoSummary => ({
  id: '0b8e4b5e-3d9c-4c1e-9a44-8f2c1d0e7a61',
  title: 'A "quoted" title with \\ and \n and </script>',
  description: 'Ünïcødé, emoji 🎥, a tab\tand a control \u0001 character',
  authorId: 'author-1',
  publishedAt: new Date('2024-05-01T10:11:12.345Z'),
  tags: ['python', 'web "dev"'],
  speakers: ['Zoë "Z" Ødegård', 'Li Wei'],
  event: null,
  language: 'eng',
  version: 3,
  ...overrides,
});

const item = (v: VideoSummary, score: number) => ({
  id: v.id,
  title: v.title,
  description: v.description,
  authorId: v.authorId,
  speakers: v.speakers,
  event: v.event,
  publishedAt: v.publishedAt ? v.publishedAt.toISOString() : null,
  tags: v.tags,
  language: v.language,
  score,
});

describe('renderSearchPage', () => {
  it('writes the same JSON, key for key, as serialising the page object', () => {
    const first = video();
    const second = video({
      id: 'ffffffff-ffff-ffff-ffff-ffffffffffff',
      publishedAt: null,
      tags: [],
      speakers: [],
      event: 'PyCon "Ünïcødé" 2024',
      language: 'und',
    });
    const meta = { page: 2, limit: 2, total: 10_000, totalRelation: 'gte' as const };
    const nextCursor = 'eyJ2IjoxfQ."quoted"';
    const body = renderSearchPage(
      [
        { head: renderItemHead(first), score: 12.5 },
        { head: renderItemHead(second), score: 0.000123 },
      ],
      { ...meta, nextCursor },
    );
    expect(body.toString('utf8')).toBe(
      JSON.stringify({
        items: [item(first, 12.5), item(second, 0.000123)],
        ...meta,
        totalPages: 5_000,
        nextCursor,
      }),
    );
  });

  it('answers a page without items', () => {
    const body = renderSearchPage([], { page: 9, limit: 20, total: 3, totalRelation: 'eq' });
    expect(JSON.parse(body.toString('utf8'))).toEqual({
      items: [],
      page: 9,
      limit: 20,
      total: 3,
      totalRelation: 'eq',
      totalPages: 1,
    });
    expect(body.toString('utf8')).not.toContain('nextCursor');
  });

  it('writes a score JSON cannot spell as 0', () => {
    const body = renderSearchPage([{ head: renderItemHead(video()), score: NaN }], {
      page: 1,
      limit: 20,
      total: 1,
      totalRelation: 'eq',
    });
    expect((JSON.parse(body.toString('utf8')) as { items: { score: number }[] }).items[0]!.score).toBe(0);
  });
});

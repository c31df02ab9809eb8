import type { ItemHead } from '../active/item-heads';
import type { FacetCount } from '../engine/search-answers';
import type { Highlights } from './search-highlighter';

const OPEN = Buffer.from('{"items":[');
const COMMA = Buffer.from(',');

export interface PageMeta {
  page: number;
  limit: number;
  total: number;
  totalRelation: 'eq' | 'gte';
  facets?: Record<string, FacetCount[]>;
  nextCursor?: string;
}

export interface RenderedItem {
  head: ItemHead;
  score: number;
  highlights?: Highlights;
}

/** The search answer (docs/contract.md §7) as JSON bytes, put together from rendered heads and their scores. */
export function renderSearchPage(items: RenderedItem[], meta: PageMeta): Buffer {
  const totalPages = Math.ceil(meta.total / meta.limit);
  const parts: Buffer[] = [OPEN];
  items.forEach(({ head, score, highlights }, index) => {
    if (index > 0) parts.push(COMMA);
    // Relevance scores are finite; JSON has no spelling for anything else.
    const tail = highlights ? `,"highlights":${JSON.stringify(highlights)}` : '';
    parts.push(head, Buffer.from(`${Number.isFinite(score) ? score : 0}${tail}}`));
  });
  const facets = meta.facets ? `,"facets":${JSON.stringify(meta.facets)}` : '';
  const next = meta.nextCursor ? `,"nextCursor":${JSON.stringify(meta.nextCursor)}` : '';
  parts.push(
    Buffer.from(
      `],"page":${meta.page},"limit":${meta.limit},"total":${meta.total},"totalRelation":"${meta.totalRelation}",` +
        `"totalPages":${totalPages}${facets}${next}}`,
    ),
  );
  return Buffer.concat(parts);
}

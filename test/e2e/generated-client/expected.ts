/**
 * The API as the e2e test expects it, written by hand. `calls.ts` must turn the types generated
 * from `/docs-json` into these, so a document that drifts from them fails to compile.
 */

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: { name: string; reason: string }[];
}

export interface SearchPage {
  items: {
    id: string;
    title: string;
    description: string;
    authorId: string;
    publishedAt: string | null;
    tags: string[];
    /** ISO 639-3, `und` when undetermined. */
    language: string;
    score: number;
    highlights?: { title?: string[]; description?: string[] };
  }[];
  page: number;
  limit: number;
  total: number;
  totalRelation: 'eq' | 'gte';
  totalPages: number;
  facets?: { year?: FacetCount[]; author?: FacetCount[] };
  nextCursor?: string;
}

export interface FacetCount {
  value: string;
  count: number;
}

export interface Suggestions {
  items: { id: string; title: string }[];
}

export type Deletion =
  | { id: string; state: 'soft_deleted'; deletedAt: string; purgeAt: string }
  | { id: string; state: 'deleted' };

export interface Restoration {
  id: string;
  state: 'active';
}

export interface TrashPage {
  items: { id: string; title: string; deletedAt: string; purgeAt: string }[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export interface DeletionReceipt {
  id: string;
  state: 'soft_deleted' | 'deleting' | 'deleted';
  deletedAt: string | null;
  purgeAt: string | null;
  requestedBy: string | null;
  reason: 'retention' | 'permanent';
  completedAt: string | null;
  objectsRemoved: number | null;
}

/** `eraseAuthorVideos`: a dry run's count or nothing to erase (200), or the erasure under way (202). */
export type ErasureAnswer =
  | { videos: number; dryRun: true }
  | { videos: 0 }
  | { erasureId: string; videos: number; state: 'running' | 'purging' | 'completed' };

/** `restoreTrash`, `emptyTrash`: the trash operation, new or already running (202). */
export interface TrashOperationAccepted {
  operationId: string;
  videos: number;
  state: 'running' | 'completed';
}

export interface TrashOperation {
  operationId: string;
  authorId: string;
  kind: 'restore' | 'empty';
  total: number;
  done: number;
  state: 'running' | 'completed';
  startedAt: string;
  completedAt: string | null;
}

export interface Readiness {
  status: 'ok' | 'degraded' | 'unavailable';
  details: Record<string, { status: 'up' | 'down'; reason?: string }>;
}

export interface SynonymSet {
  rules: string[];
}

/** An answer: its body as `data` on success or as `problem` on an error, never both. */
export interface Answer<T> {
  status: number;
  contentType: string | null;
  data?: T;
  problem?: Problem;
}

export interface VideoApiCalls {
  search(
    query: {
      q: string;
      limit?: number;
      sort?: 'relevance' | 'newest' | 'oldest';
      cursor?: string;
      highlight?: boolean;
      facets?: string;
    },
    token?: string,
  ): Promise<Answer<SearchPage>>;
  suggest(query: { q: string; limit?: number }, token?: string): Promise<Answer<Suggestions>>;
  deleteVideo(
    id: string,
    query: { permanent?: boolean; retentionDays?: number },
    token?: string,
  ): Promise<Answer<Deletion>>;
  restoreVideo(id: string, token?: string): Promise<Answer<Restoration>>;
  listTrash(
    query: { page?: number; limit?: number; authorId?: string },
    token?: string,
  ): Promise<Answer<TrashPage>>;
  restoreTrash(query: { authorId?: string }, token?: string): Promise<Answer<TrashOperationAccepted>>;
  emptyTrash(query: { authorId?: string }, token?: string): Promise<Answer<TrashOperationAccepted>>;
  getTrashOperation(operationId: string, token?: string): Promise<Answer<TrashOperation>>;
  getVideoDeletion(id: string, token?: string): Promise<Answer<DeletionReceipt>>;
  eraseAuthorVideos(
    authorId: string,
    query: { dryRun?: boolean; permanent?: boolean; retentionDays?: number },
    token?: string,
  ): Promise<Answer<ErasureAnswer>>;
  getSynonyms(token?: string): Promise<Answer<SynonymSet>>;
  putSynonyms(body: SynonymSet, ifMatch?: string, token?: string): Promise<Answer<SynonymSet>>;
  liveness(): Promise<Answer<{ status: 'ok' }>>;
  readiness(): Promise<Answer<Readiness>>;
}

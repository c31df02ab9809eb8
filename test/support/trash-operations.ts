import { followProgress } from './erasures';
import { call, type ApiResponse } from './system';

/** A trash operation as `GET /api/trash-operations/{operationId}` answers it. */
export interface TrashOperationBody {
  operationId: string;
  authorId: string;
  kind: 'restore' | 'empty';
  total: number;
  done: number;
  state: 'running' | 'completed';
  startedAt: string;
  completedAt: string | null;
}

/** The 202 answer of `POST /api/videos/trash/restore` and `DELETE /api/videos/trash`. */
export interface TrashOperationAccepted {
  operationId: string;
  videos: number;
  state: 'running' | 'completed';
}

/** Asks for a trash operation (`restore` or `empty`) of the caller's trash, or of `authorId`'s. */
export function askTrashOperation(
  api: string,
  kind: 'restore' | 'empty',
  bearer: string,
  query = '',
): Promise<ApiResponse<TrashOperationAccepted>> {
  return kind === 'restore'
    ? call<TrashOperationAccepted>('POST', `${api}/api/videos/trash/restore${query}`, bearer)
    : call<TrashOperationAccepted>('DELETE', `${api}/api/videos/trash${query}`, bearer);
}

/** Follows a trash operation until it completes (see followProgress). */
export function followTrashOperation(
  api: string,
  operationId: string,
  bearer: string,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<{ final: TrashOperationBody; seen: TrashOperationBody[] }> {
  return followProgress<TrashOperationBody>(`${api}/api/trash-operations/${operationId}`, bearer, options);
}

/** Asks for a trash operation and waits for its completion: what the request did before issue 29. */
export async function completeTrashOperation(
  api: string,
  kind: 'restore' | 'empty',
  bearer: string,
  { query = '', timeoutMs }: { query?: string; timeoutMs: number },
): Promise<TrashOperationBody> {
  const asked = await askTrashOperation(api, kind, bearer, query);
  if (asked.status !== 202) throw new Error(`trash ${kind}: ${asked.status} ${JSON.stringify(asked.body)}`);
  return (await followTrashOperation(api, asked.body.operationId, bearer, { timeoutMs, intervalMs: 100 }))
    .final;
}

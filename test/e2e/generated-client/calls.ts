import createClient from 'openapi-fetch';
// Generated from the running API's /docs-json by generated-client.test.ts (git-ignored).
import type { paths } from './video-api';
import type { Answer, Problem, VideoApiCalls } from './expected';

/**
 * The e2e test's calls, through openapi-fetch typed by the generated `paths`. The test compiles
 * this file against freshly generated types before it runs it, so every path, parameter and body
 * here is checked against the served document.
 */
export function videoApiCalls(baseUrl: string): VideoApiCalls {
  const client = createClient<paths>({ baseUrl });
  const auth = (token?: string) => (token ? { authorization: `Bearer ${token}` } : {});
  const answer = <T>({
    data,
    error,
    response,
  }: {
    data?: T;
    error?: Problem;
    response: Response;
  }): Answer<T> => ({
    status: response.status,
    contentType: response.headers.get('content-type'),
    ...(data === undefined ? {} : { data }),
    ...(error === undefined ? {} : { problem: error }),
  });

  return {
    search: async (query, token) =>
      answer(await client.GET('/api/videos/search', { params: { query }, headers: auth(token) })),
    suggest: async (query, token) =>
      answer(await client.GET('/api/videos/suggest', { params: { query }, headers: auth(token) })),
    deleteVideo: async (id, query, token) =>
      answer(
        await client.DELETE('/api/videos/{id}', { params: { path: { id }, query }, headers: auth(token) }),
      ),
    restoreVideo: async (id, token) =>
      answer(
        await client.POST('/api/videos/{id}/restore', { params: { path: { id } }, headers: auth(token) }),
      ),
    listTrash: async (query, token) =>
      answer(await client.GET('/api/videos/trash', { params: { query }, headers: auth(token) })),
    restoreTrash: async (query, token) =>
      answer(await client.POST('/api/videos/trash/restore', { params: { query }, headers: auth(token) })),
    emptyTrash: async (query, token) =>
      answer(await client.DELETE('/api/videos/trash', { params: { query }, headers: auth(token) })),
    getTrashOperation: async (operationId, token) =>
      answer(
        await client.GET('/api/trash-operations/{operationId}', {
          params: { path: { operationId } },
          headers: auth(token),
        }),
      ),
    getVideoDeletion: async (id, token) =>
      answer(
        await client.GET('/api/videos/{id}/deletion', { params: { path: { id } }, headers: auth(token) }),
      ),
    eraseAuthorVideos: async (authorId, query, token) =>
      answer(
        await client.DELETE('/api/authors/{authorId}/videos', {
          params: { path: { authorId }, query },
          headers: auth(token),
        }),
      ),
    getSynonyms: async (token) => answer(await client.GET('/api/search/synonyms', { headers: auth(token) })),
    putSynonyms: async (body, ifMatch, token) =>
      answer(
        await client.PUT('/api/search/synonyms', {
          body,
          headers: { ...auth(token), ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
        }),
      ),
    liveness: async () => answer(await client.GET('/health/live')),
    readiness: async () => {
      const { data, error, response } = await client.GET('/health/ready');
      // Not ready is a readiness body, not a problem, unless the instance is shutting down.
      return error && 'details' in error
        ? answer({ data: error, response })
        : answer({ data, error, response });
    },
  };
}

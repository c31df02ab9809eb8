import { errors, type Client, type estypes } from '@elastic/elasticsearch';
import type { AppConfig } from '@app/shared/config/config.schema';
import { isLostPointInTime, isUnavailable } from './search-errors';
import { IndexReads } from './index-reads';

/** A client whose `_msearch` answers from a script, one answer list per call. */
function scripted(answers: object[][]) {
  const calls: estypes.MsearchRequest[] = [];
  const client = {
    msearch: (request: estypes.MsearchRequest) => {
      calls.push(request);
      return Promise.resolve({ responses: answers[calls.length - 1] });
    },
  };
  const config = { ELASTICSEARCH_INDEX: 'videos' } as AppConfig;
  return { calls, service: new IndexReads(client as unknown as Client, config) };
}

const ok = (total: number) => ({ status: 200, hits: { total: { value: total, relation: 'eq' } } });
const failed = (status: number, type: string) => ({ status, error: { type, reason: type } });

describe('IndexReads.searchTogether', () => {
  const searches: estypes.SearchRequest[] = [
    { index: 'videos', request_cache: false, query: { match_all: {} }, size: 0 },
    { pit: { id: 'p', keep_alive: '1m' }, query: { match_all: {} } },
  ];

  it('sends one _msearch: each search a header and a body, the filter path under `responses`', async () => {
    const { calls, service } = scripted([[ok(3), ok(4)]]);
    const answers = await service.searchTogether(searches, ['hits.total']);
    // Each answer as a single search's, without the status `_msearch` adds.
    expect(answers).toEqual([
      { hits: { total: { value: 3, relation: 'eq' } } },
      { hits: { total: { value: 4, relation: 'eq' } } },
    ]);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(JSON.stringify(calls[0]!.searches))).toEqual([
      { index: 'videos', request_cache: false },
      { query: { match_all: {} }, size: 0 },
      {},
      { pit: { id: 'p', keep_alive: '1m' }, query: { match_all: {} } },
    ]);
    expect(calls[0]!.filter_path).toEqual(['responses.hits.total', 'responses.status', 'responses.error']);
  });

  it('sends them again after a 502–504, up to the client retries, then throws that search’s failure', async () => {
    const unavailable = failed(503, 'no_shard_available_action_exception');
    const recovered = scripted([
      [ok(1), unavailable],
      [ok(1), ok(2)],
    ]);
    expect(await recovered.service.searchTogether(searches, ['hits.total'])).toHaveLength(2);
    expect(recovered.calls).toHaveLength(2);

    const lasting = scripted([[unavailable], [unavailable], [unavailable], [ok(1)]]);
    const error = await lasting.service.searchTogether(searches, []).catch((thrown: unknown) => thrown);
    expect(lasting.calls).toHaveLength(3);
    expect(error).toBeInstanceOf(errors.ResponseError);
    expect((error as errors.ResponseError).statusCode).toBe(503);
    expect(isUnavailable(error)).toBe(true);
  });

  it('throws a failure the cluster does not recover from at once, as the search alone would', async () => {
    const { calls, service } = scripted([[ok(1), failed(404, 'search_context_missing_exception')]]);
    const error = await service.searchTogether(searches, []).catch((thrown: unknown) => thrown);
    expect(calls).toHaveLength(1);
    expect((error as errors.ResponseError).statusCode).toBe(404);
    expect(isLostPointInTime(error)).toBe(true);
  });
});

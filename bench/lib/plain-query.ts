import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { estypes } from '@elastic/elasticsearch';
import { VideoState } from '@app/shared/video/video-state';

/** Hits per page, for the API and every baseline alike. */
export const PAGE = 20;

/**
 * The baseline a user would pick instead of this API: one `multi_match` over the title (weighted
 * three times) and the description, active videos only, and the engine's defaults for the rest
 * (hits with their `_source`, the total counted up to 10,000). Deliberately plain.
 */
export function plainBody(q: string): estypes.SearchRequest {
  return {
    query: {
      bool: {
        must: { multi_match: { query: q, fields: ['title^3', 'description'] } },
        filter: { term: { state: VideoState.Active } },
      },
    },
    size: PAGE,
  };
}

/**
 * Posts `plainBody(q)` to `<elasticsearch>/<index>/_search` over node:http with a keep-alive
 * agent, as a floor does: `answered` gets the engine's answer as it starts to arrive.
 */
export function plainSender(
  elasticsearch: string,
  index: string,
): (q: string, answered: (engine: IncomingMessage) => void) => ClientRequest {
  const target = new URL(`${elasticsearch}/${index}/_search`);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  return (q, answered) => {
    const body = JSON.stringify(plainBody(q));
    const sent = request(
      target,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      answered,
    );
    sent.end(body);
    return sent;
  };
}

import { Client, SniffingTransport, type TransportOptions } from '@elastic/elasticsearch';
import { tracingOn, type AppConfig } from '../config/config.schema';
import { commaItems } from '../util/comma-items';

/** Injection token for the Elasticsearch client. */
export const SEARCH_CLIENT = Symbol('SEARCH_CLIENT');

/** How many times a request is sent again after a connection error or a 502–504. */
export const SEARCH_CLIENT_RETRIES = 2;

/**
 * Seconds to wait before retry `attempt` on a connection error: 50–100 ms, then 100–200 ms. The
 * client's default (1–2 s, then 2–4 s) held every request for 3–6 s while the cluster was away, so
 * a search took that long to answer 503 and a delete to answer 200 with its index write deferred.
 */
export function promptRetryBackoff(
  _min: number,
  _max: number,
  attempt: number,
  random = Math.random,
): number {
  const step = 0.05 * 2 ** (Math.max(1, attempt) - 1);
  return step * (1 + random());
}

/**
 * The client's transport with `promptRetryBackoff` (the client has no option for it), with its
 * own OpenTelemetry spans only when the process traces (docs/tracing.md): without a tracing SDK a
 * span per request costs CPU for nothing.
 */
function promptRetryTransport(tracing: boolean): typeof SniffingTransport {
  return class PromptRetryTransport extends SniffingTransport {
    constructor(options: TransportOptions) {
      super({ ...options, retryBackoff: promptRetryBackoff, openTelemetry: { enabled: tracing } });
    }
  };
}

/** The node URLs of ELASTICSEARCH_URL: one, or several separated by commas. */
export function elasticsearchNodes(url: string): string[] {
  return commaItems(url).filter((part) => part !== '');
}

/**
 * With several nodes the client spreads requests over them, and a request that meets a node that
 * is gone (connection refused or reset) is retried on another, so losing a node the cluster can
 * spare costs no answer. No sniffing: the nodes given are the ones used.
 */
export function createSearchClient(
  config: Pick<AppConfig, 'ELASTICSEARCH_URL' | 'OTEL_EXPORTER_OTLP_ENDPOINT'>,
): Client {
  return new Client({
    nodes: elasticsearchNodes(config.ELASTICSEARCH_URL),
    requestTimeout: 10_000,
    maxRetries: SEARCH_CLIENT_RETRIES,
    Transport: promptRetryTransport(tracingOn(config)),
    // The test distribution has no root endpoint, so the client must not sniff or check the product on it.
    sniffOnStart: false,
  });
}

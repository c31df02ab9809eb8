import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { bareHost, DestinationPolicy } from '../net/destination-policy';
import { guardedLookup } from '../net/guarded-lookup';

/** At most this much of a receiver's answer is read (for the error message); the rest is dropped. */
export const RESPONSE_BYTES_READ = 1_024;

export type PostResult = { ok: true; status: number } | { ok: false; error: string };

/**
 * The one owner of outbound HTTP to webhook receivers, which are untrusted: one POST per call, a
 * deadline for the whole exchange, no redirect followed (a 3xx is a failure), and no more than
 * RESPONSE_BYTES_READ of an answer read. Any 2xx is a delivery. No connection goes to an address
 * the destination policy refuses (`WEBHOOK_ALLOWED_HOSTS`): the agents resolve names through it,
 * and a literal address is checked here. `user:password@` in a URL is sent as Basic authorization.
 */
@Injectable()
export class WebhookClient implements OnApplicationShutdown {
  private readonly timeoutMs: number;
  private readonly policy: DestinationPolicy;
  private readonly agents: Record<'http:' | 'https:', http.Agent>;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_ALLOWED_HOSTS'>) {
    this.timeoutMs = config.WEBHOOK_TIMEOUT_MS;
    this.policy = new DestinationPolicy(config.WEBHOOK_ALLOWED_HOSTS);
    const options = { keepAlive: true, maxSockets: 32, lookup: guardedLookup(this.policy) };
    this.agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
  }

  post(url: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const target = new URL(url);
    const host = bareHost(target.hostname);
    // A socket given an address skips `lookup`, so the agents' check never sees a literal.
    const refusal = isIP(host) ? this.policy.refusal(host, host) : undefined;
    if (refusal) return Promise.resolve({ ok: false, error: refusal });
    const transport = target.protocol === 'https:' ? https : http;
    const agent = target.protocol === 'https:' ? this.agents['https:'] : this.agents['http:'];
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      const settle = (result: PostResult) => {
        if (settled) return;
        settled = true;
        resolve(result);
      };
      // The exchange is over: a connection with an answer still coming is dropped, not reused.
      const close = (dropConnection: boolean) => {
        clearTimeout(deadline);
        if (dropConnection) request.destroy();
      };
      const request = transport.request(
        target,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'video-service-webhooks/1',
            ...headers,
          },
        },
        (response) => {
          const status = response.statusCode ?? 0;
          // Any 2xx is a delivery at once; the rest of the answer is read only to free the connection.
          if (status >= 200 && status < 300) settle({ ok: true, status });
          const chunks: Buffer[] = [];
          let read = 0;
          const failure = (): PostResult => ({
            ok: false,
            error: failureText(status, Buffer.concat(chunks).toString('utf8')),
          });
          response.on('data', (chunk: Buffer) => {
            chunks.push(chunk.subarray(0, Math.max(0, RESPONSE_BYTES_READ - read)));
            read += chunk.length;
            if (read < RESPONSE_BYTES_READ) return;
            close(true);
            settle(failure());
          });
          response.on('end', () => {
            close(false);
            settle(failure());
          });
          response.on('error', (error) => {
            close(true);
            settle({ ok: false, error: error.message });
          });
        },
      );
      const deadline = setTimeout(() => {
        close(true);
        settle({ ok: false, error: `no answer within ${this.timeoutMs} ms` });
      }, this.timeoutMs);
      request.on('error', (error) => {
        close(true);
        settle({ ok: false, error: describeError(error) });
      });
      request.end(body);
    });
  }

  onApplicationShutdown(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

function failureText(status: number, answer: string): string {
  const kind = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
  const excerpt = answer.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `HTTP ${status}${kind}${excerpt ? `: ${excerpt}` : ''}`;
}

function describeError(error: Error & { code?: string }): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}

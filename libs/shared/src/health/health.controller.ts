import { Controller, Logger, Res, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { PublicRoute } from '../http/public-route';
import { json, Route } from '../http/route-doc';
import { RedisHealth } from '../redis/redis-health';
import { IndexAdmin, OutdatedIndexDefinition } from '../search/index-admin.service';
import { StorageService } from '../storage/storage.service';
import { withTimeout } from '../util/with-timeout';
import { livenessSchema, readinessSchema, type Readiness } from './health.schema';

/** Each check's bound, below the readiness probe's timeout: a hung service is reported, not waited for. */
const CHECK_TIMEOUT_MS = 3_000;

/**
 * Each dependency's status only: the endpoint is public, and an error's text names hosts and ports.
 * A `reason` an indicator gives is meant for the public (the operator's next step) and is kept.
 */
function statusesOnly(results: Partial<HealthIndicatorResult>): Readiness['details'] {
  return Object.fromEntries(
    Object.entries(results).map(([key, result]) => {
      const reason = (result as { reason?: unknown }).reason;
      const status = result!.status === 'up' ? 'up' : 'down';
      return [key, { status, ...(typeof reason === 'string' ? { reason } : {}) }];
    }),
  );
}

/**
 * Liveness says the process runs. Readiness says it can serve (docs/contract.md §9): a backing
 * service that is down is reported, not a reason to leave the pool, since the routes that need it
 * answer 503 with `Retry-After` themselves and the others go on. A process is unready only while
 * starting (not listening yet), draining (every request gets a 503, see http-app.ts), or when the
 * search index is of an older definition than this build's. Why a service is down goes to the
 * log, not into the public answer; an outdated index says so publicly, with the command that
 * rebuilds it.
 */
@Controller('health')
@PublicRoute()
export class HealthController {
  private readonly logger = new Logger(HealthController.name);

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealth,
    private readonly index: IndexAdmin,
    private readonly storage: StorageService,
  ) {}

  @Route({
    method: 'get',
    path: 'live',
    operationId: 'getLiveness',
    tag: 'operations',
    summary: 'Liveness',
    description: 'The process runs; no dependency is checked.',
    security: 'public',
    responses: { 200: { description: 'alive', json: json('Liveness', livenessSchema) } },
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Route({
    method: 'get',
    path: 'ready',
    operationId: 'getReadiness',
    tag: 'operations',
    summary: 'Readiness',
    description:
      'Whether this process serves, and the state of MySQL, Redis, Elasticsearch and S3. A service that is ' +
      'down keeps the process ready (`degraded`): only the routes that need it answer 503. A 503 here means ' +
      'the process does not serve: its index is of an older definition (this answer), or it is draining (a ' +
      'problem document, as on every route).',
    security: 'public',
    responses: {
      200: {
        description: 'serving, every service up or some down',
        json: json('Readiness', readinessSchema),
      },
      503: {
        description: 'not serving (the reason in details)',
        json: json('Readiness', readinessSchema),
        headers: { 'Retry-After': 'seconds' },
      },
    },
  })
  @HealthCheck()
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<Readiness> {
    let result: HealthCheckResult;
    try {
      result = await this.health.check([
        () => this.database.pingCheck('mysql', { timeout: CHECK_TIMEOUT_MS }),
        () => this.probe('redis', () => this.redis.ping()),
        () =>
          this.probe('elasticsearch', async () => {
            await this.index.ping();
            await this.index.checkDefinition();
          }),
        () => this.probe('s3', () => this.storage.ping()),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      result = error.getResponse() as HealthCheckResult;
      this.logger.warn({ down: result.error }, 'a backing service is down');
    }
    const details = statusesOnly(result.details);
    if (details.elasticsearch?.reason !== undefined) {
      void reply.status(503).header('Retry-After', '5');
      return { status: 'unavailable', details };
    }
    return { status: result.status === 'ok' ? 'ok' : 'degraded', details };
  }

  private async probe(key: string, check: () => Promise<unknown>) {
    const indicator = this.indicators.check(key);
    try {
      await withTimeout(check(), CHECK_TIMEOUT_MS, `the ${key} check`);
      return indicator.up();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof OutdatedIndexDefinition) return indicator.down({ message, reason: error.reason });
      return indicator.down({ message });
    }
  }
}

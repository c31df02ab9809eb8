import { Controller, Get, Inject, Logger, Res, ServiceUnavailableException } from '@nestjs/common';
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
import { REDIS_CLIENT, type RedisClient } from '../redis/redis';
import { IndexAdmin, OutdatedIndexDefinition } from '../search/index-admin.service';
import { StorageService } from '../storage/storage.service';

/**
 * Each dependency's status only: the endpoint is public, and an error's text names hosts and ports.
 * A `reason` an indicator gives is meant for the public (the operator's next step) and is kept.
 */
function statusesOnly(results: Partial<HealthIndicatorResult> | undefined) {
  if (!results) return undefined;
  return Object.fromEntries(
    Object.entries(results).map(([key, result]) => {
      const reason = (result as { reason?: unknown }).reason;
      return [key, { status: result!.status, ...(typeof reason === 'string' ? { reason } : {}) }];
    }),
  );
}

/**
 * Liveness says the process runs; readiness says every backing service answers, and the search
 * index is of this build's definition. Why a dependency is down goes to the log, not into the
 * public answer; an outdated index also says so publicly, with the command that rebuilds it.
 */
@Controller('health')
@PublicRoute()
export class HealthController {
  private readonly logger = new Logger(HealthController.name);

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    private readonly index: IndexAdmin,
    private readonly storage: StorageService,
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthCheckResult> {
    try {
      return await this.health.check([
        () => this.database.pingCheck('mysql', { timeout: 3_000 }),
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
      const result = error.getResponse() as HealthCheckResult;
      this.logger.warn({ down: result.error }, 'not ready');
      void reply.status(503).header('Retry-After', '5');
      return {
        status: result.status,
        info: statusesOnly(result.info),
        error: statusesOnly(result.error),
        details: statusesOnly(result.details)!,
      };
    }
  }

  private async probe(key: string, check: () => Promise<unknown>) {
    const indicator = this.indicators.check(key);
    try {
      await check();
      return indicator.up();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof OutdatedIndexDefinition) return indicator.down({ message, reason: error.reason });
      return indicator.down({ message });
    }
  }
}

import { Controller, Get, Inject, Res, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
} from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { PublicRoute } from '../http/public-route';
import { REDIS_CLIENT } from '../redis/redis';
import { SearchIndexService } from '../search/search-index.service';
import { StorageService } from '../storage/storage.service';

/** Liveness says the process runs; readiness says every backing service answers. */
@Controller('health')
@PublicRoute()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly search: SearchIndexService,
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
        () => this.probe('elasticsearch', () => this.search.ping()),
        () => this.probe('s3', () => this.storage.ping()),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      void reply.status(503).header('Retry-After', '5');
      return error.getResponse() as HealthCheckResult;
    }
  }

  private async probe(key: string, check: () => Promise<unknown>) {
    const indicator = this.indicators.check(key);
    try {
      await check();
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }
}

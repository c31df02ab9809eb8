import { Controller, Get, Header } from '@nestjs/common';
import { PublicRoute } from '../http/public-route';
import { MetricsService } from './metrics.service';

@Controller('metrics')
@PublicRoute()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.scrape();
  }
}

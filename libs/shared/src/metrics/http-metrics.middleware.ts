import type { NextFunction, Request, Response } from 'express';
import type { MetricsService } from './metrics.service';

/**
 * Times every HTTP request. The label is the matched route pattern (`/api/videos/:id`), never the
 * raw path, so ids do not explode the series; requests no route matched share one label.
 */
export function httpMetricsMiddleware(metrics: MetricsService) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const stop = metrics.httpDuration.startTimer();
    response.on('finish', () => {
      const route = (request.route as { path?: string } | undefined)?.path;
      stop({ method: request.method, route: route ?? 'unmatched', status: String(response.statusCode) });
    });
    next();
  };
}

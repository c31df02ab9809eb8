import { z } from 'zod';

/** What the API document says `/health/live` answers. */
export const livenessSchema = z.object({ status: z.literal('ok') });

/** Each dependency's status only: the route is public (health.controller.ts). */
const dependencies = z.record(z.string(), z.object({ status: z.enum(['up', 'down']) }));

/** What the API document says `/health/ready` answers. */
export const readinessSchema = z.object({
  status: z.enum(['ok', 'error']),
  info: dependencies.optional().meta({ description: 'the dependencies that answer' }),
  error: dependencies.optional().meta({ description: 'the dependencies that do not' }),
  details: dependencies.meta({ description: 'every dependency: mysql, redis, elasticsearch, s3' }),
});

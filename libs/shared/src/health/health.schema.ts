import { z } from 'zod';

/** What the API document says `/health/live` answers. */
export const livenessSchema = z.object({ status: z.literal('ok') });

/** Each dependency's state only: the route is public (health.controller.ts). */
const dependency = z.object({
  status: z.enum(['up', 'down']),
  reason: z.string().optional().meta({ description: "the operator's next step, when the check gives one" }),
});

/** What `/health/ready` answers: whether the process serves, and each backing service's state. */
export const readinessSchema = z.object({
  status: z.enum(['ok', 'degraded', 'unavailable']).meta({
    description:
      '`ok`: every service up; `degraded`: serving, and the routes that need a service that is down ' +
      'answer 503 with `Retry-After`; `unavailable`: not serving (the answer is a 503)',
  }),
  details: z
    .record(z.string(), dependency)
    .meta({ description: 'every dependency: mysql, redis, elasticsearch, s3' }),
});

export type Readiness = z.infer<typeof readinessSchema>;

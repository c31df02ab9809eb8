import type { Job } from 'bullmq';
import type { JobName, JobPayloads } from '@app/shared/queue/jobs';

/** One handler per job name; the runner refuses to start unless every name has exactly one. */
export interface JobHandler<N extends JobName = JobName> {
  readonly name: N;
  handle(data: JobPayloads[N], job: Job<JobPayloads[N]>): Promise<unknown>;
}

export const JOB_HANDLERS = Symbol('JOB_HANDLERS');

/** Fails fast at start when a job name has no handler or more than one. */
export function assertOneHandlerPerJob(handlers: readonly JobHandler[], names: readonly JobName[]): void {
  const problems = names.flatMap((name) => {
    const count = handlers.filter((handler) => handler.name === name).length;
    return count === 1 ? [] : [`${name}: ${count} handlers`];
  });
  const unknown = handlers
    .filter((handler) => !names.includes(handler.name))
    .map((h) => `${h.name}: not a job name`);
  if (problems.length + unknown.length > 0) {
    throw new Error(`Every job needs exactly one handler: ${[...problems, ...unknown].join('; ')}`);
  }
}

import type { Job } from 'bullmq';
import type { JobName, JobPayloads } from './jobs';

/**
 * The worker's side of a job: what runs it, on its payload. The worker names one per job
 * (`JOB_HANDLERS`, apps/worker/src/jobs/registry.ts); a handler that throws fails the job.
 */
export interface JobHandler<N extends JobName> {
  handle(data: JobPayloads[N], job: Job<JobPayloads[N]>): Promise<unknown>;
}

/** A periodic job's work (a sweep, `SWEEPS`): it takes no payload, and finds what to do in the stores. */
export interface SweepHandler {
  handle(): Promise<unknown>;
}

import { Injectable, Logger } from '@nestjs/common';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { VideoRepository } from '@app/shared/video/video.repository';
import { eachLimited } from '@app/shared/util/each-limited';
import type { SweepHandler } from '@app/shared/queue/job-handler';

/**
 * Jobs checked at once: each check is a few Redis round trips, and an emptied trash of 100,000
 * leaves that many deletions to check on every pass, so they overlap rather than run one by one.
 */
const ENSURES_AT_ONCE = 16;

export interface PurgeSweepResult {
  due: number;
  deleting: number;
}

/**
 * MySQL holds every purge date, so this sweep alone would purge everything on time (late by at
 * most its interval) even if Redis lost every job. Safe with any number of workers: it only ever
 * ensures that one job per video exists.
 */
@Injectable()
export class PurgeSweepHandler implements SweepHandler {
  private readonly logger = new Logger(PurgeSweepHandler.name);

  constructor(
    private readonly videos: VideoRepository,
    private readonly queues: JobQueues,
  ) {}

  async handle(): Promise<PurgeSweepResult> {
    const result = { due: 0, deleting: 0 };
    for await (const ids of this.videos.dueForPurge(new Date())) {
      await eachLimited(ids, ENSURES_AT_ONCE, (id) => this.queues.ensureDeletionJob(id, 0));
      result.due += ids.length;
    }
    // Deletions already started whose job is missing (Redis lost it) are mostly bulk work's (an
    // erasure's thousands): they wait behind due purges, as their first jobs did.
    for await (const ids of this.videos.inDeletion()) {
      await eachLimited(ids, ENSURES_AT_ONCE, (id) =>
        this.queues.ensureDeletionJob(id, 0, undefined, { bulk: true }),
      );
      result.deleting += ids.length;
    }
    if (result.due + result.deleting > 0) this.logger.log(result, 'purge sweep enqueued deletions');
    return result;
  }
}

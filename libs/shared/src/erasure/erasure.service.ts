import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { JobQueues, QUEUE_TIMEOUT_MS } from '../queue/job-queues.service';
import { withTimeout } from '../util/with-timeout';
import { VideoBatchRepository } from '../video/video-batch.repository';
import { mayActOn, type Actor } from '../video/video-lifecycle';
import type { ErasureEntity, ErasureMode } from './erasure.entity';
import { ErasureRepository } from './erasure.repository';

export interface ErasureAsk {
  mode: ErasureMode;
  /** Soft erasures only; none means the configured default, as for one video. */
  retentionDays?: number;
  dryRun: boolean;
}

export type ErasureAnswer =
  | { kind: 'forbidden' }
  | { kind: 'ok'; dryRun: true; videos: number }
  | { kind: 'ok'; dryRun: false; erasure: ErasureEntity };

export type ErasureRead =
  { kind: 'not_found' } | { kind: 'forbidden' } | { kind: 'ok'; erasure: ErasureEntity };

/**
 * Requests to erase an author's videos (docs/contract.md §10.2): who may ask, the dry run, and the
 * one unfinished erasure per author. The request is durable once its row is written; the worker
 * does the work (`ErasureWorkService`), started by a job now or by the erasure sweep later.
 */
@Injectable()
export class ErasureService {
  private readonly logger = new Logger(ErasureService.name);

  constructor(
    private readonly erasures: ErasureRepository,
    private readonly batches: VideoBatchRepository,
    private readonly queues: JobQueues,
  ) {}

  async ask(actor: Actor, authorId: string, ask: ErasureAsk, requestId?: string): Promise<ErasureAnswer> {
    if (!mayActOn(actor, { authorId })) return { kind: 'forbidden' };
    if (ask.dryRun) {
      return { kind: 'ok', dryRun: true, videos: await this.batches.countErasable(authorId, new Date()) };
    }
    // Two rounds at most: a refusal names an unfinished erasure, which may complete before it is read.
    for (let round = 0; round < 2; round += 1) {
      const id = randomUUID();
      const written = await this.erasures.insertUnlessActive({
        id,
        authorId,
        mode: ask.mode,
        retentionDays: ask.mode === 'soft' ? (ask.retentionDays ?? null) : null,
        requestedBy: actor.sub,
        startedAt: new Date(),
      });
      const erasure = written ? await this.erasures.findById(id) : await this.erasures.findActive(authorId);
      if (!erasure) continue;
      if (written) await this.start(erasure.id, requestId);
      return { kind: 'ok', dryRun: false, erasure };
    }
    throw new Error(`erasure of ${authorId}: neither written nor found unfinished`);
  }

  async read(actor: Actor, erasureId: string): Promise<ErasureRead> {
    const erasure = await this.erasures.findById(erasureId);
    if (!erasure) return { kind: 'not_found' };
    return mayActOn(actor, erasure) ? { kind: 'ok', erasure } : { kind: 'forbidden' };
  }

  /** Makes the start prompt; the sweep starts it anyway if Redis does not take the job. */
  private async start(erasureId: string, requestId?: string): Promise<void> {
    await withTimeout(
      this.queues.ensureErasureJob(erasureId, requestId),
      QUEUE_TIMEOUT_MS,
      'queue erase-author',
    ).catch((error: unknown) => this.logger.warn(`erasure ${erasureId} left to the sweep: ${String(error)}`));
  }
}

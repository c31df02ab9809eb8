import { Injectable, Logger } from '@nestjs/common';
import { enqueue } from '../queue/enqueue';
import { JobQueues } from '../queue/job-queues.service';
import { writeUnlessUnfinished } from '../video/bulk-operation';
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
  /** The author has no video to erase and no erasure under way: nothing was written. */
  | { kind: 'ok'; dryRun: false; erasure: null }
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
    // An erasure of nothing would leave a row, an event and deliveries naming the author; one under
    // way (its videos all being deleted, so none counted) is still answered as itself.
    if (
      !(await this.erasures.findActive(authorId)) &&
      (await this.batches.countErasable(authorId, new Date())) === 0
    )
      return { kind: 'ok', dryRun: false, erasure: null };
    const { operation: erasure, written } = await writeUnlessUnfinished(`erasure of ${authorId}`, {
      write: (id) =>
        this.erasures.insertUnlessActive({
          id,
          authorId,
          mode: ask.mode,
          retentionDays: ask.mode === 'soft' ? (ask.retentionDays ?? null) : null,
          requestedBy: actor.sub,
          startedAt: new Date(),
        }),
      findById: (id) => this.erasures.findById(id),
      findUnfinished: () => this.erasures.findActive(authorId),
    });
    if (written) {
      await enqueue(this.queues.ensureErasureJob(erasure.id, requestId), `erasure ${erasure.id}`, {
        logger: this.logger,
        warn: `erasure ${erasure.id} left to the sweep`,
      });
    }
    return { kind: 'ok', dryRun: false, erasure };
  }

  async read(actor: Actor, erasureId: string): Promise<ErasureRead> {
    const erasure = await this.erasures.findById(erasureId);
    if (!erasure) return { kind: 'not_found' };
    return mayActOn(actor, erasure) ? { kind: 'ok', erasure } : { kind: 'forbidden' };
  }
}

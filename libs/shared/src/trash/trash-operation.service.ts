import { Injectable, Logger } from '@nestjs/common';
import { enqueue } from '../queue/enqueue';
import { JobQueues } from '../queue/job-queues.service';
import { writeUnlessUnfinished } from '../video/bulk-operation';
import { trashOwner } from '../video/trash.service';
import { mayActOn, type Actor } from '../video/video-lifecycle';
import type { TrashOperationEntity, TrashOperationKind } from './trash-operation.entity';
import { TrashOperationRepository } from './trash-operation.repository';

export type TrashOperationAnswer = { kind: 'forbidden' } | { kind: 'ok'; operation: TrashOperationEntity };

export type TrashOperationRead =
  { kind: 'not_found' } | { kind: 'forbidden' } | { kind: 'ok'; operation: TrashOperationEntity };

/**
 * Requests to restore or empty an author's trash (docs/contract.md §10.1): whose trash, and the
 * one running operation per author, whatever its kind: a restore asked while an empty runs (or
 * the other way round) answers the running one and starts nothing, since both would act on the
 * same videos. The request is durable once its row is written; the worker does the work
 * (`TrashOperationWorkService`), started by a job now or by the trash sweep later.
 */
@Injectable()
export class TrashOperationService {
  private readonly logger = new Logger(TrashOperationService.name);

  constructor(
    private readonly operations: TrashOperationRepository,
    private readonly queues: JobQueues,
  ) {}

  async ask(
    actor: Actor,
    authorId: string | undefined,
    kind: TrashOperationKind,
    requestId?: string,
  ): Promise<TrashOperationAnswer> {
    const owner = trashOwner(actor, authorId);
    if (owner === undefined) return { kind: 'forbidden' };
    const { operation, written } = await writeUnlessUnfinished(`trash ${kind} of ${owner}`, {
      write: (id) =>
        this.operations.insertUnlessActive({
          id,
          authorId: owner,
          kind,
          requestedBy: actor.sub,
          startedAt: new Date(),
        }),
      findById: (id) => this.operations.findById(id),
      findUnfinished: () => this.operations.findActive(owner),
    });
    if (written) {
      await enqueue(this.queues.ensureTrashJob(operation.id, requestId), `trash operation ${operation.id}`, {
        logger: this.logger,
        warn: `trash operation ${operation.id} left to the sweep`,
      });
    }
    return { kind: 'ok', operation };
  }

  async read(actor: Actor, operationId: string): Promise<TrashOperationRead> {
    const operation = await this.operations.findById(operationId);
    if (!operation) return { kind: 'not_found' };
    return mayActOn(actor, operation) ? { kind: 'ok', operation } : { kind: 'forbidden' };
  }
}

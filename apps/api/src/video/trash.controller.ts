import { Controller, HttpCode, Query } from '@nestjs/common';
import { json, problem, Route, unavailable, type RouteDoc } from '@app/shared/http/route-doc';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import type { TrashOperationKind } from '@app/shared/trash/trash-operation.entity';
import { TrashOperationService } from '@app/shared/trash/trash-operation.service';
import { TrashService, type TrashResult } from '@app/shared/video/trash.service';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../auth/current-user.decorator';
import { RequestId } from '../common/request-id.decorator';
import { AUTHOR_FORBIDDEN, settled } from '../common/outcome';
import {
  trashOperationAcceptedSchema,
  trashOwnerQuerySchema,
  trashPageSchema,
  trashQuerySchema,
  type TrashOperationAccepted,
  type TrashOwnerQuery,
  type TrashPage,
  type TrashQuery,
} from './trash.schema';

/** What restoring or emptying a trash answers: the operation, at once. */
const TRASH_OPERATION_ANSWERS: RouteDoc['responses'] = {
  202: {
    description: 'the operation, new or already running; follow it with getTrashOperation',
    json: json('TrashOperationAccepted', trashOperationAcceptedSchema),
  },
  400: problem('invalid authorId'),
  403: problem("another author's trash, and not an admin"),
  503: unavailable('The database'),
};

const ownTrashOnly = <T>(result: TrashResult<T>) =>
  settled(result, { notFound: 'No such trash.', forbidden: AUTHOR_FORBIDDEN });

/** The caller's soft-deleted videos (docs/contract.md §10.1). Static paths: they win over `:id`. */
@Controller('api/videos/trash')
export class TrashController {
  constructor(
    private readonly trash: TrashService,
    private readonly operations: TrashOperationService,
  ) {}

  @Route({
    method: 'get',
    path: '',
    operationId: 'listTrash',
    tag: 'trash',
    summary: "List the caller's trash",
    description:
      "The caller's soft-deleted videos, most recently deleted first, with when each was deleted and when " +
      "it will be purged; admins may name another author's trash (docs/contract.md §10.1).",
    security: 'bearer',
    query: trashQuerySchema,
    responses: {
      200: { description: 'a page of the trash', json: json('TrashPage', trashPageSchema) },
      400: problem('invalid parameters: each is named in `errors`'),
      403: problem("another author's trash, and not an admin"),
      503: unavailable('The database'),
    },
  })
  async list(
    @Query(new ZodValidationPipe(trashQuerySchema)) query: TrashQuery,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<TrashPage> {
    const page = query.page ?? 1;
    const { items, total } = ownTrashOnly(await this.trash.list(user, { ...query, page }));
    return {
      items: items.map((item) => ({
        ...item,
        deletedAt: item.deletedAt.toISOString(),
        purgeAt: item.purgeAt.toISOString(),
      })),
      page,
      limit: query.limit,
      total,
      totalPages: Math.ceil(total / query.limit),
    };
  }

  /** 202 with the operation (new, or the one already running for this trash). */
  @Route({
    method: 'post',
    path: 'restore',
    operationId: 'restoreTrash',
    tag: 'trash',
    summary: 'Restore every video in the trash',
    description:
      'Every video in the trash when asked becomes active and searchable again, its purge cancelled. Answers ' +
      '202 at once; the worker moves the videos in batches, through restarts and Redis loss. While a trash ' +
      'operation of the same trash runs (a restore or an empty), asking again answers that one ' +
      '(docs/contract.md §10.1).',
    security: 'bearer',
    query: trashOwnerQuerySchema,
    responses: TRASH_OPERATION_ANSWERS,
  })
  @HttpCode(202)
  restore(
    @Query(new ZodValidationPipe(trashOwnerQuerySchema)) query: TrashOwnerQuery,
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<TrashOperationAccepted> {
    return this.ask(user, query, 'restore', requestId);
  }

  /** 202 with the operation (new, or the one already running for this trash). */
  @Route({
    method: 'delete',
    path: '',
    operationId: 'emptyTrash',
    tag: 'trash',
    summary: 'Empty the trash',
    description:
      'Permanently deletes every video in the trash when asked, as `DELETE /api/videos/{id}?permanent=true` ' +
      'would: the worker starts each deletion in batches (each video hidden, then its media, index document ' +
      'and row removed by its deletion job). Answers 202 at once; survives restarts and Redis loss. While a ' +
      'trash operation of the same trash runs (a restore or an empty), asking again answers that one ' +
      '(docs/contract.md §10.1).',
    security: 'bearer',
    query: trashOwnerQuerySchema,
    responses: TRASH_OPERATION_ANSWERS,
  })
  @HttpCode(202)
  empty(
    @Query(new ZodValidationPipe(trashOwnerQuerySchema)) query: TrashOwnerQuery,
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<TrashOperationAccepted> {
    return this.ask(user, query, 'empty', requestId);
  }

  private async ask(
    user: AuthenticatedUser,
    query: TrashOwnerQuery,
    kind: TrashOperationKind,
    requestId: string | undefined,
  ): Promise<TrashOperationAccepted> {
    const { operation } = ownTrashOnly(await this.operations.ask(user, query.authorId, kind, requestId));
    return { operationId: operation.id, videos: operation.total, state: operation.state };
  }
}

import { Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import type { TrashOperationKind } from '@app/shared/trash/trash-operation.entity';
import { TrashOperationService } from '@app/shared/trash/trash-operation.service';
import { TrashService, type TrashResult } from '@app/shared/video/trash.service';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../auth/current-user.decorator';
import { RequestId } from '../common/request-id.decorator';
import { AUTHOR_FORBIDDEN, settled } from '../common/outcome';
import {
  trashOwnerQuerySchema,
  trashQuerySchema,
  type TrashOperationAccepted,
  type TrashOwnerQuery,
  type TrashPage,
  type TrashQuery,
} from './trash.schema';

const ownTrashOnly = <T>(result: TrashResult<T>) =>
  settled(result, { notFound: 'No such trash.', forbidden: AUTHOR_FORBIDDEN });

/** The caller's soft-deleted videos (docs/contract.md §10.1). Static paths: they win over `:id`. */
@Controller('api/videos/trash')
export class TrashController {
  constructor(
    private readonly trash: TrashService,
    private readonly operations: TrashOperationService,
  ) {}

  @Get()
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
  @Post('restore')
  @HttpCode(202)
  restore(
    @Query(new ZodValidationPipe(trashOwnerQuerySchema)) query: TrashOwnerQuery,
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<TrashOperationAccepted> {
    return this.ask(user, query, 'restore', requestId);
  }

  /** 202 with the operation (new, or the one already running for this trash). */
  @Delete()
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

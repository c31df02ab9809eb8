import { Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ZodValidationPipe } from '@app/shared/http/zod-validation.pipe';
import { TrashService, type TrashResult } from '@app/shared/video/trash.service';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../auth/current-user.decorator';
import { RequestId } from '../common/request-id.decorator';
import { AUTHOR_FORBIDDEN, settled } from '../common/outcome';
import {
  trashOwnerQuerySchema,
  trashQuerySchema,
  type TrashOwnerQuery,
  type TrashPage,
  type TrashQuery,
} from './trash.schema';

const ownTrashOnly = <T>(result: TrashResult<T>) =>
  settled(result, { notFound: 'No such trash.', forbidden: AUTHOR_FORBIDDEN });

/** The caller's soft-deleted videos (docs/contract.md §10.1). Static paths: they win over `:id`. */
@Controller('api/videos/trash')
export class TrashController {
  constructor(private readonly trash: TrashService) {}

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

  @Post('restore')
  @HttpCode(200)
  async restore(
    @Query(new ZodValidationPipe(trashOwnerQuerySchema)) query: TrashOwnerQuery,
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<{ restored: number }> {
    const { count } = ownTrashOnly(await this.trash.restoreAll(user, query.authorId, requestId));
    return { restored: count };
  }

  @Delete()
  @HttpCode(200)
  async empty(
    @Query(new ZodValidationPipe(trashOwnerQuerySchema)) query: TrashOwnerQuery,
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<{ deleting: number }> {
    const { count } = ownTrashOnly(await this.trash.emptyAll(user, query.authorId, requestId));
    return { deleting: count };
  }
}

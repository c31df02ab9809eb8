import { Controller, HttpCode } from '@nestjs/common';
import { json, problem, Route, unavailable } from '@app/shared/http/route-doc';
import { ValidatedInput } from '../common/zod-validation.pipe';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../auth/current-user.decorator';
import { RequestId } from '../common/request-id.decorator';
import {
  deleteQuerySchema,
  deleteResponseSchema,
  deletionReceiptSchema,
  restoreResponseSchema,
  videoIdParamsSchema,
  type DeleteQuery,
  type DeleteResponse,
  type DeletionReceiptResponse,
  type RestoreResponse,
  type VideoIdParams,
} from './video-params.schema';
import { VideoCommandService } from './video-command.service';

@Controller('api/videos')
export class VideoController {
  constructor(private readonly commands: VideoCommandService) {}

  @Route({
    method: 'delete',
    path: ':id',
    operationId: 'deleteVideo',
    tag: 'videos',
    summary: 'Delete a video',
    description:
      'Soft delete: the video leaves search at once and is purged after `retentionDays` (30 by default) ' +
      'unless restored; `permanent=true` purges it now. Only its author or an admin may (docs/contract.md §6).',
    security: 'bearer',
    params: videoIdParamsSchema,
    query: deleteQuerySchema,
    responses: {
      200: {
        description: 'soft-deleted (with dates) or deleted',
        json: json('VideoDeletion', deleteResponseSchema),
      },
      400: problem('invalid id or retentionDays'),
      403: problem('not the author and not an admin'),
      404: problem('no such video, or it is deleted or being deleted'),
      503: unavailable('The database'),
    },
  })
  @HttpCode(200)
  delete(
    @ValidatedInput({ params: videoIdParamsSchema, query: deleteQuerySchema })
    { params, query }: { params: VideoIdParams; query: DeleteQuery },
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<DeleteResponse> {
    return this.commands.delete(params.id, query, user, requestId);
  }

  @Route({
    method: 'post',
    path: ':id/restore',
    operationId: 'restoreVideo',
    tag: 'videos',
    summary: 'Restore a soft-deleted video',
    description:
      'Undoes a soft delete before its purge: the video is active and searchable again. ' +
      'Only its author or an admin may (docs/contract.md §8).',
    security: 'bearer',
    params: videoIdParamsSchema,
    responses: {
      200: { description: 'the video is active', json: json('VideoRestoration', restoreResponseSchema) },
      400: problem('invalid id'),
      403: problem('not the author and not an admin'),
      404: problem('no such video, or it is deleted or being deleted'),
      503: unavailable('The database'),
    },
  })
  @HttpCode(200)
  restore(
    @ValidatedInput({ params: videoIdParamsSchema }) { params }: { params: VideoIdParams },
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<RestoreResponse> {
    return this.commands.restore(params.id, user, requestId);
  }

  @Route({
    method: 'get',
    path: ':id/deletion',
    operationId: 'getVideoDeletion',
    tag: 'videos',
    summary: "A video's deletion receipt",
    description:
      'Where the deletion of a video stands: soft-deleted, being deleted, or deleted, with who asked, why, ' +
      'when it finished and how many media objects were removed. Keeps answering after the video is gone, ' +
      'from its audit record. Only its author or an admin may (docs/contract.md §10.3).',
    security: 'bearer',
    params: videoIdParamsSchema,
    responses: {
      200: { description: 'the receipt', json: json('DeletionReceipt', deletionReceiptSchema) },
      400: problem('invalid id'),
      403: problem('not the author and not an admin'),
      404: problem('no such video, or it is active (nothing to show)'),
      503: unavailable('The database'),
    },
  })
  receipt(
    @ValidatedInput({ params: videoIdParamsSchema }) { params }: { params: VideoIdParams },
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DeletionReceiptResponse> {
    return this.commands.receipt(params.id, user);
  }
}

import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ValidatedInput } from '../common/zod-validation.pipe';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../auth/current-user.decorator';
import { RequestId } from '../common/request-id.decorator';
import {
  deleteQuerySchema,
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

  @Delete(':id')
  @HttpCode(200)
  delete(
    @ValidatedInput({ params: videoIdParamsSchema, query: deleteQuerySchema })
    { params, query }: { params: VideoIdParams; query: DeleteQuery },
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<DeleteResponse> {
    return this.commands.delete(params.id, query, user, requestId);
  }

  @Post(':id/restore')
  @HttpCode(200)
  restore(
    @ValidatedInput({ params: videoIdParamsSchema }) { params }: { params: VideoIdParams },
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<RestoreResponse> {
    return this.commands.restore(params.id, user, requestId);
  }

  @Get(':id/deletion')
  receipt(
    @ValidatedInput({ params: videoIdParamsSchema }) { params }: { params: VideoIdParams },
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DeletionReceiptResponse> {
    return this.commands.receipt(params.id, user);
  }
}

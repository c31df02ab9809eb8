import { Controller, Delete, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ZodValidationPipe } from '@app/shared/http/zod-validation.pipe';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { CurrentUser } from '../auth/current-user.decorator';
import { RequestId } from '../common/request-id.decorator';
import { deleteQuerySchema, videoIdParamsSchema, type DeleteQuery } from './video-params.schema';
import { VideoCommandService, type DeleteResponse, type RestoreResponse } from './video-command.service';

@Controller('api/videos')
export class VideoController {
  constructor(private readonly commands: VideoCommandService) {}

  @Delete(':id')
  @HttpCode(200)
  delete(
    @Param(new ZodValidationPipe(videoIdParamsSchema)) params: { id: string },
    @Query(new ZodValidationPipe(deleteQuerySchema)) query: DeleteQuery,
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<DeleteResponse> {
    return this.commands.delete(params.id, query, user, requestId);
  }

  @Post(':id/restore')
  @HttpCode(200)
  restore(
    @Param(new ZodValidationPipe(videoIdParamsSchema)) params: { id: string },
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
  ): Promise<RestoreResponse> {
    return this.commands.restore(params.id, user, requestId);
  }
}

import { Controller, Delete, Get, HttpCode, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ErasureEntity } from '@app/shared/erasure/erasure.entity';
import { ErasureService } from '@app/shared/erasure/erasure.service';
import { ValidatedInput } from '../common/zod-validation.pipe';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../auth/current-user.decorator';
import { operationProgress } from '../common/operation-progress';
import { AUTHOR_FORBIDDEN, settled } from '../common/outcome';
import { RequestId } from '../common/request-id.decorator';
import {
  authorParamsSchema,
  erasureIdParamsSchema,
  eraseQuerySchema,
  type AuthorParams,
  type EraseQuery,
  type ErasureAccepted,
  type ErasureBody,
  type ErasureDryRun,
  type ErasureIdParams,
} from './erasure.schema';
import type { ErasureNothing } from './erasure-count.schema';

const messages = { notFound: 'No such erasure.', forbidden: AUTHOR_FORBIDDEN };

/** Erasing an author's videos (docs/contract.md §10.2). */
@Controller('api')
export class ErasureController {
  constructor(private readonly erasures: ErasureService) {}

  /**
   * 202 with the erasure (new, or the one already under way); a dry run, or an author with nothing
   * to erase, is 200 and changes nothing.
   */
  @Delete('authors/:authorId/videos')
  @HttpCode(202)
  async erase(
    @ValidatedInput({ params: authorParamsSchema, query: eraseQuerySchema })
    { params, query }: { params: AuthorParams; query: EraseQuery },
    @CurrentUser() user: AuthenticatedUser,
    @RequestId() requestId: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ErasureAccepted | ErasureDryRun | ErasureNothing> {
    const ask = {
      mode: query.permanent ? 'permanent' : 'soft',
      retentionDays: query.retentionDays,
      dryRun: query.dryRun,
    } as const;
    const answer = settled(await this.erasures.ask(user, params.authorId, ask, requestId), messages);
    if (answer.dryRun || !answer.erasure) {
      // Sets the code only; `void` because a Fastify reply is thenable.
      void reply.status(200);
      return answer.dryRun ? { videos: answer.videos, dryRun: true } : { videos: 0 };
    }
    return { erasureId: answer.erasure.id, videos: answer.erasure.total, state: answer.erasure.state };
  }

  @Get('erasures/:erasureId')
  async read(
    @ValidatedInput({ params: erasureIdParamsSchema }) { params }: { params: ErasureIdParams },
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<ErasureBody> {
    return erasureBody(settled(await this.erasures.read(user, params.erasureId), messages).erasure);
  }
}

function erasureBody(erasure: ErasureEntity): ErasureBody {
  return { erasureId: erasure.id, mode: erasure.mode, state: erasure.state, ...operationProgress(erasure) };
}

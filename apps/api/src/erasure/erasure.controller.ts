import { Controller, HttpCode, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ErasureEntity } from '@app/shared/erasure/erasure.entity';
import { ErasureService } from '@app/shared/erasure/erasure.service';
import { json, problem, Route, unavailable } from '@app/shared/http/route-doc';
import { ValidatedInput } from '../common/zod-validation.pipe';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../auth/current-user.decorator';
import { operationProgress } from '../common/operation-progress';
import { AUTHOR_FORBIDDEN, settled } from '../common/outcome';
import { RequestId } from '../common/request-id.decorator';
import {
  authorParamsSchema,
  erasureAcceptedSchema,
  erasureIdParamsSchema,
  erasureSchema,
  eraseQuerySchema,
  type AuthorParams,
  type EraseQuery,
  type ErasureAccepted,
  type ErasureBody,
  type ErasureDryRun,
  type ErasureIdParams,
} from './erasure.schema';
import { erasureCountSchema, type ErasureNothing } from './erasure-count.schema';

const messages = { notFound: 'No such erasure.', forbidden: AUTHOR_FORBIDDEN };

/** Erasing an author's videos (docs/contract.md §10.2). */
@Controller('api')
export class ErasureController {
  constructor(private readonly erasures: ErasureService) {}

  /**
   * 202 with the erasure (new, or the one already under way); a dry run, or an author with nothing
   * to erase, is 200 and changes nothing.
   */
  @Route({
    method: 'delete',
    path: 'authors/:authorId/videos',
    operationId: 'eraseAuthorVideos',
    tag: 'erasure',
    summary: "Erase an author's videos",
    description:
      'Every video of the author (right to erasure): soft-deleted with `retentionDays` (the default retention if ' +
      'absent), or with `permanent=true` deleted at once. Answers 202 at once; the worker moves the videos in ' +
      'batches, through restarts and Redis loss. While one erasure of the author is unfinished, asking again ' +
      'answers that one. `dryRun=true` answers 200 with the count and changes nothing; so does an author with no ' +
      'video to erase and no erasure under way (`{ "videos": 0 }`). The author themself or an admin only ' +
      '(docs/contract.md §10.2).',
    security: 'bearer',
    params: authorParamsSchema,
    query: eraseQuerySchema,
    responses: {
      200: {
        description:
          'nothing changed: a dry run, with how many videos it would act on (`dryRun: true`); or no video ' +
          'to erase (`videos: 0`, no `dryRun`), nothing written',
        json: json('ErasureCount', erasureCountSchema),
      },
      202: {
        description: 'the erasure, new or already under way; follow it with getErasure',
        json: json('ErasureAccepted', erasureAcceptedSchema),
      },
      400: problem('invalid authorId or retentionDays'),
      403: problem('not the author and not an admin'),
      503: unavailable('The database'),
    },
  })
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

  @Route({
    method: 'get',
    path: 'erasures/:erasureId',
    operationId: 'getErasure',
    tag: 'erasure',
    summary: 'Follow an erasure',
    description:
      'Its mode, progress (`done` of `total`, exact: committed with each batch), state and completion time. ' +
      'The author or an admin only (docs/contract.md §10.2).',
    security: 'bearer',
    params: erasureIdParamsSchema,
    responses: {
      200: { description: 'the erasure', json: json('Erasure', erasureSchema) },
      400: problem('invalid erasureId'),
      403: problem('not the author and not an admin'),
      404: problem('no such erasure'),
      503: unavailable('The database'),
    },
  })
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

import { Injectable } from '@nestjs/common';
import { ProblemException } from '@app/shared/http/problem';
import { VideoLifecycleService, type ApplyResult } from '@app/shared/video/video-lifecycle.service';
import type { NextState } from '@app/shared/video/video-lifecycle';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import type { DeleteQuery, DeleteResponse, RestoreResponse } from './video-params.schema';

/** Turns the shared rules' outcomes into the HTTP contract of docs/contract.md §6 and §8. */
@Injectable()
export class VideoCommandService {
  constructor(private readonly lifecycle: VideoLifecycleService) {}

  async delete(
    id: string,
    query: DeleteQuery,
    user: AuthenticatedUser,
    requestId?: string,
  ): Promise<DeleteResponse> {
    if (query.permanent) {
      ok(await this.lifecycle.permanentDelete(id, user, requestId));
      return { id, state: 'deleted' };
    }
    const state = ok(await this.lifecycle.softDelete(id, user, query.retentionDays, requestId));
    return {
      id,
      state: 'soft_deleted',
      deletedAt: state.deletedAt!.toISOString(),
      purgeAt: state.purgeAt!.toISOString(),
    };
  }

  async restore(id: string, user: AuthenticatedUser, requestId?: string): Promise<RestoreResponse> {
    ok(await this.lifecycle.restore(id, user, requestId));
    return { id, state: 'active' };
  }
}

function ok(result: ApplyResult): NextState {
  if (result.kind === 'not_found') throw new ProblemException(404, 'No such video, or it has been deleted.');
  if (result.kind === 'forbidden')
    throw new ProblemException(403, "Only the video's author or an admin may do this.");
  return result.state;
}

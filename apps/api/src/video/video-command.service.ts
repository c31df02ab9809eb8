import { Injectable } from '@nestjs/common';
import { DeletionReceiptService } from '@app/shared/video/deletion-receipt.service';
import { VideoLifecycleService, type ApplyResult } from '@app/shared/video/video-lifecycle.service';
import type { NextState } from '@app/shared/video/video-lifecycle';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { settled, VIDEO_FORBIDDEN } from '../common/outcome';
import type {
  DeleteQuery,
  DeleteResponse,
  DeletionReceiptResponse,
  RestoreResponse,
} from './video-params.schema';

/** Turns the shared rules' outcomes into the HTTP contract of docs/contract.md §6, §8 and §10.3. */
@Injectable()
export class VideoCommandService {
  constructor(
    private readonly lifecycle: VideoLifecycleService,
    private readonly receipts: DeletionReceiptService,
  ) {}

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

  async receipt(id: string, user: AuthenticatedUser): Promise<DeletionReceiptResponse> {
    const { receipt } = settled(await this.receipts.receipt(id, user), {
      notFound: 'No deletion of this video: it does not exist, or it is active.',
      forbidden: VIDEO_FORBIDDEN,
    });
    return {
      ...receipt,
      deletedAt: iso(receipt.deletedAt),
      purgeAt: iso(receipt.purgeAt),
      completedAt: iso(receipt.completedAt),
    };
  }
}

function ok(result: ApplyResult): NextState {
  return settled(result, { notFound: 'No such video, or it has been deleted.', forbidden: VIDEO_FORBIDDEN })
    .state;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

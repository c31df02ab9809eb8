import { Injectable } from '@nestjs/common';
import { ReindexService, type ReindexResult } from './reindex.service';
import type { JobHandler } from '@app/shared/queue/job-handler';

@Injectable()
export class ReindexHandler implements JobHandler<'reindex'> {
  constructor(private readonly reindex: ReindexService) {}

  handle(): Promise<ReindexResult> {
    return this.reindex.rebuild();
  }
}

import { Injectable } from '@nestjs/common';
import { ReindexService, type ReindexResult } from './reindex.service';
import type { JobHandler } from '../jobs/job-handler';

@Injectable()
export class ReindexHandler implements JobHandler<'reindex'> {
  readonly name = 'reindex';

  constructor(private readonly reindex: ReindexService) {}

  handle(): Promise<ReindexResult> {
    return this.reindex.rebuild();
  }
}

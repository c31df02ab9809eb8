import { Injectable } from '@nestjs/common';
import { IndexReconciler, type ReconcileResult } from '@app/shared/search/index-reconciler.service';
import type { JobHandler } from '../jobs/job-handler';
import { IndexShapeService } from './index-shape.service';

@Injectable()
export class ReconcileIndexHandler implements JobHandler<'reconcile-index'> {
  readonly name = 'reconcile-index';

  constructor(
    private readonly reconciler: IndexReconciler,
    private readonly shape: IndexShapeService,
  ) {}

  async handle(): Promise<ReconcileResult> {
    // The replica count drifts too: a worker that started while Elasticsearch was away, or a hand edit.
    await this.shape.apply();
    return this.reconciler.reconcile();
  }
}

import { Injectable } from '@nestjs/common';
import { IndexReconciler, type ReconcileResult } from '@app/shared/search/index-reconciler.service';
import type { JobHandler } from '../jobs/job-handler';

@Injectable()
export class ReconcileIndexHandler implements JobHandler<'reconcile-index'> {
  readonly name = 'reconcile-index';

  constructor(private readonly reconciler: IndexReconciler) {}

  handle(): Promise<ReconcileResult> {
    return this.reconciler.reconcile();
  }
}

import { Injectable } from '@nestjs/common';
import { IndexReconciler, type ReconcileResult } from './index-reconciler.service';
import type { SweepHandler } from '@app/shared/queue/job-handler';
import { IndexShapeService } from './index-shape.service';

@Injectable()
export class ReconcileIndexHandler implements SweepHandler {
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

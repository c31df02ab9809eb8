import { Module } from '@nestjs/common';
import { LanguageBackfill } from './import/language-backfill';
import { VideoImporter } from './import/video-importer';
import { InfrastructureModule } from '@app/shared/infrastructure.module';
import { IndexReconciler } from './index/index-reconciler.service';
import { IndexShapeService } from './index/index-shape.service';
import { ReindexService } from './index/reindex.service';
import { SWEEP_HANDLERS } from './jobs/registry';

const CORE = [
  VideoImporter,
  LanguageBackfill,
  IndexShapeService,
  ReindexService,
  IndexReconciler,
  ...SWEEP_HANDLERS,
];

/**
 * What the worker's processes share: the connections and domain services, the importer and the
 * language backfill, the index's shape and the sweeps' handlers. Starting it runs nothing: no job
 * is taken, no schedule set, no port opened, so the CLI, the benches and the tests open it as an
 * application context (`openWorkerContext`) and the worker adds its job runner on top
 * (`WorkerModule`). The root imports `ConfigModule`.
 */
@Module({ imports: [InfrastructureModule], providers: CORE, exports: CORE })
export class WorkerCoreModule {}

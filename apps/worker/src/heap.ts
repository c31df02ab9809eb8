// main.ts and cli.ts import this first: the process restarts with the worker's heap rule (the CLI's
// commands are the worker's work: reindex, import, reconcile) before anything loads.
import { startWithHeapRule } from '@app/shared/config/node-heap';

startWithHeapRule('worker');

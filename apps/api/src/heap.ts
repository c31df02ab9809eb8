// main.ts imports this first: the process restarts with the API's heap rule before anything loads.
import { startWithHeapRule } from '@app/shared/config/node-heap';

startWithHeapRule('api');

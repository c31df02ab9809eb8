import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { JobQueues } from '@app/shared/queue/job-queues.service';
import type { QueueName } from '@app/shared/queue/queues';
import { startableJobs } from '@app/shared/queue/ready-work';
import { readOverlay } from '../../deploy/kubernetes/rendered.ts';
import { parsePromql } from './observability';
import { ROOT } from './processes';

/** The worker's ScaledObject as committed: what KEDA will read, and how it turns that into workers. */
export interface BacklogScaler {
  /** The PromQL KEDA sends Prometheus. */
  query: string;
  /** The metric it reads, and the queues whose counts it adds up. */
  metric: string;
  queues: string[];
  /** Jobs of backlog per worker (the trigger's `threshold`, an average value). */
  target: number;
  min: number;
  max: number;
}

export function workerScaler(overlay = 'production'): BacklogScaler {
  const found = readOverlay(ROOT, { name: overlay }).filter(ScaledObject.is);
  if (found.length !== 1) throw new Error(`${overlay}: expected one ScaledObject, found ${found.length}`);
  const { spec } = found[0]!;
  const [trigger, ...more] = spec.triggers;
  if (!trigger || more.length > 0 || trigger.type !== 'prometheus' || !trigger.metadata.query) {
    throw new Error(`${overlay}: expected one prometheus trigger with a query`);
  }
  const query = trigger.metadata.query;
  const [selector, ...others] = parsePromql(query).selectors;
  const queues = selector?.matchers.find((matcher) => matcher.label === 'queue' && matcher.op === '=~');
  if (!selector || others.length > 0 || !queues) throw new Error(`query "${query}" selects no queues by =~`);
  return {
    query,
    metric: selector.metric!,
    queues: queues.value.split('|'),
    target: Number(trigger.metadata.threshold),
    min: spec.minReplicaCount ?? 1,
    max: spec.maxReplicaCount ?? 100,
  };
}

/**
 * The value KEDA reads now, as the workers export it: each queue's startable jobs (the metric's
 * own read), added up over the queues the query names.
 */
export async function scalerMetric(queues: JobQueues, scaler: BacklogScaler): Promise<number> {
  let sum = 0;
  for (const name of scaler.queues) sum += await startableJobs(queues.queue(name as QueueName));
  return sum;
}

/** The worker count an average-value target asks for, within the floor and the ceiling. */
export function desiredWorkers(metric: number, scaler: BacklogScaler): number {
  return Math.min(scaler.max, Math.max(scaler.min, Math.ceil(metric / scaler.target)));
}

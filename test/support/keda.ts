import type { RedisClient } from '@app/shared/redis/redis';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { readOverlay } from '../../deploy/kubernetes/rendered.ts';
import { ROOT } from './processes';

/** The worker's ScaledObject as committed: what KEDA will read, and how it turns that into workers. */
export interface BacklogScaler {
  triggers: { name: string; key: string }[];
  formula: string;
  /** Jobs of backlog per worker (`scalingModifiers.target`, an average value). */
  target: number;
  min: number;
  max: number;
}

export function workerScaler(overlay = 'production'): BacklogScaler {
  const found = readOverlay(ROOT, { name: overlay }).filter(ScaledObject.is);
  if (found.length !== 1) throw new Error(`${overlay}: expected one ScaledObject, found ${found.length}`);
  const { spec } = found[0]!;
  const modifiers = spec.advanced?.scalingModifiers;
  return {
    triggers: spec.triggers.map((trigger) => {
      const redis = trigger.type === 'redis' || trigger.type === 'redis-cluster';
      if (!redis || !trigger.name || !trigger.metadata.listName) {
        throw new Error(`trigger ${trigger.name ?? '?'} is not a named redis trigger with a listName`);
      }
      return { name: trigger.name, key: trigger.metadata.listName };
    }),
    formula: modifiers?.formula ?? '',
    target: Number(modifiers?.target),
    min: spec.minReplicaCount ?? 1,
    max: spec.maxReplicaCount ?? 100,
  };
}

/**
 * What KEDA's Redis scaler reads from one key, in one script as it does: a sorted set's size, a
 * set's, a hash's, or a list's length (0 for a key that does not exist).
 */
const KEY_LENGTH = `
local kind = redis.call('type', KEYS[1]).ok
if kind == 'zset' then return redis.call('zcard', KEYS[1]) end
if kind == 'set' then return redis.call('scard', KEYS[1]) end
if kind == 'hash' then return redis.call('hlen', KEYS[1]) end
if kind == 'list' or kind == 'none' then return redis.call('llen', KEYS[1]) end
return redis.error_reply('unsupported key type: ' .. kind)`;

/** The names a formula adds up; anything but a plain sum of trigger names is refused. */
export function summedTriggers(scaler: BacklogScaler): string[] {
  const terms = scaler.formula.split('+').map((term) => term.trim());
  const names = new Set(scaler.triggers.map((trigger) => trigger.name));
  if (terms.some((term) => !names.has(term)) || new Set(terms).size !== terms.length) {
    throw new Error(`formula "${scaler.formula}" is not a sum of distinct trigger names`);
  }
  return terms;
}

/** The composite metric KEDA computes now: each trigger's reading, added up as the formula says. */
export async function scalerMetric(redis: RedisClient, scaler: BacklogScaler): Promise<number> {
  const readings = new Map<string, number>();
  for (const { name, key } of scaler.triggers)
    readings.set(name, Number(await redis.eval(KEY_LENGTH, 1, key)));
  return summedTriggers(scaler).reduce((sum, name) => sum + readings.get(name)!, 0);
}

/** The worker count an average-value target asks for, within the floor and the ceiling. */
export function desiredWorkers(metric: number, scaler: BacklogScaler): number {
  return Math.min(scaler.max, Math.max(scaler.min, Math.ceil(metric / scaler.target)));
}

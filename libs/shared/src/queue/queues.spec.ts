import { QueueKeys } from 'bullmq';
import fc from 'fast-check';
import { QUEUE_PREFIX, QUEUES, queuePrefix, receiverQueueName } from './queues';

// Redis Cluster's own slot function (CRC16 of the hash tag, or of the key), as ioredis routes by it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const slotOf = require('cluster-key-slot') as (key: string) => number;

/** Every key BullMQ keeps for a queue, as its scripts name them. */
const keysOf = (queue: string, clustered: boolean) =>
  Object.values(new QueueKeys(queuePrefix(queue, clustered)).getKeys(queue)).filter((key) => key !== '');

/** Queue names as BullMQ takes them: no colon; and no braces, which would end the hash tag early. */
const queueName = fc.stringMatching(/^[a-z0-9-]{1,40}$/);

describe('queuePrefix', () => {
  it("keeps BullMQ's plain keys on one server, so an upgrade finds the jobs queued before it", () => {
    expect(queuePrefix(QUEUES.deletion, false)).toBe(QUEUE_PREFIX);
    expect(keysOf(QUEUES.deletion, false)).toContain('bull:video-deletion:wait');
  });

  it('puts every key of a queue in one hash slot on a cluster, whatever its name', () => {
    fc.assert(
      fc.property(queueName, (name) => {
        const slots = new Set(keysOf(name, true).map(slotOf));
        expect(slots.size).toBe(1);
        expect([...slots][0]).toBe(slotOf(name));
      }),
    );
    expect(keysOf(QUEUES.deletion, true)).toContain('bull:{video-deletion}:video-deletion:wait');
  });

  it('lets the queues spread over a cluster: each its own slot', () => {
    const queues = [...Object.values(QUEUES), receiverQueueName('ab'.repeat(32))];
    const slots = new Set(queues.map((queue) => slotOf(keysOf(queue, true)[0]!)));
    expect(slots.size).toBe(queues.length);
  });
});

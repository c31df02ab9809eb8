import { Inject, Injectable } from '@nestjs/common';
import { REDIS_CLIENT, type RedisClient } from './redis';

/** A stream entry: its id (`<ms>-<seq>`) and its fields, each name followed by its value. */
export type StreamEntry = [id: string, fields: string[]];

/** The replies of a pipeline, once none failed. */
function replies(results: [Error | null, unknown][] | null, what: string): unknown[] {
  if (!results) throw new Error(`${what} was discarded`);
  for (const [error] of results) if (error) throw error;
  return results.map(([, reply]) => reply);
}

/** Redis streams: entries appended and read in order by any number of processes. */
@Injectable()
export class RedisStreams {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: RedisClient) {}

  /** The id of the stream's newest entry, or undefined when it has none. */
  async newestId(stream: string): Promise<string | undefined> {
    const [newest] = await this.redis.xrevrange(stream, '+', '-', 'COUNT', 1);
    return newest?.[0];
  }

  /**
   * In one round trip, at most `count` entries after `position`, then the oldest entry the stream
   * keeps (read after them; undefined when the stream has none).
   */
  async readAfter(
    stream: string,
    position: string,
    count: number,
  ): Promise<{ entries: StreamEntry[]; oldest: StreamEntry | undefined }> {
    const [entries, oldest] = replies(
      await this.redis
        .pipeline()
        .xrange(stream, `(${position}`, '+', 'COUNT', count)
        .xrange(stream, '-', '+', 'COUNT', 1)
        .exec(),
      `a read of stream ${stream}`,
    ) as [StreamEntry[], StreamEntry[]];
    return { entries, oldest: oldest[0] };
  }

  /**
   * One `XADD` per entry (each its fields), the stream trimmed to about `maxLength` entries, sent
   * together: one write, one round trip. Rejects if any failed.
   */
  async append(stream: string, entries: string[][], maxLength: number): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const fields of entries) pipeline.xadd(stream, 'MAXLEN', '~', maxLength, '*', ...fields);
    replies(await pipeline.exec(), `an append to stream ${stream}`);
  }
}

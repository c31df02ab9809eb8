import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { AppConfig } from '@app/shared/config/config.schema';
import { mediaPrefix, s3Credentials } from '@app/shared/storage/storage.service';
import { closedLoop } from './stats';

/**
 * An S3 client of the bench's own, with the SDK's defaults, as a script would make it: for the
 * baselines' S3 calls and for putting the media they delete, never the product's client.
 */
export function rawS3Client(config: AppConfig): S3Client {
  return new S3Client({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials: s3Credentials(config),
  });
}

/** Puts `perVideo` small objects under each video's media prefix. */
export async function putMedia(
  s3: S3Client,
  config: AppConfig,
  ids: string[],
  perVideo: number,
): Promise<void> {
  await closedLoop(
    async (i) => {
      const id = ids[Math.floor(i / perVideo)]!;
      await s3.send(
        new PutObjectCommand({
          Bucket: config.S3_BUCKET,
          Key: `${mediaPrefix(id)}file-${i % perVideo}`,
          Body: 'x',
        }),
      );
    },
    { concurrency: 32, total: ids.length * perVideo },
  );
}

/**
 * One video's media, as a script deletes it: one listing of its prefix, one DeleteObjects of what
 * it lists. Answers how many objects went; a key S3 could not delete fails the call.
 */
export async function rawDeleteMedia(s3: S3Client, bucket: string, id: string): Promise<number> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: mediaPrefix(id) }));
  const keys = (listed.Contents ?? []).map((object) => ({ Key: object.Key! }));
  if (keys.length === 0) return 0;
  const result = await s3.send(
    new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }),
  );
  if ((result.Errors ?? []).length > 0) throw new Error(`DeleteObjects failed for ${id}`);
  return keys.length;
}

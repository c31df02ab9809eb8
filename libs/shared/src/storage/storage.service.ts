import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/** Every object of a video lives under this prefix, so "all of its media" is one listing. */
export function mediaPrefix(videoId: string): string {
  return `videos/${videoId}/`;
}

/** The keys of the local stores (scripts/services, docker-compose.yml): never a deployment's. */
export const DEVELOPMENT_KEYS = { accessKeyId: 'videos-local', secretAccessKey: 'videos-local-secret' };

/**
 * The configured keys; without any, in production undefined, for the AWS SDK's default credential
 * chain (AWS_* variables, a web identity token as on EKS, the instance's or the task's role), and
 * elsewhere the local stores' development keys. The schema refuses one key without the other.
 */
export function s3Credentials(
  config: Pick<AppConfig, 'NODE_ENV' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY'>,
): { accessKeyId: string; secretAccessKey: string } | undefined {
  if (config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY)
    return { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY };
  return config.NODE_ENV === 'production' ? undefined : DEVELOPMENT_KEYS;
}

@Injectable()
export class StorageService implements OnApplicationShutdown {
  readonly bucket: string;
  private readonly client: S3Client;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.bucket = config.S3_BUCKET;
    this.client = new S3Client({
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      credentials: s3Credentials(config),
      maxAttempts: 3,
      // Checksums only where S3 requires one (DeleteObjects): S3-compatible stores do not all check
      // the SDK's newer default checksums, and computing them costs CPU on every request.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Each command's middleware stack is resolved once, not on every request (the stack is
      // never changed per request here). A call with options (the readiness ping's timeout)
      // drops the cache, and the next request of each command resolves its stack again.
      cacheMiddleware: true,
    });
    // The SDK gets no logger; its logger middleware still filtered every request's input and
    // output (a walk of the listing's schema) for the logger that does nothing.
    this.client.middlewareStack.remove('loggerMiddleware');
  }

  /** Fails when the bucket cannot be reached; used by readiness checks. */
  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), {
      abortSignal: AbortSignal.timeout(3_000),
    });
  }

  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      if (!(error instanceof S3ServiceException) || error.$metadata.httpStatusCode !== 404) throw error;
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    }
  }

  async putObject(key: string, body: Uint8Array | string, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
    );
  }

  /** An object's content as text, or null when there is no such object. */
  async getText(key: string): Promise<string | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return (await object.Body?.transformToString('utf8')) ?? '';
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return null;
      throw error;
    }
  }

  /**
   * Every page of a listing (1,000 entries at most each), following continuation tokens; keys in
   * byte order, from the first one after `startAfter` when given.
   */
  private async *pages(
    prefix: string,
    delimiter?: string,
    startAfter?: string,
  ): AsyncGenerator<ListObjectsV2CommandOutput> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          Delimiter: delimiter,
          ContinuationToken: token,
          StartAfter: token ? undefined : startAfter,
        }),
      );
      yield page;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Pages through every key under a prefix (after `startAfter`); 1,000 keys at a time, so memory stays flat. */
  async *listKeys(prefix: string, startAfter?: string): AsyncGenerator<string[]> {
    for await (const page of this.pages(prefix, undefined, startAfter)) {
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : []));
      if (keys.length > 0) yield keys;
    }
  }

  /** Pages through the video ids that have media (the `videos/{id}/` prefixes). */
  async *listVideoIds(): AsyncGenerator<string[]> {
    for await (const page of this.pages('videos/', '/')) {
      const ids = (page.CommonPrefixes ?? []).flatMap((p) => (p.Prefix ? [p.Prefix.slice(7, -1)] : []));
      if (ids.length > 0) yield ids;
    }
  }

  /** When the newest object under a prefix was written, or null when there is none. */
  async newestObjectTime(prefix: string): Promise<Date | null> {
    let newest: Date | null = null;
    for await (const page of this.pages(prefix)) {
      for (const object of page.Contents ?? []) {
        if (object.LastModified && (!newest || object.LastModified > newest)) newest = object.LastModified;
      }
    }
    return newest;
  }

  async countKeys(prefix: string): Promise<number> {
    let count = 0;
    for await (const keys of this.listKeys(prefix)) count += keys.length;
    return count;
  }

  /**
   * Deletes up to 1,000 keys in one request. A key that is already gone counts as deleted (S3
   * reports it as deleted); any per-key error fails the call so the caller's retry covers it.
   */
  async deleteKeys(keys: string[]): Promise<void> {
    const failed = await this.tryDeleteKeys(keys);
    if (failed.size > 0) {
      const [key, code] = [...failed][0]!;
      throw new Error(`DeleteObjects failed for ${failed.size} key(s), first ${key}: ${code}`);
    }
  }

  /** Deletes up to 1,000 keys in one request; returns the keys that could not be deleted, with S3's error code. */
  async tryDeleteKeys(keys: string[]): Promise<Map<string, string>> {
    const failed = new Map<string, string>();
    if (keys.length === 0) return failed;
    const result = await this.client.send(
      new DeleteObjectsCommand({
        Bucket: this.bucket,
        Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
      }),
    );
    for (const error of result.Errors ?? []) {
      if (error.Code !== 'NoSuchKey' && error.Key) failed.set(error.Key, error.Code ?? 'unknown');
    }
    return failed;
  }

  onApplicationShutdown(): void {
    this.client.destroy();
  }
}

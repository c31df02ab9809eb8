import { Injectable } from '@nestjs/common';
import { IndexAdmin } from '@app/shared/search/index-admin.service';
import { IndexWriter } from '@app/shared/search/index-writer.service';
import { mediaPrefix, StorageService } from '@app/shared/storage/storage.service';
import { VideoState } from '@app/shared/video/video-state';
import { VideoRepository } from '@app/shared/video/video.repository';
import { importRecordSchema, toImportedVideo, type ImportedVideo } from '@app/shared/catalogue/import-record';
import { openJsonLines } from '@app/shared/catalogue/jsonl-reader';
import { loadLanguageDetector } from '@app/shared/language/language-detector';

export interface ImportProgress {
  records: number;
  bytesRead: number;
  totalBytes: number;
}

export interface ImportSummary {
  read: number;
  imported: number;
  invalid: number;
  /** Records of videos whose deletion was recorded: never brought back (docs/contract.md §10.5). */
  skippedDeleted: number;
  objectsWritten: number;
  /** Documents the index took; a write it refused (it holds a newer version) is counted apart. */
  documentsIndexed: number;
  documentsRefused: number;
  /** The first few invalid lines, for the report. */
  problems: string[];
  seconds: number;
}

export interface ImportOptions {
  batchSize?: number;
  /** Stop after this many valid records (tests and quick demos). */
  limit?: number;
  onProgress?: (progress: ImportProgress) => void;
}

const UPLOAD_CONCURRENCY = 32;

interface BatchOutcome {
  imported: number;
  skippedDeleted: number;
  objectsWritten: number;
  documentsIndexed: number;
  documentsRefused: number;
}

/** Runs at most `limit` tasks at once over the items. */
async function forEachConcurrent<T>(
  items: T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await task(items[next++]!);
  });
  await Promise.all(runners);
}

/**
 * Imports a JSON-lines file in batches: upsert rows by id, write media objects, index the rows as
 * MySQL now holds them. One batch is in memory at a time.
 */
@Injectable()
export class VideoImporter {
  constructor(
    private readonly videos: VideoRepository,
    private readonly storage: StorageService,
    private readonly indexAdmin: IndexAdmin,
    private readonly indexWriter: IndexWriter,
  ) {}

  async importFile(path: string, options: ImportOptions = {}): Promise<ImportSummary> {
    const started = performance.now();
    const batchSize = options.batchSize ?? 500;
    const source = await openJsonLines(path);
    const summary: ImportSummary = {
      read: 0,
      imported: 0,
      invalid: 0,
      skippedDeleted: 0,
      objectsWritten: 0,
      documentsIndexed: 0,
      documentsRefused: 0,
      problems: [],
      seconds: 0,
    };
    await this.indexAdmin.ensureAlias();
    const languages = await loadLanguageDetector();
    let batch: ImportedVideo[] = [];
    const flush = async () => {
      const outcome = await this.importBatch(batch);
      summary.imported += outcome.imported;
      summary.skippedDeleted += outcome.skippedDeleted;
      summary.objectsWritten += outcome.objectsWritten;
      summary.documentsIndexed += outcome.documentsIndexed;
      summary.documentsRefused += outcome.documentsRefused;
      batch = [];
      options.onProgress?.({
        records: summary.read,
        bytesRead: source.bytesRead(),
        totalBytes: source.totalBytes,
      });
    };

    for await (const { line, value, error } of source.lines()) {
      summary.read += 1;
      const parsed = error ? undefined : importRecordSchema.safeParse(value);
      if (!parsed?.success) {
        summary.invalid += 1;
        const reason =
          error ??
          parsed?.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join(', ');
        if (summary.problems.length < 20) summary.problems.push(`line ${line}: ${reason}`);
        continue;
      }
      batch.push(toImportedVideo(parsed.data, languages.languageOf));
      if (batch.length >= batchSize) await flush();
      if (
        options.limit !== undefined &&
        summary.imported + summary.skippedDeleted + batch.length >= options.limit
      ) {
        break;
      }
    }
    if (batch.length > 0) await flush();
    summary.seconds = (performance.now() - started) / 1000;
    return summary;
  }

  private async importBatch(batch: ImportedVideo[]): Promise<BatchOutcome> {
    // A file may list the same id twice; the last line wins, as it would line by line.
    const byId = new Map(batch.map((video) => [video.content.id, video]));
    await this.videos.upsertContent([...byId.values()].map((video) => video.content));
    // The upsert leaves out every video with a tombstone: what is not read back was skipped.
    const rows = await this.videos.findByIds([...byId.keys()]);
    const skipped = new Set(byId.keys());
    for (const row of rows) skipped.delete(row.id);
    const skippedDeleted = batch.filter((video) => skipped.has(video.content.id)).length;
    // Media of a video on its way out is not written back.
    const uploads = rows
      .filter((row) => row.state === VideoState.Active)
      .flatMap((row) =>
        byId.get(row.id)!.media.map((object) => ({ key: `${mediaPrefix(row.id)}${object.name}`, object })),
      );
    const [, outcome] = await Promise.all([
      forEachConcurrent(uploads, UPLOAD_CONCURRENCY, ({ key, object }) =>
        this.storage.putObject(key, object.body, object.contentType),
      ),
      this.indexWriter.indexVideos(rows),
    ]);
    return {
      imported: batch.length - skippedDeleted,
      skippedDeleted,
      objectsWritten: uploads.length,
      documentsIndexed: outcome.indexed,
      documentsRefused: outcome.stale,
    };
  }
}

import { Injectable } from '@nestjs/common';
import { UNDETERMINED_LANGUAGE } from '@app/shared/language/language-code';
import { languageText, loadLanguageDetector } from '@app/shared/language/language-detector';
import { IndexWriter } from '@app/shared/search/index-writer.service';
import { VideoRepository } from '@app/shared/video/video.repository';

export interface LanguageBackfillSummary {
  /** Videos whose language was undetermined. */
  read: number;
  /** Of those, the ones whose language was detected and written. */
  detected: number;
  /** Documents the index took; a write it refused (it holds a newer version) is counted apart. */
  documentsIndexed: number;
  documentsRefused: number;
  seconds: number;
}

/**
 * `cli languages`: detects the language of the videos whose language is undetermined (`und`: rows
 * stored before videos had one, migration VideoLanguage1796083200000) from their title and
 * description, as the import does for a record without one, a batch at a time; writes it to the
 * row and the row to the index. Text too short to tell stays undetermined, so a second run reads
 * those again and writes nothing.
 */
@Injectable()
export class LanguageBackfill {
  constructor(
    private readonly videos: VideoRepository,
    private readonly indexWriter: IndexWriter,
  ) {}

  async run(
    options: { batchSize?: number; onProgress?: (summary: LanguageBackfillSummary) => void } = {},
  ): Promise<LanguageBackfillSummary> {
    const started = performance.now();
    const detector = await loadLanguageDetector();
    const summary: LanguageBackfillSummary = {
      read: 0,
      detected: 0,
      documentsIndexed: 0,
      documentsRefused: 0,
      seconds: 0,
    };
    for await (const rows of this.videos.undeterminedLanguages(options.batchSize)) {
      const detected = rows
        .map(({ id, version, title, description }) => ({
          id,
          version,
          language: detector.languageOf(languageText(title, description)),
        }))
        .filter(({ language }) => language !== UNDETERMINED_LANGUAGE);
      const written = await this.videos.setLanguages(detected);
      const outcome = await this.indexWriter.indexVideos(await this.videos.findByIds(written));
      summary.read += rows.length;
      summary.detected += written.length;
      summary.documentsIndexed += outcome.indexed;
      summary.documentsRefused += outcome.stale;
      options.onProgress?.(summary);
    }
    summary.seconds = (performance.now() - started) / 1000;
    return summary;
  }
}

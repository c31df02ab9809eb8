import './heap';
import 'reflect-metadata';
import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { SingleBar, Presets } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { configReference } from '@app/shared/config/config-doc';
import { exitOnStartupError, loadConfig } from '@app/shared/config/load-config';
import { signDevToken, parseTtl } from '@app/shared/auth/dev-token';
import { ttlProblem } from '@app/shared/auth/token-lifetime';
import { migrate } from '@app/shared/data-source';
import { isValidSubject, SUBJECT_RULE } from '@app/shared/ids/author-id';
import { isValidVideoId, normalizeId } from '@app/shared/ids/uuid';
import { LanguageBackfill } from './import/language-backfill';
import { VideoImporter } from './import/video-importer';
import { OutboxRepository } from '@app/shared/events/outbox.repository';
import { IndexReconciler } from './index/index-reconciler.service';
import { REINDEX_BATCH, ReindexService } from './index/reindex.service';
import { IndexAdmin, shardCountAdvice } from '@app/shared/search/index-admin.service';
import { StorageService } from '@app/shared/storage/storage.service';
import { DeletionLedger } from '@app/shared/video/deletion-ledger.service';
import { VideoRepository } from '@app/shared/video/video.repository';
import { PurgeSweepHandler } from './deletion/purge-sweep.handler';
import { withWorkerContext } from './worker-context';

/** The sample the repository ships (CC0, see data/README.md). */
const DEFAULT_IMPORT = resolve(__dirname, '../../../../data/pyvideo.jsonl.gz');

// Services log through Nest's logger; a command prints its own summary, so only problems are shown.
Logger.overrideLogger(['warn', 'error']);

const program = new Command('videos')
  .description('Operator commands for the video service')
  .showHelpAfterError();

program
  .command('migrate')
  .description('create the database if needed and apply pending migrations')
  .action(async () => {
    const applied = await migrate(loadConfig());
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database schema is up to date.');
  });

program
  .command('setup')
  .description('migrations, the bucket and the search alias: everything a fresh environment needs')
  .action(async () => {
    const config = loadConfig();
    const applied = await migrate(config);
    await withWorkerContext(config, async (context) => {
      const search = context.get(IndexAdmin);
      await context.get(StorageService).ensureBucket();
      await search.ensureAlias();
      // An existing index takes a changed ELASTICSEARCH_REPLICAS here too, as at a worker's start.
      const indices = await search.applyReplicas();
      const videos = await context.get(VideoRepository).count();
      console.log(
        JSON.stringify({
          migrationsApplied: applied,
          bucket: config.S3_BUCKET,
          alias: config.ELASTICSEARCH_INDEX,
          indices,
          videos,
        }),
      );
      for (const report of indices) {
        const advice = shardCountAdvice(report, config.ELASTICSEARCH_SHARDS);
        if (advice) console.warn(`${advice}.`);
      }
    });
  });

const positiveInt = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
};

program
  .command('import')
  .description('upsert videos from a .jsonl or .jsonl.gz file: rows, media objects and index documents')
  .argument('[file]', 'file to import', DEFAULT_IMPORT)
  .option('--batch-size <n>', 'records per batch', positiveInt, 500)
  .option('--limit <n>', 'stop after this many valid records', positiveInt)
  .option('--no-progress', 'no progress bar (for logs and CI)')
  .action(async (file: string, options: { batchSize: number; limit?: number; progress: boolean }) => {
    const config = loadConfig();
    await withWorkerContext(config, async (context) => {
      const bar = new SingleBar(
        {
          format:
            'import [{bar}] {percentage}% | {records} records | {rate} records/s | {duration_formatted}',
          hideCursor: true,
        },
        Presets.shades_classic,
      );
      const showBar = options.progress && process.stdout.isTTY;
      const started = performance.now();
      try {
        await context.get(StorageService).ensureBucket();
        if (showBar) bar.start(100, 0, { records: 0, rate: 0 });
        const summary = await context.get(VideoImporter).importFile(resolve(file), {
          batchSize: options.batchSize,
          limit: options.limit,
          onProgress: ({ records, bytesRead, totalBytes }) => {
            const rate = Math.round(records / ((performance.now() - started) / 1000));
            if (showBar)
              bar.update(Math.min(100, Math.floor((bytesRead / totalBytes) * 100)), { records, rate });
            else if (!options.progress) return;
            else console.log(`import: ${records} records, ${rate} records/s`);
          },
        });
        if (showBar) {
          bar.update(100);
          bar.stop();
        }
        await context.get(IndexAdmin).refresh();
        console.log(
          `Imported ${summary.imported} of ${summary.read} records in ${summary.seconds.toFixed(1)} s ` +
            `(${Math.round(summary.imported / Math.max(summary.seconds, 0.001))}/s): ` +
            `${summary.objectsWritten} media objects written, ${summary.documentsIndexed} documents indexed, ` +
            `${summary.documentsRefused} refused by the index (it holds a newer version; the reconciler repairs them), ` +
            `${summary.skippedDeleted} skipped: deleted, ${summary.invalid} invalid.`,
        );
        for (const problem of summary.problems) console.log(`  ${problem}`);
      } finally {
        if (showBar) bar.stop();
      }
    });
  });

program
  .command('languages')
  .description(
    "detect the language of videos whose language is undetermined ('und': those stored before videos had one) from their title and description, and index them",
  )
  .option('--batch-size <n>', 'videos per batch', positiveInt, 500)
  .option('--no-progress', 'no progress lines (for logs and CI)')
  .action(async (options: { batchSize: number; progress: boolean }) => {
    await withWorkerContext(loadConfig(), async (context) => {
      const summary = await context.get(LanguageBackfill).run({
        batchSize: options.batchSize,
        onProgress: ({ read, detected }) => {
          if (options.progress) console.log(`languages: ${read} videos read, ${detected} detected`);
        },
      });
      await context.get(IndexAdmin).refresh();
      console.log(
        `Detected the language of ${summary.detected} of ${summary.read} undetermined videos in ` +
          `${summary.seconds.toFixed(1)} s (the others' text is too short to tell): ` +
          `${summary.documentsIndexed} documents indexed, ${summary.documentsRefused} refused by the index ` +
          '(it holds a newer version; the reconciler repairs them).',
      );
    });
  });

program
  .command('reindex')
  .description(
    'rebuild the search index from MySQL into a new index and swap the alias (searches keep working)',
  )
  .option(
    '--batch-size <n>',
    'rows read from MySQL at a time (bulk requests are cut by size)',
    positiveInt,
    REINDEX_BATCH,
  )
  .option('--no-progress', 'no progress bar (for logs and CI)')
  .action(async (options: { batchSize: number; progress: boolean }) => {
    const config = loadConfig();
    await withWorkerContext(config, async (context) => {
      const total = await context.get(VideoRepository).count();
      const showBar = options.progress && process.stdout.isTTY;
      const bar = new SingleBar(
        {
          format:
            'reindex [{bar}] {percentage}% | {value}/{total} documents | {rate} docs/s | {duration_formatted}',
          hideCursor: true,
        },
        Presets.shades_classic,
      );
      const started = performance.now();
      try {
        if (showBar) bar.start(total, 0, { rate: 0 });
        const result = await context.get(ReindexService).rebuild({
          batchSize: options.batchSize,
          onProgress: ({ documents }) => {
            if (showBar)
              bar.update(documents, { rate: Math.round(documents / ((performance.now() - started) / 1000)) });
          },
        });
        if (showBar) bar.stop();
        console.log(
          `Reindexed ${result.documents} documents into ${result.index} in ${result.seconds.toFixed(1)} s ` +
            `(${Math.round(result.documents / Math.max(result.seconds, 0.001))}/s); ${result.caughtUp} caught up; ` +
            `alias ${config.ELASTICSEARCH_INDEX} moved from ${result.previous.join(', ') || 'nothing'}.`,
        );
      } finally {
        if (showBar) bar.stop();
      }
    });
  });

program
  .command('reconcile')
  .description(
    'repair drift: deletions MySQL forgot (a restored backup), missing, stale, ahead or orphaned documents',
  )
  .action(async () => {
    await withWorkerContext(loadConfig(), async (context) => {
      const result = await context.get(IndexReconciler).reconcile();
      console.log(
        `${result.replayed} deletions re-applied from the ledger. ` +
          `Checked ${result.checked} videos: ${result.missing} missing and ${result.stale} stale documents rewritten, ` +
          `${result.ahead} documents ahead of their row rewritten, ${result.removed} orphaned documents removed.`,
      );
    });
  });

program
  .command('scrub-ledger')
  .description(
    'rewrite deletion ledger entries written before they were impersonal (once, after the upgrade)',
  )
  .action(async () => {
    await withWorkerContext(loadConfig(), async (context) => {
      const result = await context.get(DeletionLedger).scrub();
      console.log(`Read ${result.read} ledger entries, rewrote ${result.rewritten} that named a person.`);
    });
  });

program
  .command('sweep')
  .description('run the purge sweep now: enqueue every due purge and every unfinished deletion')
  .action(async () => {
    await withWorkerContext(loadConfig(), async (context) => {
      const result = await context.get(PurgeSweepHandler).handle();
      console.log(`Enqueued ${result.due} due purge(s) and ${result.deleting} unfinished deletion(s).`);
    });
  });

const webhooks = program.command('webhooks').description('webhook deliveries (docs/contract.md §10.4)');

webhooks
  .command('list')
  .description('list deliveries that have failed at least once: dead ones first, then those being retried')
  .option('--limit <n>', 'at most this many', positiveInt, 100)
  .action(async (options: { limit: number }) => {
    await withWorkerContext(loadConfig(), async (context) => {
      const failing = await context.get(OutboxRepository).failing(options.limit);
      for (const delivery of failing) console.log(JSON.stringify(delivery));
      if (failing.length === 0) console.log('No failing deliveries.');
    });
  });

webhooks
  .command('retry')
  .description('make failing and dead deliveries due now, with a new retry window (the worker sends them)')
  .option('--event <id>', "only this event's deliveries", (value: string) => {
    if (!isValidVideoId(value)) throw new InvalidArgumentError('must be an event id (a UUID)');
    return normalizeId(value);
  })
  .action(async (options: { event?: string }) => {
    await withWorkerContext(loadConfig(), async (context) => {
      const count = await context.get(OutboxRepository).retryFailing(new Date(), options.event);
      console.log(`${count} deliver${count === 1 ? 'y is' : 'ies are'} due again.`);
    });
  });

/** The API refuses a token whose subject breaks the author id rule: none is signed. */
const subject = (value: string) => {
  if (!isValidSubject(value)) throw new InvalidArgumentError(SUBJECT_RULE);
  return value;
};

program
  .command('token')
  .description('print a signed development token (needs JWT_SECRET)')
  .requiredOption('--sub <id>', "the subject: the caller's author id", subject)
  .option('--role <role...>', 'roles to grant, e.g. admin', [])
  .option('--ttl <duration>', 'lifetime, e.g. 30m, 1h, 7d', '1h')
  .action((options: { sub: string; role: string[]; ttl: string }) => {
    const config = loadConfig();
    if (!config.JWT_SECRET)
      throw new InvalidArgumentError('JWT_SECRET must be set to sign development tokens');
    const ttlSeconds = parseTtl(options.ttl);
    const tooLong = ttlProblem(ttlSeconds, config.JWT_MAX_LIFETIME);
    if (tooLong) program.error(`error: ${tooLong}`);
    console.log(
      signDevToken({
        secret: config.JWT_SECRET,
        sub: options.sub,
        roles: options.role,
        ttlSeconds,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
      }),
    );
  });

program
  .command('config-doc')
  .description('print the configuration reference, docs/configuration.md, from the config schema')
  .action(() => {
    process.stdout.write(configReference());
  });

program.parseAsync(process.argv).catch(exitOnStartupError);

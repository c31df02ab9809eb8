import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { parseRules } from '@app/shared/synonyms/synonym-rules';
import { SynonymSetRepository, type StoredSynonymSet } from '@app/shared/synonyms/synonym-set.repository';
import { SynonymTable } from '@app/shared/synonyms/synonym-table';

/**
 * The synonym set this API process searches with (docs/contract.md §7.3), compiled once per save.
 * MySQL holds the set; every process asks it for the set's version every
 * `SYNONYMS_REFRESH_INTERVAL_MS` (one row's column) and reads the rules only when it moved, so a
 * set saved through any process is in force on all of them within that interval, with no reindex,
 * and after a restart. A process that saves a set uses it at once. While MySQL cannot be read, the
 * set in force stays; Redis plays no part.
 */
@Injectable()
export class CurrentSynonyms implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Synonyms');
  private installed = { version: -1, table: SynonymTable.EMPTY };
  /** Saves made by this process: a read begun before one must not replace what it installed. */
  private saves = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly repository: SynonymSetRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The set in force: searches and suggestions read it per request. */
  get table(): SynonymTable {
    return this.installed.table;
  }

  /** Before the process serves: its first search already uses the saved set. */
  async onApplicationBootstrap(): Promise<void> {
    await this.refresh();
    this.schedule();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** A set this process has just saved, in force here before its save is answered. */
  saved(set: StoredSynonymSet): void {
    this.saves += 1;
    this.install(set);
  }

  /** Reads the set again when its version moved; a failed read keeps the set in force. */
  async refresh(): Promise<void> {
    const saves = this.saves;
    try {
      if ((await this.repository.version()) === this.installed.version) return;
      const set = await this.repository.read();
      if (saves === this.saves) this.install(set);
    } catch (error) {
      this.logger.warn(`the synonym set could not be read; the one in force stays: ${String(error)}`);
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.refresh().finally(() => this.schedule());
    }, this.config.SYNONYMS_REFRESH_INTERVAL_MS);
    this.timer.unref();
  }

  private install(set: StoredSynonymSet): void {
    const { rules, problems } = parseRules(set.rules);
    // Saved rules were checked by the same parser: one refused now was saved by an older version.
    for (const problem of problems)
      this.logger.warn(
        `synonym rule ${problem.index} of version ${set.version} is left out: ${problem.reason}`,
      );
    this.installed = { version: set.version, table: new SynonymTable(rules) };
    this.logger.log(`synonym set version ${set.version} in force: ${rules.length} rules`);
  }
}

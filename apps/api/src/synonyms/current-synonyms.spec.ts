import { ConsoleLogger, Logger } from '@nestjs/common';
import type { AppConfig } from '@app/shared/config/config.schema';
import type { StoredSynonymSet, SynonymSetRepository } from '@app/shared/synonyms/synonym-set.repository';
import { CurrentSynonyms } from './current-synonyms';

/** MySQL's row, and a read that can be held until the test lets it answer. */
class FakeSets {
  set: StoredSynonymSet = { version: 0, digest: 'd0', rules: [] };
  failing = false;
  held: (() => void) | undefined;
  reads = 0;

  version(): Promise<number> {
    return this.failing ? Promise.reject(new Error('MySQL is away')) : Promise.resolve(this.set.version);
  }

  async read(): Promise<StoredSynonymSet> {
    this.reads += 1;
    const answer = this.set;
    if (this.held === undefined) return answer;
    await new Promise<void>((done) => (this.held = done));
    return answer;
  }
}

const found = (current: CurrentSynonyms, stem: string) =>
  current.table.match([stem]).flatMap((match) => match.alternatives.map((term) => term.stems.join(' ')));

describe('CurrentSynonyms', () => {
  let sets: FakeSets;

  // Its lines about each set installed are for operators, not for the test's output.
  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  afterAll(() => {
    Logger.overrideLogger(new ConsoleLogger());
  });

  let current: CurrentSynonyms;

  beforeEach(() => {
    sets = new FakeSets();
    current = new CurrentSynonyms(
      sets as unknown as SynonymSetRepository,
      {
        SYNONYMS_REFRESH_INTERVAL_MS: 60_000,
      } as AppConfig,
    );
  });

  afterEach(() => current.onApplicationShutdown());

  it('reads the saved set before serving, and again only when its version moved', async () => {
    sets.set = { version: 3, digest: 'd3', rules: ['js, javascript'] };
    await current.onApplicationBootstrap();
    expect(found(current, 'js')).toEqual(['javascript']);
    await current.refresh();
    expect(sets.reads).toBe(1);
    sets.set = { version: 4, digest: 'd4', rules: ['k8s => kubernetes'] };
    await current.refresh();
    expect([found(current, 'js'), found(current, 'k8s')]).toEqual([[], ['kubernet']]);
  });

  it('keeps the set in force while MySQL cannot be read', async () => {
    sets.set = { version: 1, digest: 'd1', rules: ['js, javascript'] };
    await current.refresh();
    sets.failing = true;
    await current.refresh();
    expect(found(current, 'js')).toEqual(['javascript']);
  });

  it('never lets a read begun before a save of its own replace what that save installed', async () => {
    sets.set = { version: 1, digest: 'd1', rules: ['old, rule'] };
    sets.held = () => undefined;
    const reading = current.refresh();
    await new Promise((done) => setImmediate(done));
    current.saved({ version: 2, digest: 'd2', rules: ['new, rule'] });
    sets.held();
    await reading;
    expect(found(current, 'new')).toEqual(['rule']);
  });
});

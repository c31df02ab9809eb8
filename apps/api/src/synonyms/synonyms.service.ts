import { Injectable } from '@nestjs/common';
import { SynonymSetRepository, type StoredSynonymSet } from '@app/shared/synonyms/synonym-set.repository';
import { matchesStrongly, type TagList } from '../common/entity-tags';
import { CurrentSynonyms } from './current-synonyms';

/**
 * A set's entity tag: its version and the start of its rules' digest, so a tag names the content
 * too (a database restored from a backup may count a version again with other rules).
 */
export const synonymSetTag = (set: Pick<StoredSynonymSet, 'version' | 'digest'>) =>
  `${set.version}-${set.digest.slice(0, 16)}`;

/** Reading and replacing the search's synonym set (docs/contract.md §7.3). */
@Injectable()
export class SynonymsService {
  constructor(
    private readonly repository: SynonymSetRepository,
    private readonly current: CurrentSynonyms,
  ) {}

  /** The saved set, as MySQL holds it. */
  read(): Promise<StoredSynonymSet> {
    return this.repository.read();
  }

  /**
   * Replaces the whole set (its rules checked by the route's schema) unless `ifMatch` names no tag
   * of the set as it is (undefined: nothing saved). The saved set is in force on this process
   * before this returns, and on the others within their refresh interval.
   */
  async replace(rules: string[], ifMatch: TagList | undefined): Promise<StoredSynonymSet | undefined> {
    const saved = await this.repository.replace(
      rules,
      (set) => ifMatch === undefined || matchesStrongly(ifMatch, synonymSetTag(set)),
      new Date(),
    );
    if (saved) this.current.saved(saved);
    return saved;
  }
}

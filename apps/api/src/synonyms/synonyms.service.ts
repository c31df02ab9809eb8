import { Injectable } from '@nestjs/common';
import { ProblemException } from '@app/shared/http/problem';
import { parseRules } from '@app/shared/synonyms/synonym-rules';
import { SynonymSetRepository, type StoredSynonymSet } from '@app/shared/synonyms/synonym-set.repository';
import { cappedProblems } from '../common/json-body';
import { matchesStrongly, type TagList } from '../common/entity-tags';
import { CurrentSynonyms } from './current-synonyms';

/**
 * A set's entity tag: its version and the start of its rules' digest, so a tag names the content
 * too (a database restored from a backup may count a version again with other rules).
 */
export const synonymSetTag = (set: Pick<StoredSynonymSet, 'version' | 'digest'>) =>
  `${set.version}-${set.digest.slice(0, 16)}`;

/** A rule as a problem quotes it: enough to find it. */
const quoted = (rule: string) =>
  JSON.stringify([...rule].length > 40 ? `${[...rule].slice(0, 40).join('')}…` : rule);

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
   * Replaces the whole set, unless a rule is not one (400 naming each, nothing saved) or `ifMatch`
   * names no tag of the set as it is (undefined: nothing saved). The saved set is in force on this
   * process before this returns, and on the others within their refresh interval.
   */
  async replace(rules: string[], ifMatch: TagList | undefined): Promise<StoredSynonymSet | undefined> {
    const { problems } = parseRules(rules);
    if (problems.length > 0) {
      throw ProblemException.badRequest(
        cappedProblems(
          problems.map(({ index, reason }) => ({
            name: `rules[${index}]`,
            reason: `rules[${index}] ${quoted(rules[index]!)} ${reason}`,
          })),
          'rules',
        ),
      );
    }
    const saved = await this.repository.replace(
      rules,
      (set) => ifMatch === undefined || matchesStrongly(ifMatch, synonymSetTag(set)),
      new Date(),
    );
    if (saved) this.current.saved(saved);
    return saved;
  }
}

import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SYNONYM_SET_ID } from './synonym-set.entity';

/** A saved synonym set: its rules as given, the count of saves, and the digest of the rules. */
export interface StoredSynonymSet {
  version: number;
  digest: string;
  rules: string[];
}

/** The digest a set's row holds: SHA-256 of its rules as stored. */
export const rulesDigest = (stored: string) => createHash('sha256').update(stored).digest('hex');

interface Row {
  version: number | string;
  digest: string;
  rules: string;
}

const setOf = (row: Row): StoredSynonymSet => ({
  version: Number(row.version),
  digest: row.digest,
  rules: JSON.parse(row.rules) as string[],
});

/** Plain data access for the synonym set; the rules are the API's synonym services'. */
@Injectable()
export class SynonymSetRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The set's version alone: the cheap question every API process asks every few seconds. */
  async version(): Promise<number> {
    const rows: { version: number | string }[] = await this.dataSource.query(
      'SELECT version FROM search_synonyms WHERE id = ?',
      [SYNONYM_SET_ID],
    );
    return Number(rows[0]?.version ?? 0);
  }

  async read(): Promise<StoredSynonymSet> {
    const rows: Row[] = await this.dataSource.query(
      'SELECT version, digest, rules FROM search_synonyms WHERE id = ?',
      [SYNONYM_SET_ID],
    );
    return rows[0] ? setOf(rows[0]) : { version: 0, digest: rulesDigest('[]'), rules: [] };
  }

  /**
   * Replaces the set with `rules` when `allowed` says yes to the set as it is (read under the
   * row's lock, so two saves cannot both pass the same check): the saved set, or undefined when
   * refused and nothing changed.
   */
  async replace(
    rules: readonly string[],
    allowed: (current: StoredSynonymSet) => boolean,
    now: Date,
  ): Promise<StoredSynonymSet | undefined> {
    const stored = JSON.stringify(rules);
    const digest = rulesDigest(stored);
    return this.dataSource.transaction(async (manager) => {
      const rows: Row[] = await manager.query(
        'SELECT version, digest, rules FROM search_synonyms WHERE id = ? FOR UPDATE',
        [SYNONYM_SET_ID],
      );
      const current = rows[0] ? setOf(rows[0]) : { version: 0, digest: rulesDigest('[]'), rules: [] };
      if (!allowed(current)) return undefined;
      const version = current.version + 1;
      await manager.query(
        `INSERT INTO search_synonyms (id, version, digest, rules, updated_at) VALUES (?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE version = VALUES(version), digest = VALUES(digest), rules = VALUES(rules),
           updated_at = VALUES(updated_at)`,
        [SYNONYM_SET_ID, version, digest, stored, now],
      );
      return { version, digest, rules: [...rules] };
    });
  }
}

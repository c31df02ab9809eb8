import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The one row that holds the search's synonym set (docs/contract.md §7.3). */
export const SYNONYM_SET_ID = 1;

/**
 * The search's synonym set: one row, replaced whole by each save, so a save is one statement and
 * a compare-and-set is a row lock. `version` counts the saves; `digest` is the SHA-256 of `rules`,
 * so an entity tag names the content too (a database restored from a backup may count a version
 * again with other rules).
 */
@Entity({ name: 'search_synonyms' })
export class SynonymSetEntity {
  @PrimaryColumn({ type: 'tinyint', unsigned: true })
  id!: number;

  @Column({ type: 'int', unsigned: true })
  version!: number;

  @Column({ type: 'char', length: 64, charset: 'ascii', collation: 'ascii_bin' })
  digest!: string;

  /** The rules as they were given, a JSON array of strings. */
  @Column({ type: 'mediumtext' })
  rules!: string;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}

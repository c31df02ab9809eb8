import type { QueryRunner } from 'typeorm';

/**
 * Identities (an author id, a caller's `sub`) are opaque byte strings (docs/contract.md §2): two ids
 * that differ only by case, a trailing space, an accent, a normal form or an invisible character
 * are two people. The columns that hold them use a binary collation without padding, so MySQL
 * compares what the code compares. `utf8mb4_bin` is not enough: it pads, so `'a' = 'a '`.
 * MariaDB names that collation `utf8mb4_nopad_bin`; MySQL 8 names it `utf8mb4_0900_bin`.
 */
export const EXACT_COLLATIONS = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'] as const;

export type ExactCollation = (typeof EXACT_COLLATIONS)[number];

/** The exact collation this server has (the first of EXACT_COLLATIONS it knows). */
export async function exactCollation(runner: Pick<QueryRunner, 'query'>): Promise<ExactCollation> {
  const rows = (await runner.query(
    'SELECT collation_name AS name FROM information_schema.collations WHERE collation_name IN (?)',
    [EXACT_COLLATIONS],
  )) as { name: string }[];
  const found = EXACT_COLLATIONS.find((name) => rows.some((row) => row.name === name));
  if (!found) throw new Error(`the server has none of the collations ${EXACT_COLLATIONS.join(', ')}`);
  return found;
}

/** A column definition for an identity: `VARCHAR(128)` in utf8mb4, compared byte for byte. */
export function identityColumn(collation: ExactCollation, nullable: boolean): string {
  return `VARCHAR(128) CHARACTER SET utf8mb4 COLLATE ${collation} ${nullable ? 'NULL' : 'NOT NULL'}`;
}

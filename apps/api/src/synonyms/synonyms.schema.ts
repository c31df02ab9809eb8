import { z } from 'zod';
import {
  MAX_RULE_CHARACTERS,
  MAX_RULE_TERMS,
  MAX_SYNONYM_RULES,
  MAX_TERM_CHARACTERS,
} from '@app/shared/synonyms/synonym-rules';

/**
 * The most bytes `PUT /api/search/synonyms` reads: the largest set of plain-letter rules fits
 * (10,000 rules of ten 64-letter terms with their separators, quoted, about 6.6 MB). A set of
 * rules in other scripts, whose letters take more bytes, is bounded by this too (docs/security.md).
 */
export const MAX_SYNONYMS_BODY_BYTES = 8 * 1024 * 1024;

const rule = z.string().meta({
  description:
    'One rule in the Solr synonym format: equivalent terms separated by commas (`js, javascript`), or terms ' +
    'that also find others, one way (`k8s, kube => kubernetes`). A term is one or more words, compared as the ' +
    `search compares words (any letter case, accents and inflection). At most ${MAX_RULE_TERMS} terms of at most ` +
    `${MAX_TERM_CHARACTERS} characters, and ${MAX_RULE_CHARACTERS} characters in all.`,
  example: 'js, javascript',
});

/** The body of `PUT /api/search/synonyms` and the answer of both synonym routes (docs/contract.md §7.3). */
export const synonymSetSchema = z.strictObject({
  rules: z
    .array(rule)
    .max(MAX_SYNONYM_RULES)
    .meta({
      description: `the whole set, at most ${MAX_SYNONYM_RULES} rules; an empty list removes every synonym`,
      example: ['js, javascript', 'k8s => kubernetes'],
    }),
});
export type SynonymSet = z.output<typeof synonymSetSchema>;

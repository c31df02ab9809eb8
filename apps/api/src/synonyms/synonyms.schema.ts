import { z } from 'zod';
import {
  MAX_RULE_CHARACTERS,
  MAX_RULE_TERMS,
  MAX_SYNONYM_RULES,
  MAX_TERM_CHARACTERS,
  parseRules,
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

/** A rule as a problem quotes it: enough to find it. */
const quoted = (text: string) =>
  JSON.stringify([...text].length > 40 ? `${[...text].slice(0, 40).join('')}…` : text);

/**
 * The body of `PUT /api/search/synonyms` and the answer of both synonym routes (docs/contract.md
 * §7.3): each rule that is not one is named by its index (`rules[3]`), with why.
 */
export const synonymSetSchema = z.strictObject({
  rules: z
    .array(rule)
    .max(MAX_SYNONYM_RULES)
    .superRefine((rules, context) => {
      for (const { index, reason } of parseRules(rules).problems)
        context.addIssue({ code: 'custom', path: [index], message: `${quoted(rules[index]!)} ${reason}` });
    })
    .meta({
      description: `the whole set, at most ${MAX_SYNONYM_RULES} rules; an empty list removes every synonym`,
      example: ['js, javascript', 'k8s => kubernetes'],
    }),
});
export type SynonymSet = z.output<typeof synonymSetSchema>;

import { foldedWords } from '../search/search-text';

/**
 * Synonym rules in the Solr format (docs/contract.md §7.3): `a, b, c` (the terms are equivalent:
 * each finds the others) or `a, b => c, d` (a or b also finds c and d; c and d do not find a or b).
 * A term is one or more words; it is compared as the search compares words (folded, stemmed:
 * search-text.ts), so `JS` and `js` are one term and punctuation separates words.
 */

/** The most rules a set holds. */
export const MAX_SYNONYM_RULES = 10_000;
/** The most terms a rule holds, on both sides of `=>` together. */
export const MAX_RULE_TERMS = 10;
/** The longest term, in characters (code points). */
export const MAX_TERM_CHARACTERS = 64;
/** The longest rule, in characters: ten terms of the longest, their separators and some spaces. */
export const MAX_RULE_CHARACTERS = 1_000;

export type SynonymRule =
  { kind: 'equivalent'; terms: string[] } | { kind: 'explicit'; from: string[]; to: string[] };

export type ParsedRule = { ok: true; rule: SynonymRule } | { ok: false; reason: string };

const ARROW = '=>';
/** Control characters (C0, DEL, C1) and unpaired surrogates, which no term holds. */
const UNREADABLE = /[\p{Cc}\p{Cs}]/u;

const characters = (text: string) => [...text].length;

/** A term as the reason names it: quoted, cut short when long. */
const quoted = (term: string) =>
  JSON.stringify(characters(term) > 24 ? `${[...term].slice(0, 24).join('')}…` : term);

/** The terms of one side of a rule, or why not; `where` names the side in a reason (` before "=>"`). */
function termsOf(side: string, where: string): { ok: true; terms: string[] } | { ok: false; reason: string } {
  if (side.trim() === '') return { ok: false, reason: `has no term${where}` };
  const terms = side.split(',').map((term) => term.trim());
  for (const [at, term] of terms.entries()) {
    if (term === '')
      return { ok: false, reason: `term ${at + 1}${where} is empty (two commas, or one at an end)` };
    if (characters(term) > MAX_TERM_CHARACTERS)
      return { ok: false, reason: `term ${quoted(term)} is longer than ${MAX_TERM_CHARACTERS} characters` };
    if (foldedWords(term).length === 0)
      return {
        ok: false,
        reason: `term ${quoted(term)} has no letter or digit: the search would never see it`,
      };
  }
  return { ok: true, terms };
}

/** One rule of the Solr format, or why it is not one (the reason reads after the rule's name). */
export function parseRule(text: string): ParsedRule {
  if (UNREADABLE.test(text))
    return { ok: false, reason: 'holds a control character or an unpaired surrogate' };
  if (characters(text) > MAX_RULE_CHARACTERS)
    return { ok: false, reason: `is longer than ${MAX_RULE_CHARACTERS} characters` };
  const sides = text.split(ARROW);
  if (sides.length > 2) return { ok: false, reason: `has "${ARROW}" more than once` };
  const parsed = sides.map((side, at) =>
    termsOf(side, sides.length === 1 ? '' : ` ${at === 0 ? 'before' : 'after'} "${ARROW}"`),
  );
  const failed = parsed.find((side) => !side.ok);
  if (failed && !failed.ok) return failed;
  const [from, to] = parsed.map((side) => (side.ok ? side.terms : []));
  const count = from!.length + (to?.length ?? 0);
  if (count > MAX_RULE_TERMS) return { ok: false, reason: `has ${count} terms: at most ${MAX_RULE_TERMS}` };
  if (to) return { ok: true, rule: { kind: 'explicit', from: from!, to } };
  if (from!.length < 2)
    return { ok: false, reason: `has one term: give equivalent terms (a, b) or a mapping (a ${ARROW} b)` };
  return { ok: true, rule: { kind: 'equivalent', terms: from! } };
}

/** A rule in the canonical Solr form: terms separated by `, `, sides by ` => `. */
export function formatRule(rule: SynonymRule): string {
  return rule.kind === 'equivalent'
    ? rule.terms.join(', ')
    : `${rule.from.join(', ')} ${ARROW} ${rule.to.join(', ')}`;
}

/** A refused rule of a set: its index and why. */
export interface RuleProblem {
  index: number;
  reason: string;
}

/** The rules of a set, each parsed, and the problems of those that are not rules. */
export function parseRules(texts: readonly string[]): { rules: SynonymRule[]; problems: RuleProblem[] } {
  const rules: SynonymRule[] = [];
  const problems: RuleProblem[] = [];
  texts.forEach((text, index) => {
    const parsed = parseRule(text);
    if (parsed.ok) rules.push(parsed.rule);
    else problems.push({ index, reason: parsed.reason });
  });
  return { rules, problems };
}

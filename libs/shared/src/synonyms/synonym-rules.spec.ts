import fc from 'fast-check';
import {
  formatRule,
  MAX_RULE_CHARACTERS,
  MAX_RULE_TERMS,
  MAX_TERM_CHARACTERS,
  parseRule,
  parseRules,
  type SynonymRule,
} from './synonym-rules';

/** Words of every kind a rule holds: letters, digits, accents, other scripts. */
const word = fc
  .array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789éßøкир中文'), {
    minLength: 1,
    maxLength: 12,
  })
  .map((letters) => letters.join(''));
/** A term: one to three words, within the length bound. */
const term = fc
  .array(word, { minLength: 1, maxLength: 3 })
  .map((words) => words.join(' '))
  .filter((text) => [...text].length <= MAX_TERM_CHARACTERS);
const terms = (min: number, max: number) => fc.array(term, { minLength: min, maxLength: max });

export const validRule: fc.Arbitrary<SynonymRule> = fc.oneof(
  terms(2, MAX_RULE_TERMS).map((list): SynonymRule => ({ kind: 'equivalent', terms: list })),
  fc
    .integer({ min: 1, max: MAX_RULE_TERMS - 1 })
    .chain((from) => fc.tuple(terms(from, from), terms(1, MAX_RULE_TERMS - from)))
    .map(([from, to]): SynonymRule => ({ kind: 'explicit', from, to })),
);

/** Spaces a person may put around separators. */
const spacing = fc.constantFrom('', ' ', '  ', '   ');

/** A rule written loosely: any spacing around its terms and separators. */
const written = (rule: SynonymRule) =>
  fc.array(spacing, { minLength: 40, maxLength: 40 }).map((spaces) => {
    let at = 0;
    const pad = (text: string) => `${spaces[at++ % 40]}${text}${spaces[at++ % 40]}`;
    const side = (list: string[]) => list.map(pad).join(',');
    return rule.kind === 'equivalent' ? side(rule.terms) : `${side(rule.from)}=>${side(rule.to)}`;
  });

/** Rules that are not rules, each with a word of the reason it is refused. */
const badRule: fc.Arbitrary<[string, RegExp]> = fc.oneof(
  term.map((t): [string, RegExp] => [`${t}, , ${t}`, /empty/]),
  term.map((t): [string, RegExp] => [`${t},`, /empty/]),
  term.map((t): [string, RegExp] => [`${t} => ${t} => ${t}`, /more than once/]),
  term.map((t): [string, RegExp] => [`=> ${t}`, /no term before/]),
  term.map((t): [string, RegExp] => [`${t} =>  `, /no term after/]),
  terms(MAX_RULE_TERMS + 1, MAX_RULE_TERMS + 4).map((list): [string, RegExp] => [
    list.join(', '),
    /at most 10/,
  ]),
  term.map((t): [string, RegExp] => [`${t}, ${'x'.repeat(MAX_TERM_CHARACTERS + 1)}`, /longer than 64/]),
  term.map((t): [string, RegExp] => [t, /one term/]),
  term.map((t): [string, RegExp] => [`${t}, ++`, /no letter or digit/]),
  term.map((t): [string, RegExp] => [`${t}, a\u0007b`, /control character/]),
  term.map((t): [string, RegExp] => [`${t}, a\ud800`, /unpaired surrogate/]),
  fc.constant<[string, RegExp]>([`a,${' '.repeat(MAX_RULE_CHARACTERS)}b`, /longer than 1000/]),
  fc.constant<[string, RegExp]>(['', /no term/]),
);

describe('synonym rules (the Solr format)', () => {
  it('reads equivalences and one-way mappings, terms trimmed', () => {
    expect(parseRule('js, JavaScript')).toEqual({
      ok: true,
      rule: { kind: 'equivalent', terms: ['js', 'JavaScript'] },
    });
    expect(parseRule(' k8s ,kube=> kubernetes ')).toEqual({
      ok: true,
      rule: { kind: 'explicit', from: ['k8s', 'kube'], to: ['kubernetes'] },
    });
    expect(parseRule('ml, machine learning')).toMatchObject({
      ok: true,
      rule: { terms: ['ml', 'machine learning'] },
    });
  });

  it('formats a parsed rule back to the same rule (fast-check)', () => {
    fc.assert(
      fc.property(validRule, (rule) => {
        expect(parseRule(formatRule(rule))).toEqual({ ok: true, rule });
      }),
    );
  });

  it('reads a rule however it is spaced (fast-check)', () => {
    fc.assert(
      fc.property(
        validRule.chain((rule) => written(rule).map((text) => [rule, text] as const)),
        ([rule, text]) => {
          expect(parseRule(text)).toEqual({ ok: true, rule });
        },
      ),
    );
  });

  it('refuses a bad rule, saying why (fast-check)', () => {
    fc.assert(
      fc.property(badRule, ([text, why]) => {
        const parsed = parseRule(text);
        expect(parsed.ok).toBe(false);
        if (!parsed.ok) expect(parsed.reason).toMatch(why);
      }),
    );
  });

  it('names every bad rule of a set by its index, and only those (fast-check)', () => {
    const set = fc.array(
      fc.oneof(
        validRule.map((rule) => ({ text: formatRule(rule), bad: false })),
        badRule.map(([text]) => ({ text, bad: true })),
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(set, (entries) => {
        const { rules, problems } = parseRules(entries.map((entry) => entry.text));
        expect(problems.map((problem) => problem.index)).toEqual(
          entries.flatMap((entry, index) => (entry.bad ? [index] : [])),
        );
        expect(rules).toHaveLength(entries.filter((entry) => !entry.bad).length);
      }),
    );
  });
});

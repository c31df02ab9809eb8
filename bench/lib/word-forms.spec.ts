import fc from 'fast-check';
import { inflections } from './language-queries';
import { derivationsAmong, ENDINGS, formsAmong, MIN_STEM, type InflectingLanguage } from './word-forms';

describe('formsAmong', () => {
  it("ties a language's forms of a word by its endings, and nothing else", () => {
    const spanish = formsAmong(
      ['proyectos', 'proyecto', 'programación', 'programar', 'programa', 'casa', 'caso', 'python'],
      ENDINGS.spa,
    );
    expect(spanish.get('proyectos')).toEqual(['proyecto']);
    expect(spanish.get('programación')).toEqual(['programa', 'programar']);
    // A short stem ties words that are not forms of each other.
    expect(spanish.has('casa')).toBe(false);
    expect(spanish.has('python')).toBe(false);
    const russian = formsAmong(
      ['подход', 'подхода', 'подходом', 'экспериментальный', 'экспериментального'],
      ENDINGS.rus,
    );
    expect(russian.get('подход')).toEqual(['подхода', 'подходом']);
    expect(russian.get('экспериментальный')).toEqual(['экспериментального']);
  });

  it('gives forms that are other words of the list, sharing a long stem by two endings, both ways', () => {
    const language = fc.constantFrom(...(Object.keys(ENDINGS) as InflectingLanguage[]));
    const stem = fc.string({ unit: fc.constantFrom(...'abcdeilmnoprstu'), minLength: 4, maxLength: 9 });
    fc.assert(
      fc.property(language, fc.array(fc.tuple(stem, fc.nat()), { maxLength: 30 }), (code, parts) => {
        const endings = ['', ...ENDINGS[code].split(' ')];
        const words = parts.map(([base, n]) => base + endings[n % endings.length]);
        const forms = formsAmong(words, ENDINGS[code]);
        for (const [word, found] of forms)
          for (const form of found) {
            expect(form).not.toBe(word);
            expect(words).toContain(form);
            expect(forms.get(form)).toContain(word);
            const shared = endings.some(
              (a) =>
                word.endsWith(a) &&
                word.length - a.length >= MIN_STEM &&
                endings.some((b) => form === word.slice(0, word.length - a.length) + b),
            );
            expect(shared).toBe(true);
          }
      }),
    );
  });
});

describe('derivationsAmong', () => {
  it("relates English words by derivation, leaving out what the 'other inflection' rules give", () => {
    const words = [
      'founding',
      'foundation',
      'found',
      'deploy',
      'deploys',
      'deployed',
      'deployment',
      'function',
      'functional',
    ];
    const derived = derivationsAmong(words);
    expect(derived.get('founding')).toContain('foundation');
    expect(derived.get('deploy')).toEqual(['deployment']);
    expect(derived.get('function')).toEqual(['functional']);
    for (const [word, found] of derived)
      for (const form of found) {
        expect(inflections(word)).not.toContain(form);
        expect(form).not.toBe(word);
      }
  });
});

import {
  iso6393,
  languageOf,
  languageText,
  loadLanguageDetector,
  MIN_DETECTED_LETTERS,
  tooShortToDetect,
} from './language-detector';

describe('languageOf', () => {
  const asked: string[] = [];
  const detector =
    (verdict: string) =>
    (text: string): string => {
      asked.push(text);
      return verdict;
    };

  beforeEach(() => (asked.length = 0));

  it('names the detected language in ISO 639-3, macrolanguages as the sample writes them', () => {
    const text = 'Aprendiendo Python con ejemplos prácticos';
    expect(languageOf(text, detector('es'))).toBe('spa');
    expect(languageOf(text, detector('zh'))).toBe('zho');
    expect(languageOf(text, detector('no'))).toBe('nor');
    expect(asked).toEqual([text, text, text]);
  });

  it('is undetermined when the detector has no verdict, or one with no ISO 639-3 code', () => {
    expect(languageOf('Aprendiendo Python con ejemplos prácticos', detector(''))).toBe('und');
    expect(iso6393('xx')).toBe('und');
  });

  it(`is undetermined, without asking, for Latin-script text of fewer than ${MIN_DETECTED_LETTERS} letters`, () => {
    expect(languageOf('Keynote', detector('en'))).toBe('und');
    // Digits, punctuation and white space are no letters.
    expect(languageOf('PyCon 2019 — Día 1: apertura!', detector('es'))).toBe('und');
    expect(asked).toEqual([]);
    expect(languageOf('a'.repeat(MIN_DETECTED_LETTERS), detector('en'))).toBe('eng');
  });

  it('detects short text with letters of another script: they tell their language in a word', () => {
    expect(tooShortToDetect('Pyramid入門')).toBe(false);
    expect(tooShortToDetect('Доклад')).toBe(false);
    expect(languageOf('파이썬', detector('ko'))).toBe('kor');
    expect(tooShortToDetect('')).toBe(true);
  });

  it('reads the title and the description', () => {
    expect(languageText('Title', 'Description')).toBe('Title\nDescription');
    expect(languageText('Title', '')).toBe('Title');
  });
});

describe('loadLanguageDetector', () => {
  it('loads the detector once, and tells languages of the sample apart', async () => {
    const detector = await loadLanguageDetector();
    expect(await loadLanguageDetector()).toBe(detector);
    expect(
      detector.languageOf(
        languageText(
          'Cómo escribir pruebas automáticas en Python',
          'En esta charla veremos cómo organizar las pruebas de un proyecto y ejecutarlas en cada cambio.',
        ),
      ),
    ).toBe('spa');
    expect(detector.languageOf('Экспериментальный подход к разработке на Python')).toBe('rus');
    expect(detector.languageOf('Pythonで始めるデータ分析の基本')).toBe('jpn');
    expect(detector.languageOf('Testing asynchronous code without tears in Python')).toBe('eng');
    expect(detector.languageOf('Keynote')).toBe('und');
    expect(detector.verdict('Keynote')).toMatch(/^[a-z]{3}$/);
  });
});

import fc from 'fast-check';
import { parse } from 'fast-querystring';
import { parseQueryString, readablePath, UNREADABLE } from './percent-encoding';

describe('parseQueryString', () => {
  it.each([
    ['a lone high surrogate as CESU-8', 'authorId=x%ED%A0%80'],
    ['the last high surrogate', 'authorId=x%ED%AF%BF'],
    ['a lone low surrogate', 'authorId=x%ED%B0%80'],
    ['a reversed pair', 'authorId=x%ED%B0%80%ED%A0%80'],
    ['a byte that is never UTF-8', 'authorId=x%FF'],
    ['an overlong NUL', 'authorId=x%C0%80'],
    ['an overlong slash', 'authorId=x%E0%80%AF'],
    ['a code point beyond U+10FFFF', 'authorId=%F4%90%80%80'],
    ['a truncated sequence', 'authorId=x%E2%82'],
    ['a broken escape', 'authorId=x%ZZ'],
  ])('%s is UNREADABLE, never U+FFFD nor the raw text', (_name, text) => {
    expect(parseQueryString(text)).toEqual({ authorId: UNREADABLE });
  });

  it.each([
    ['U+FFFD itself', 'authorId=x%EF%BF%BD', { authorId: 'x\uFFFD' }],
    ['an escaped percent sign', 'authorId=x%25ED%25A0%2580', { authorId: 'x%ED%A0%80' }],
    ['a plus', 'q=a+b', { q: 'a b' }],
    ['a name alone', 'dryRun', { dryRun: '' }],
    ['an equals sign in a value', 'q=a=b', { q: 'a=b' }],
    ['a repeated name', 'a=1&a=2&a=3', { a: ['1', '2', '3'] }],
    ['an undecodable repetition', 'a=1&a=%FF', { a: ['1', UNREADABLE] }],
    ['an undecodable name, kept as sent', '%FF=1', { '%FF': '1' }],
    ['empty pairs', '&&q=x&', { q: 'x' }],
  ])('%s', (_name, text, expected) => {
    expect({ ...parseQueryString(text) }).toEqual(expected);
  });

  it('reads every well-formed query string as Fastify’s default parser does', () => {
    const part = fc.string({ unit: 'grapheme', maxLength: 12 }).map(encodeURIComponent);
    const pair = fc.tuple(part, part).map(([name, value]) => `${name}=${value}`);
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 6 }), (pairs) => {
        const text = pairs.join('&');
        expect({ ...parseQueryString(text) }).toEqual({ ...parse(text) });
      }),
    );
  });
});

describe('readablePath', () => {
  const marker = encodeURIComponent(UNREADABLE);

  it.each([
    ['/api/authors/x%ED%A0%80/videos', `/api/authors/${marker}/videos`],
    ['/api/authors/%FF/videos?dryRun=true', `/api/authors/${marker}/videos?dryRun=true`],
    ['/api/videos/%FF/%ED%B0%80', `/api/videos/${marker}/${marker}`],
  ])('%s → %s', (url, expected) => {
    expect(readablePath(url)).toBe(expected);
  });

  it.each(['/api/authors/x%EF%BF%BD/videos', '/api/videos/a+b', '/api/videos?q=%FF'])(
    '%s decodes: unchanged (undefined)',
    (url) => {
      expect(readablePath(url)).toBeUndefined();
    },
  );
});

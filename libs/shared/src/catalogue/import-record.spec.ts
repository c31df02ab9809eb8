import fc from 'fast-check';
import { isLanguageCode } from '../language/language-code';
import { importRecordSchema, parseRecordDate, toImportedVideo } from './import-record';

const parse = (value: unknown) => importRecordSchema.parse(value);

/** A record's language is not what these cases are about. */
const undetermined = () => 'und';

describe('parseRecordDate', () => {
  it.each([
    ['2019-05-04', '2019-05-04T00:00:00.000Z'],
    ['2019-05-04T10:30:00', '2019-05-04T10:30:00.000Z'],
    ['2019-05-04T10:30:00+02:00', '2019-05-04T08:30:00.000Z'],
    ['2019-05-04T10:30:00Z', '2019-05-04T10:30:00.000Z'],
  ])('%s → %s', (input, expected) => {
    expect(parseRecordDate(input)?.toISOString()).toBe(expected);
  });

  it.each([null, undefined, '', 'soon'])('%p → null', (input) => {
    expect(parseRecordDate(input)).toBeNull();
  });
});

describe('toImportedVideo', () => {
  const record = {
    slug: 'pycon-us-2019/talk',
    event: 'PyCon US 2019',
    title: '  Async all the things ',
    description: 'line one\r\nline two',
    speakers: ['Ada Lovelace', 'Alan Turing'],
    recorded: '2019-05-04',
    tags: ['python', ' python ', ''],
  };

  it('derives the same ids from the same slug and speaker every time', () => {
    const a = toImportedVideo(parse(record), undetermined);
    const b = toImportedVideo(parse({ ...record, title: 'other' }), undetermined);
    expect(a.content.id).toBe(b.content.id);
    expect(a.content.authorId).toBe(b.content.authorId);
    expect(toImportedVideo(parse({ ...record, slug: 'other/talk' }), undetermined).content.id).not.toBe(
      a.content.id,
    );
  });

  it('owns a video by its first speaker, or by its event when it has none', () => {
    const bySpeaker = toImportedVideo(
      parse({ ...record, slug: 'x/1', speakers: ['Ada Lovelace'] }),
      undetermined,
    );
    const sameSpeaker = toImportedVideo(
      parse({ ...record, slug: 'x/2', speakers: ['ada lovelace', 'Bob'] }),
      undetermined,
    );
    const byEvent = toImportedVideo(parse({ ...record, speakers: [] }), undetermined);
    expect(sameSpeaker.content.authorId).toBe(bySpeaker.content.authorId);
    expect(byEvent.content.authorId).not.toBe(bySpeaker.content.authorId);
  });

  it('keeps an explicit id (normalized) and author', () => {
    const video = toImportedVideo(
      parse({ ...record, id: '123E4567-E89B-42D3-A456-426614174000', authorId: 'u-1' }),
      undetermined,
    );
    expect(video.content.id).toBe('123e4567-e89b-42d3-a456-426614174000');
    expect(video.content.authorId).toBe('u-1');
  });

  it('cleans text, tags and dates', () => {
    const { content } = toImportedVideo(parse(record), undetermined);
    expect(content.title).toBe('Async all the things');
    expect(content.description).toBe('line one\nline two');
    expect(content.tags).toEqual(['python']);
    expect(content.publishedAt?.toISOString()).toBe('2019-05-04T00:00:00.000Z');
  });

  it('writes the default placeholder media, or the listed objects', () => {
    expect(toImportedVideo(parse(record), undetermined).media.map((m) => [m.name, m.contentType])).toEqual([
      ['original.mp4', 'video/mp4'],
      ['thumbnail.jpg', 'image/jpeg'],
    ]);
    expect(
      toImportedVideo(parse({ ...record, media: ['a.vtt'] }), undetermined).media.map((m) => m.name),
    ).toEqual(['a.vtt']);
  });

  it.each([
    ['no id and no slug', { title: 't' }],
    ['an invalid id', { id: 'nope', title: 't' }],
    ['no title', { slug: 's' }],
    ['a media name with a path', { slug: 's', title: 't', media: ['../x'] }],
    ['an empty authorId', { slug: 's', title: 't', authorId: '' }],
    ['an authorId of 129 characters', { slug: 's', title: 't', authorId: '\u{1F600}'.repeat(129) }],
    ['an authorId ending in a lone high surrogate', { slug: 's', title: 't', authorId: 'x\uD800' }],
    ['an authorId with a lone low surrogate', { slug: 's', title: 't', authorId: 'x\uDFFF' }],
    ['an authorId with a reversed pair', { slug: 's', title: 't', authorId: 'x\uDC00\uD800' }],
    ['an authorId with NUL', { slug: 's', title: 't', authorId: 'x\u0000' }],
    ['an authorId with a C1 control', { slug: 's', title: 't', authorId: 'x\u0085' }],
  ])('refuses a record with %s', (_name, value) => {
    expect(importRecordSchema.safeParse(value).success).toBe(false);
  });

  it.each([
    ['U+FFFD itself', 'x\uFFFD'],
    ['128 emoji', '\u{1F600}'.repeat(128)],
    ['a zero-width space', 'acc-\u200bx'],
  ])('keeps an authorId with %s as it is', (_name, authorId) => {
    expect(toImportedVideo(parse({ ...record, authorId }), undetermined).content.authorId).toBe(authorId);
  });

  describe('language (contract §2, §9)', () => {
    it('keeps the language the record gives, without detecting one', () => {
      const detect = jest.fn(() => 'eng');
      expect(toImportedVideo(parse({ ...record, language: 'spa' }), detect).content.language).toBe('spa');
      expect(toImportedVideo(parse({ ...record, language: 'und' }), detect).content.language).toBe('und');
      expect(detect).not.toHaveBeenCalled();
    });

    it.each([
      ['absent', {}],
      ['null', { language: null }],
    ])('detects it from the title and description when the record’s is %s', (_name, language) => {
      const detect = jest.fn(() => 'eng');
      expect(toImportedVideo(parse({ ...record, ...language }), detect).content.language).toBe('eng');
      expect(detect).toHaveBeenCalledWith('Async all the things\nline one\nline two');
    });

    it.each(['', 'es', 'ES', 'Spa', 'spa ', 'español', 'sp1'])(
      'refuses %p, naming the field and the rule',
      (language) => {
        const result = importRecordSchema.safeParse({ ...record, language });
        expect(result.success).toBe(false);
        expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
          ['language', 'must be an ISO 639-3 code: three lowercase letters, such as eng or spa'],
        ]);
      },
    );

    it('refuses a record whose language is any string but three lowercase letters', () => {
      fc.assert(
        fc.property(
          fc.string({ unit: 'binary', maxLength: 5 }).filter((language) => !isLanguageCode(language)),
          (language) => {
            expect(importRecordSchema.safeParse({ ...record, language }).success).toBe(false);
          },
        ),
        { numRuns: 500 },
      );
    });

    it('refuses a language that is not a string', () => {
      expect(importRecordSchema.safeParse({ ...record, language: 3 }).success).toBe(false);
      expect(importRecordSchema.safeParse({ ...record, language: ['eng'] }).success).toBe(false);
    });
  });
});

import { isValidVideoId, normalizeId, uuidV5 } from './uuid';

describe('isValidVideoId (contract §5)', () => {
  const versions = '0123456789abcdef'.split('');
  const variants = '0123456789abcdef'.split('');

  it.each(versions.map((v) => [v, v >= '1' && v <= '8']))('version digit %s accepted: %p', (version, ok) => {
    expect(isValidVideoId(`123e4567-e89b-${version}2d3-a456-426614174000`)).toBe(ok);
  });

  it.each(variants.map((v) => [v, '89ab'.includes(v)]))('variant digit %s accepted: %p', (variant, ok) => {
    expect(isValidVideoId(`123e4567-e89b-42d3-${variant}456-426614174000`)).toBe(ok);
  });

  it.each([
    ['nil', '00000000-0000-0000-0000-000000000000', true],
    ['max', 'ffffffff-ffff-ffff-ffff-ffffffffffff', true],
    ['max in uppercase', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', true],
    ['uppercase', '123E4567-E89B-42D3-A456-426614174000', true],
    ['braces', '{123e4567-e89b-42d3-a456-426614174000}', false],
    ['urn prefix', 'urn:uuid:123e4567-e89b-42d3-a456-426614174000', false],
    ['no hyphens', '123e4567e89b42d3a456426614174000', false],
    ['leading space', ' 123e4567-e89b-42d3-a456-426614174000', false],
    ['trailing space', '123e4567-e89b-42d3-a456-426614174000 ', false],
    ['trailing newline', '123e4567-e89b-42d3-a456-426614174000\n', false],
    ['non-hex', '123e4567-e89b-42d3-a456-42661417400g', false],
    ['too short', '123e4567-e89b-42d3-a456-42661417400', false],
    ['empty', '', false],
  ])('%s: %p → %p', (_name, value, ok) => {
    expect(isValidVideoId(value)).toBe(ok);
  });
});

describe('uuidV5', () => {
  it('matches the RFC 9562 test vector', () => {
    // Name "www.example.com" in the DNS namespace.
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('gives valid, lowercase, deterministic ids', () => {
    const id = uuidV5('pycon-us-2019/some-talk', '6ba7b810-9dad-11d1-80b4-00c04fd430c8');
    expect(isValidVideoId(id)).toBe(true);
    expect(normalizeId(id)).toBe(id);
    expect(uuidV5('pycon-us-2019/some-talk', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(id);
  });
});

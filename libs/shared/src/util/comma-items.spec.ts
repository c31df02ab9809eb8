import fc from 'fast-check';
import { commaItems } from './comma-items';

describe('commaItems', () => {
  const item = fc.string().filter((text) => !text.includes(',') && text === text.trim());
  const spaces = fc.constantFrom('', ' ', '  ', '\t');

  it('gives back the items a list was joined from, whatever spaces surround them, empty ones included', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(spaces, item, spaces), { minLength: 1 }), (parts) => {
        const value = parts.map(([before, text, after]) => `${before}${text}${after}`).join(',');
        expect(commaItems(value)).toEqual(parts.map(([, text]) => text));
      }),
    );
  });

  it('keeps the spaces inside an item', () => {
    expect(commaItems(' a b , c\u00a0d ')).toEqual(['a b', 'c\u00a0d']);
  });
});

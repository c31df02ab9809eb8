import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configEntries, configReference } from './config-doc';

const DOC = resolve(__dirname, '../../../../docs/configuration.md');

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` generates from the config schema', () => {
    expect(readFileSync(DOC, 'utf8')).toBe(configReference());
  });

  it('describes every variable of the schema', () => {
    const undescribed = configEntries().filter((entry) => entry.description === '');
    expect(undescribed.map((entry) => entry.name)).toEqual([]);
  });
});

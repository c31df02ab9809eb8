import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../../..');

/** The product's source files (not specs), relative to the repository. */
function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
    .map((file) => relative(ROOT, join(ROOT, folder, file)));
}

const product = [...sources('apps'), ...sources('libs')];
const holding = (pattern: RegExp) =>
  product.filter((file) => pattern.test(readFileSync(join(ROOT, file), 'utf8')));

describe('the search index has its owners, and its field names one home', () => {
  it('injects the Elasticsearch client only into the owners of the index', () => {
    expect(holding(/@Inject\(SEARCH_CLIENT\)/).sort()).toEqual([
      'apps/api/src/search/engine/index-reads.ts',
      'libs/shared/src/infrastructure.module.ts',
      'libs/shared/src/search/index-admin.service.ts',
      'libs/shared/src/search/index-inventory.service.ts',
      'libs/shared/src/search/index-writer.service.ts',
    ]);
    // Nor reached another way: a factory's `inject`, `app.get`, or a client of one's own.
    expect(holding(/\bSEARCH_CLIENT\b|\bcreateSearchClient\(/).sort()).toEqual([
      'apps/api/src/search/engine/index-reads.ts',
      'libs/shared/src/infrastructure.module.ts',
      'libs/shared/src/search/index-admin.service.ts',
      'libs/shared/src/search/index-inventory.service.ts',
      'libs/shared/src/search/index-writer.service.ts',
      'libs/shared/src/search/search.client.ts',
    ]);
  });

  it('writes the derived fields’ paths only in the index definition (VIDEO_FIELDS)', () => {
    // Quoted as code is (a comment names a field in backticks).
    expect(holding(/['"](folded|stems)\.\w+['"]|['"]spelling['"]/)).toEqual([
      'libs/shared/src/search/video-index.definition.ts',
    ]);
  });
});

import { existsSync, globSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * docs/architecture.md is the map a newcomer reads first: every repository path it names must
 * exist, so a moved or renamed file fails here rather than misleading the reader.
 */
const ROOT = resolve(__dirname, '..');
const DOC = 'docs/architecture.md';
const TOP = ['apps', 'libs', 'bench', 'test', 'scripts', 'deploy', 'docs', 'data', '.ci'];

/** Whether a path (a glob when it holds `*` or a `<placeholder>`) names something in the repository. */
function exists(path: string, anywhere = false): boolean {
  const pattern = path.replace(/<[^>]+>/g, '*').replace(/\/$/, '');
  const glob = anywhere ? `**/${pattern}` : pattern;
  return /[*]/.test(glob)
    ? globSync(glob, { cwd: ROOT, exclude: (name) => name === 'node_modules' || name === 'dist' }).length > 0
    : existsSync(resolve(ROOT, glob));
}

/** Backticked words that look like files or folders of this repository. */
export function namedPaths(markdown: string): { path: string; anywhere: boolean }[] {
  const named = new Map<string, boolean>();
  for (const [, text] of markdown.matchAll(/`([^`\s]+)`/g)) {
    const path = text!.replace(/[.,;:]$/, '');
    if (TOP.some((top) => path.startsWith(`${top}/`))) named.set(path, false);
    // A bare or partial file name (`worker-context.ts`, `video/bulk-operation.ts`): somewhere.
    else if (/^[\w.-]+(\/[\w.-]+)*\.(ts|mjs|js|json|ya?ml|sh)$/.test(path) && !path.startsWith('.'))
      named.set(path, true);
  }
  return [...named].map(([path, anywhere]) => ({ path, anywhere }));
}

/** The names in the layout's tree (the first fenced block): each under the root line above it. */
export function treeEntries(markdown: string): string[] {
  const tree = /^```\n([\s\S]*?)^```$/m.exec(markdown)?.[1] ?? '';
  const entries: string[] = [];
  let root = '';
  for (const line of tree.split('\n')) {
    const indent = /^ */.exec(line)![0].length;
    if (indent > 4 || line.trim() === '') continue; // a description's continuation
    const names = line.trim().split(/ {2,}/)[0]!.split(' ');
    if (indent === 0) {
      root = names[0]!;
      entries.push(root);
    } else {
      for (const name of names) entries.push(`${root}**/${name}`);
    }
  }
  return entries;
}

describe(DOC, () => {
  const markdown = readFileSync(resolve(ROOT, DOC), 'utf8');

  it('names only paths that exist', () => {
    const missing = namedPaths(markdown).filter(({ path, anywhere }) => !exists(path, anywhere));
    expect(missing.map(({ path }) => path)).toEqual([]);
  });

  it('draws a layout tree whose every entry exists where it is drawn', () => {
    const entries = treeEntries(markdown);
    expect(entries.length).toBeGreaterThan(20);
    expect(entries.filter((entry) => !exists(entry))).toEqual([]);
  });

  it('finds a misnamed path', () => {
    expect(namedPaths('`apps/api/src/nowhere.ts` and `nowhere-at-all.ts`')).toHaveLength(2);
    expect(exists('apps/api/src/nowhere.ts')).toBe(false);
    expect(exists('nowhere-at-all.ts', true)).toBe(false);
    expect(exists('worker-context.ts', true)).toBe(true);
  });
});

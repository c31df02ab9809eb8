import { resolve } from 'node:path';
import { OVERLAYS } from './overlays.ts';
import { renderOverlay } from './render.ts';
import { committedFiles } from './rendered.ts';

const ROOT = resolve(__dirname, '../..');

describe.each(OVERLAYS.map((overlay) => [overlay.name, overlay] as const))(
  'the committed %s manifests',
  (_name, overlay) => {
    // The YAML is generated: a hand edit would be lost at the next render, so it is refused here.
    it('are exactly what `npm run k8s:render` writes', async () => {
      const rendered = await renderOverlay(ROOT, overlay);
      const committed = committedFiles(ROOT, overlay);
      expect([...committed.keys()].sort()).toEqual([...rendered.keys()].sort());
      for (const [file, text] of rendered) {
        expect({ file, text: committed.get(file) }).toEqual({ file, text });
      }
    });
  },
);

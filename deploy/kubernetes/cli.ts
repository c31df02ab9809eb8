/**
 * `npm run k8s:render`: writes every overlay's manifests into deploy/kubernetes/<overlay>/. Node 24
 * runs this file as it is (type stripping), like scripts/services/cli.ts: nothing to build first.
 */
import { dirname, relative, resolve } from 'node:path';
import { OVERLAYS } from './overlays.ts';
import { writeOverlay } from './render.ts';

async function main(): Promise<void> {
  // This file is deploy/kubernetes/cli.ts: the repository is two directories up.
  const root = resolve(dirname(process.argv[1]!), '../..');
  for (const overlay of OVERLAYS) {
    const written = await writeOverlay(root, overlay);
    console.log(`${overlay.name}: ${written.map((file) => relative(root, file)).join(' ')}`);
  }
}

main().catch((error: unknown) => {
  // A schema error names the overlay, the file and the field: that is all a person needs.
  process.stderr.write(`[k8s:render] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

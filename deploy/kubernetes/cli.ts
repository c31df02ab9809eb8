/**
 * `npm run k8s:render`: writes every overlay's manifests into deploy/kubernetes/<overlay>/, with
 * the committed defaults. A deployment's render names its release (`--help`) and writes elsewhere
 * (`--out`). Node 24 runs this file as it is (type stripping), like scripts/services/cli.ts.
 */
import { dirname, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { OVERLAYS } from './overlays.ts';
import { DEFAULT_RUNBOOK_BASE_URL, type Release } from './release.ts';
import { writeOverlay } from './render.ts';

const HELP = `npm run k8s:render -- [options]
  --image-digest sha256:<hex>   pin the image by its registry digest
  --image-commit <40 hex>       pin the image by the commit it was built from (its tag)
  --runbook-base-url <url>      prefix of each alert's runbook path (default ${DEFAULT_RUNBOOK_BASE_URL})
  --secret-checksum <hex>       a digest of the operator's Secret: a change rolls the pods
  --overlay <name>              only this overlay (repeatable)
  --out <dir>                   write <dir>/<overlay>/ instead of deploy/kubernetes/<overlay>/`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'image-digest': { type: 'string' },
      'image-commit': { type: 'string' },
      'runbook-base-url': { type: 'string', default: DEFAULT_RUNBOOK_BASE_URL },
      'secret-checksum': { type: 'string' },
      overlay: { type: 'string', multiple: true },
      out: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return void console.log(HELP);
  if (values['image-digest'] && values['image-commit'])
    throw new Error('--image-digest and --image-commit: one pin, not both');
  const digest = values['image-digest'];
  const commit = values['image-commit'];
  const release: Release = {
    runbookBaseUrl: values['runbook-base-url'],
    ...(digest ? { image: { digest } } : commit ? { image: { commit } } : {}),
    ...(values['secret-checksum'] ? { secretChecksum: values['secret-checksum'] } : {}),
  };
  const chosen = OVERLAYS.filter((overlay) => !values.overlay || values.overlay.includes(overlay.name));
  if (chosen.length === 0) throw new Error(`no overlay named ${values.overlay?.join(', ')}`);
  // This file is deploy/kubernetes/cli.ts: the repository is two directories up.
  const root = resolve(dirname(process.argv[1]!), '../..');
  const out = values.out ? resolve(values.out) : undefined;
  for (const overlay of chosen) {
    const written = await writeOverlay(root, overlay, release, out);
    console.log(`${overlay.name}: ${written.map((file) => relative(root, file)).join(' ')}`);
  }
}

main().catch((error: unknown) => {
  // A schema error names the overlay, the file and the field: that is all a person needs.
  process.stderr.write(`[k8s:render] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

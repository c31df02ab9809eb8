/**
 * What a render takes besides the overlay: the release being deployed (which image, by a reference
 * that cannot move), where the runbooks are published, and what the operator's Secret holds now.
 * `npm run k8s:render -- --help` lists them as flags (cli.ts); the committed overlays are rendered
 * with `DEFAULT_RELEASE`.
 */
import type { Overlay } from './overlays.ts';

export interface Release {
  /**
   * The image, pinned: a registry digest (`sha256:…`, what the registry answered the push with) or
   * the 40-hex commit the image was built from (a tag the build pipeline never moves). Undefined:
   * the unpullable `UNPINNED_DIGEST`, so that the committed overlays can never run an image nobody
   * chose; a deployment sets the real one (flag, or `kustomize edit set image`).
   */
  image?: { digest: string } | { commit: string };
  /**
   * Prefixed to each alert's runbook path (`deploy/runbooks/…`, `docs/observability.md#…`): the
   * web address of the repository at the deployed commit, ending with `/`.
   */
  runbookBaseUrl: string;
  /**
   * A digest of the operator's Secret (e.g. `kubectl get secret … -o json | sha256sum`), written
   * on the pod templates beside the ConfigMap's, so that rendering after a Secret change rolls the
   * pods. Undefined: the Secret's changes roll nothing (restart the Deployments after one).
   */
  secretChecksum?: string;
}

/** A digest no registry serves: the committed overlays' image until a deployment pins its own. */
export const UNPINNED_DIGEST = `sha256:${'0'.repeat(64)}`;

/** A placeholder host (RFC 2606): a render for a deployment names the repository's own address. */
export const DEFAULT_RUNBOOK_BASE_URL = 'https://git.example.com/video-deletion-search/-/blob/main/';

export const DEFAULT_RELEASE: Release = { runbookBaseUrl: DEFAULT_RUNBOOK_BASE_URL };

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const COMMIT = /^[0-9a-f]{40}$/;

/** Refuses what is not a pin (a short commit, a tag) and a base URL that is not absolute. */
export function checkRelease(release: Release): void {
  const image = release.image;
  if (image && 'digest' in image && !DIGEST.test(image.digest))
    throw new Error(`image digest must be sha256:<64 hex>, not ${JSON.stringify(image.digest)}`);
  if (image && 'commit' in image && !COMMIT.test(image.commit))
    throw new Error(`image commit must be a full 40-hex commit, not ${JSON.stringify(image.commit)}`);
  if (!/^https?:\/\/[^/]+\/(.*\/)?$/.test(release.runbookBaseUrl))
    throw new Error(`runbook base URL must be absolute and end with /: ${release.runbookBaseUrl}`);
  if (release.secretChecksum !== undefined && !/^[0-9a-f]{16,128}$/.test(release.secretChecksum))
    throw new Error('secret checksum must be hex digits (a sha256sum, say)');
}

/**
 * The image every container runs, and when the kubelet pulls it. A pinned reference never changes
 * content, so a node's copy is as good as the registry's (IfNotPresent). The local overlay's `dev`
 * is built on the machine and loaded into the cluster's nodes (kind load, minikube image load):
 * never pulled, so a rebuilt `dev` cannot be shadowed by a registry's.
 */
export function imageOf(
  overlay: Overlay,
  release: Release,
): { image: string; imagePullPolicy: 'IfNotPresent' | 'Never' } {
  if (overlay.devImage) return { image: `${overlay.image}:dev`, imagePullPolicy: 'Never' };
  const pin = release.image;
  const reference =
    pin && 'commit' in pin ? `:${pin.commit}` : `@${pin && 'digest' in pin ? pin.digest : UNPINNED_DIGEST}`;
  return { image: `${overlay.image}${reference}`, imagePullPolicy: 'IfNotPresent' };
}

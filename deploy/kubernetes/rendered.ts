/**
 * Reading what `npm run k8s:render` wrote (render.ts): the specs compare it with a fresh render,
 * and the tests read the worker's autoscaling trigger from it, as KEDA will.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const KUSTOMIZATION = 'kustomization.yaml';

export function overlayDir(root: string, overlay: { name: string }): string {
  return join(root, 'deploy/kubernetes', overlay.name);
}

/** The YAML files an overlay's directory holds now, by name. */
export function committedFiles(root: string, overlay: { name: string }): Map<string, string> {
  const dir = overlayDir(root, overlay);
  return new Map(
    readdirSync(dir)
      .filter((file) => file.endsWith('.yaml'))
      .map((file) => [file, readFileSync(join(dir, file), 'utf8')]),
  );
}

/**
 * A rendered object as plain data: what every Kubernetes object has. A model's type guard
 * (`Deployment.is`) narrows it to that kind's fields.
 */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
}

function listed(dir: string): string[] {
  return (parse(readFileSync(join(dir, KUSTOMIZATION), 'utf8')) as { resources: string[] }).resources;
}

/** The objects of an overlay's directory, in the order its kustomization.yaml lists them. */
export function readOverlay(root: string, overlay: { name: string }): RenderedObject[] {
  const dir = overlayDir(root, overlay);
  return listed(dir).map((file) => parse(readFileSync(join(dir, file), 'utf8')) as RenderedObject);
}

/** The objects of an overlay's directory its kustomization leaves out: those applied on demand, by file. */
export function readOnDemand(root: string, overlay: { name: string }): Map<string, RenderedObject> {
  const dir = overlayDir(root, overlay);
  const kept = new Set([KUSTOMIZATION, ...listed(dir)]);
  return new Map(
    [...committedFiles(root, overlay)]
      .filter(([file]) => !kept.has(file))
      .map(([file, text]) => [file, parse(text) as RenderedObject]),
  );
}

/** The names and labels every object of the application carries. */

export const APP = 'video-search';
export const CONFIG_NAME = `${APP}-config`;

export const NAMES = {
  api: `${APP}-api`,
  apiMetrics: `${APP}-api-metrics`,
  dashboard: `${APP}-queue-dashboard`,
  worker: `${APP}-worker`,
  install: `${APP}-install`,
  reindex: `${APP}-reindex`,
} as const;

export type Component = 'api' | 'worker' | 'install' | 'reindex';

/** The labels that select a component's pods; the version is added to objects, never to selectors. */
export function selectorLabels(component: Component): Record<string, string> {
  return { 'app.kubernetes.io/name': APP, 'app.kubernetes.io/component': component };
}

export function labels(component: Component, version: string): Record<string, string> {
  return {
    ...selectorLabels(component),
    'app.kubernetes.io/part-of': APP,
    'app.kubernetes.io/version': version,
  };
}

/** An object's metadata: its name and its component's labels. */
export function meta(name: string, component: Component, version: string) {
  return { name, labels: labels(component, version) };
}

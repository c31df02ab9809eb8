import { signDevToken } from '@app/shared/auth/dev-token';
import { startService, type RunningProcess, type StartedService } from './processes';

export interface System {
  api: string;
  /** The first API's metrics port (`GET /metrics`), apart from its public one. */
  apiMetrics: string;
  workerHealth: string;
  processes: RunningProcess[];
  /** Starts one more worker process (scaling, restarts). */
  startWorker(env?: Record<string, string>): Promise<RunningProcess>;
  /** Starts one more API process; returns its base URLs and process. */
  startApi(env?: Record<string, string>): Promise<StartedService>;
  stop(): Promise<void>;
}

/** The API and worker processes, built from `dist/`, on free ports, with the test environment plus overrides. */
export async function startSystem(
  env: Record<string, string> = {},
  { worker = true }: { worker?: boolean } = {},
): Promise<System> {
  const processes: RunningProcess[] = [];
  let workerHealth = '';
  const startApi = async (extra: Record<string, string> = {}) => {
    const started = await startService('api', { ...env, ...extra });
    processes.push(started.process);
    return started;
  };
  const startWorker = async (extra: Record<string, string> = {}) => {
    const { url, process } = await startService('worker', { ...env, ...extra });
    processes.push(process);
    workerHealth ||= url;
    return process;
  };
  const { url: api, metrics: apiMetrics } = await startApi();
  if (worker) {
    await startWorker().catch(async (error: unknown) => {
      await Promise.all(processes.map((p) => p.stop('SIGKILL')));
      throw error;
    });
  }
  return {
    api,
    apiMetrics,
    get workerHealth() {
      return workerHealth;
    },
    processes,
    startWorker,
    startApi,
    async stop() {
      await Promise.all(processes.map((p) => p.stop()));
    },
  };
}

/** A token signed with the test secret (HS256). */
export function token(sub: string, roles: string[] = [], ttlSeconds = 3600): string {
  return signDevToken({ secret: process.env.JWT_SECRET!, sub, roles, ttlSeconds });
}

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  method: string,
  url: string,
  bearer?: string,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const response = await fetch(url, {
    method,
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers },
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as T };
}

/** `GET /api/videos/search?<query>` on a system started later (hence the getter), as `bearer`. */
export function searcher(system: () => System, bearer: string) {
  return <T>(query: string) => call<T>('GET', `${system().api}/api/videos/search?${query}`, bearer);
}

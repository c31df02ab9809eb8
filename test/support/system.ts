import { signDevToken } from '@app/shared/auth/dev-token';
import { ENTRY, freePort, startProcess, waitForStatus, type RunningProcess } from './processes';

export interface System {
  api: string;
  workerHealth: string;
  processes: RunningProcess[];
  /** Starts one more worker process (scaling, restarts). */
  startWorker(env?: Record<string, string>): Promise<RunningProcess>;
  /** Starts one more API process; returns its base URL and process. */
  startApi(env?: Record<string, string>): Promise<{ url: string; process: RunningProcess }>;
  stop(): Promise<void>;
}

/** The API and worker processes, built from `dist/`, on free ports, with the test environment plus overrides. */
export async function startSystem(
  env: Record<string, string> = {},
  { worker = true }: { worker?: boolean } = {},
): Promise<System> {
  const processes: RunningProcess[] = [];
  const apiPort = await freePort();
  processes.push(startProcess(ENTRY.api, { ...env, PORT: String(apiPort) }));
  const api = `http://127.0.0.1:${apiPort}`;
  let workerHealth = '';
  const startWorker = async (extra: Record<string, string> = {}) => {
    const port = await freePort();
    const running = startProcess(ENTRY.worker, { ...env, ...extra, WORKER_PORT: String(port) });
    processes.push(running);
    workerHealth ||= `http://127.0.0.1:${port}`;
    await waitForStatus(`http://127.0.0.1:${port}/health/ready`, 200, 60_000);
    return running;
  };
  const startApi = async (extra: Record<string, string> = {}) => {
    const port = await freePort();
    const running = startProcess(ENTRY.api, { ...env, ...extra, PORT: String(port) });
    processes.push(running);
    const url = `http://127.0.0.1:${port}`;
    await waitForStatus(`${url}/health/ready`, 200, 60_000);
    return { url, process: running };
  };
  try {
    await waitForStatus(`${api}/health/ready`, 200, 60_000);
    if (worker) await startWorker();
  } catch (error) {
    const output = processes.map((p) => p.output()).join('\n');
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    throw new Error(`${String(error)}\n${output.slice(-4000)}`);
  }
  return {
    api,
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

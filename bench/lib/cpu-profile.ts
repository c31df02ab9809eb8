/**
 * CPU profiles of a process the bench started, taken through its inspector (Chrome DevTools
 * Protocol over a WebSocket) only while that process's side of a comparison runs, and read as the
 * parts of the work: which package, which of the project's files, which native call. A profile is a
 * probe: sampling costs the profiled process some CPU, so a profiled run's ratios are not figures.
 */
import type { Profiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import type { Alongside } from './load';

export type CpuProfile = Profiler.Profile;

/** The inspector's sampling interval, µs. */
const SAMPLING_INTERVAL_US = 500;

/** `--inspect` for a process whose inspector this module will reach on `port`. */
export function inspectOption(port: number): string {
  return `--inspect=127.0.0.1:${port}`;
}

/** One DevTools session on the process's inspector: commands answered in order of their ids. */
export async function openSession(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`inspector on port ${port}: no session`)), {
      once: true,
    });
  });
  let next = 0;
  const waiting = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  // A process that exits (or a socket that drops) answers nothing more: its waiting calls fail.
  socket.addEventListener('close', () => {
    for (const call of waiting.values()) call.reject(new Error(`inspector on port ${port}: closed`));
    waiting.clear();
  });
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    };
    const call = message.id === undefined ? undefined : waiting.get(message.id);
    if (!call) return;
    waiting.delete(message.id!);
    if (message.error) call.reject(new Error(message.error.message));
    else call.resolve(message.result);
  });
  return {
    send<T>(method: string, params: object = {}): Promise<T> {
      const id = ++next;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: (result) => resolve(result as T), reject });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => socket.close(),
  };
}

/**
 * A profiler of the process listening on `port`: `alongside` profiles each round it runs beside
 * (a comparison's rounds of one side), `profiles` are the rounds' profiles.
 */
export interface RoundProfiler {
  alongside: Alongside;
  profiles: CpuProfile[];
  close(): void;
}

export async function roundProfiler(port: number): Promise<RoundProfiler> {
  const session = await openSession(port);
  return profilerOver((method, params) => session.send(method, params), session.close);
}

/**
 * A profiler of this process (the bench's own side of a comparison, a raw script), through an
 * inspector session of its own, sampling as `roundProfiler` does.
 */
export function selfProfiler(): Promise<RoundProfiler> {
  const session = new Session();
  session.connect();
  const post = session.post.bind(session) as (method: string, params?: object) => Promise<unknown>;
  return profilerOver(post, () => session.disconnect());
}

/** The profiler over one inspector session, whichever way its commands are sent. */
async function profilerOver(
  post: (method: string, params?: object) => Promise<unknown>,
  close: () => void,
): Promise<RoundProfiler> {
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
  const profiles: CpuProfile[] = [];
  return {
    alongside: () => {
      const started = post('Profiler.start');
      // Its failure surfaces in `stop`, which awaits it; until then it must not count as unhandled.
      started.catch(() => undefined);
      return {
        async stop() {
          await started;
          profiles.push(((await post('Profiler.stop')) as { profile: CpuProfile }).profile);
        },
      };
    },
    profiles,
    close,
  };
}

/** Frames that are not code: the profile's own bookkeeping, and time the process spent waiting. */
const IDLE = new Set(['(idle)', '(root)']);

/**
 * The part of the work a frame belongs to: a package (`node_modules/<name>`), a file of the project
 * (built under `dist/`), a module of Node's own (`node:`), or, for native code, its name (a socket's
 * `writev`, the garbage collector, `(program)`: V8 and libuv outside any JavaScript).
 */
export function partOf({ functionName, url }: { functionName: string; url: string }): string {
  if (url === '')
    return functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inPackage) return inPackage[1]!;
  const own = /\/dist\/(.+)\.js$/.exec(url);
  if (own) return own[1]!;
  return url.replace(/^file:\/\//, '');
}

export interface ProfilePart {
  part: string;
  /** Share of the busy samples in this part's own code. */
  self: number;
  /** Share of the busy samples with this part anywhere on the stack. */
  total: number;
}

/** What the samples of `profiles` spent, part by part, as shares of the busy (not idle) samples. */
export function profileParts(profiles: readonly CpuProfile[]): { busyMs: number; parts: ProfilePart[] } {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busy = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const deltas = profile.timeDeltas ?? [];
    (profile.samples ?? []).forEach((id, i) => {
      const node = byId.get(id)!;
      const us = deltas[i + 1] ?? 0;
      if (IDLE.has(node.callFrame.functionName)) return;
      busy += us;
      const own = partOf(node.callFrame);
      self.set(own, (self.get(own) ?? 0) + us);
      const onStack = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
        onStack.add(partOf(byId.get(at)!.callFrame));
      onStack.delete('(root)');
      for (const part of onStack) total.set(part, (total.get(part) ?? 0) + us);
    });
  }
  const parts = [...total.keys()].map((part) => ({
    part,
    self: (self.get(part) ?? 0) / busy,
    total: (total.get(part) ?? 0) / busy,
  }));
  return { busyMs: busy / 1000, parts: parts.sort((a, b) => b.self - a.self) };
}

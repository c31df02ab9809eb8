import type { RunningProcess } from '../processes';
import { sleep, waitFor } from '../processes';
import { startRoundRobinProxy, type RoundRobinProxy } from '../round-robin-proxy';
import { tally } from '../traffic';
import { startWebhookReceiver, webhookEnv } from '../webhook-receiver';
import {
  during,
  improperAnswers,
  runDrill,
  settleAndCheck,
  startDrillLoad,
  type DrillOptions,
  type DrillSent,
} from './outage-drill';
import type { ScenarioReport } from './report';

export interface RollingDeployOptions extends DrillOptions {
  /** Whole rollouts, one after another: each replaces both APIs, then both workers. */
  rollouts: number;
  /**
   * How long the proxy still sends new requests to an API after its SIGTERM: the time the removal
   * of a terminating pod's endpoint takes to reach the load balancer. The manifests' pre-stop
   * sleep hides it; here the API meets it, as it would without one.
   */
  endpointLagMs: number;
  /** The worker's drain (SHUTDOWN_TIMEOUT_MS): short, so a cut-off job is handed back now and then. */
  workerDrainMs: number;
}

interface Member {
  url: string;
  process: RunningProcess;
}

/** When a process was draining: from its SIGTERM to its exit. */
interface Drain {
  url: string;
  from: number;
  to: number;
}

/**
 * Part 5 of the operations issue: a rolling deploy under load. Two APIs behind a round-robin proxy
 * (`test/support/round-robin-proxy.ts`) and two workers; each is replaced in turn as a Deployment's
 * rolling update does (start the new process, wait until it is ready, then SIGTERM the old one and
 * wait for its exit), while deletes of every kind and searches run through the proxy and every
 * change is delivered to a webhook receiver. Expected: every answer a 200, or a proper 503 from an
 * API during its own drain; every process exits 0; every deletion reaches its end once (one audit
 * record per purge); every event delivered with a valid signature, none dead.
 */
export async function rollingDeploy(options: RollingDeployOptions): Promise<ScenarioReport> {
  const receiver = await startWebhookReceiver();
  let proxy: RoundRobinProxy | undefined;
  try {
    const env = { ...webhookEnv([receiver.url]), SHUTDOWN_TIMEOUT_MS: String(options.workerDrainMs) };
    return await runDrill(env, options.videos, async (drill) => {
      const { system, context } = drill;
      const second = await system.startApi();
      const apis: Member[] = [{ url: system.api, process: system.processes[0]! }, second];
      const workers: Member[] = [{ url: system.workerHealth, process: system.processes[1]! }];
      await system.startWorker();
      workers.push({ url: '', process: system.processes.at(-1)! });
      const balancer = await startRoundRobinProxy(apis.map((api) => api.url));
      proxy = balancer;
      const viaProxy = { ...drill, system: { ...system, api: balancer.url } };

      const drains: Drain[] = [];
      const badExits: string[] = [];
      /** SIGTERM, then the exit: a drain that ends in anything but 0 is a violation. */
      const retire = async (kind: string, old: Member, beforeExit?: () => Promise<void>) => {
        const from = Date.now();
        const exited = old.process.stop('SIGTERM', 60_000);
        await beforeExit?.();
        const code = await exited;
        drains.push({ url: old.url, from, to: Date.now() });
        // Nest ends its shutdown by raising the signal again: a drain that finished dies of SIGTERM
        // (or exits 0). SIGKILL means the drain outlasted the stop's grace; a code, a crash.
        const signal = old.process.child.signalCode;
        if (code !== 0 && signal !== 'SIGTERM') {
          badExits.push(
            `${kind} ${old.url || old.process.child.pid} ended with ${signal ?? `exit ${String(code)}`}`,
          );
        }
      };

      const planned = options.beforeMs + options.rollouts * 20_000 + options.afterMs;
      const load = startDrillLoad(viaProxy, options, planned);
      await sleep(options.beforeMs);
      load.enter('stopping');
      const rolloutStarted = Date.now();
      for (let rollout = 0; rollout < options.rollouts; rollout += 1) {
        for (let i = 0; i < apis.length; i += 1) {
          const old = apis[i]!;
          const fresh = await system.startApi();
          balancer.setBackends([...balancer.backends(), fresh.url]);
          await retire('API', old, async () => {
            await sleep(options.endpointLagMs);
            balancer.setBackends(balancer.backends().filter((url) => url !== old.url));
          });
          apis[i] = fresh;
        }
        for (let i = 0; i < workers.length; i += 1) {
          const old = workers[i]!;
          const fresh = await system.startWorker();
          await retire('worker', old);
          workers[i] = { url: '', process: fresh };
        }
      }
      const rolloutMs = Date.now() - rolloutStarted;
      load.enter('after');
      await sleep(options.afterMs);
      const sent = await load.finish();

      // A 503 is allowed only from an API while it drains (docs/operations.md, "Upgrading"): a
      // delete the proxy sent to one on a connection it kept open meets it like any request.
      const drainingAt = (url: string, at: number) =>
        drains.some((drain) => drain.url === url && at >= drain.from && at <= drain.to);
      const drainedDelete = (s: DrillSent) =>
        balancer.answers.some(
          (answer) =>
            answer.status === 503 &&
            answer.method === s.method &&
            answer.path === s.path &&
            drainingAt(answer.backend, answer.at),
        );
      const settled = await settleAndCheck(viaProxy, sent, 180_000, drainedDelete);
      const delivered = await waitFor(
        'every delivery delivered',
        async () => {
          const [row] = await context.dataSource.query<{ n: string }[]>(
            "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state <> 'delivered'",
          );
          return Number(row!.n) === 0 ? true : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      ).catch(() => false);
      const events: { id: string }[] = await context.dataSource.query('SELECT id FROM outbox_events');
      const valid = receiver.validIds();
      const missing = events.filter((event) => !valid.has(event.id));
      const [counts] = await context.dataSource.query<{ dead: string | null; pending: string | null }[]>(
        "SELECT SUM(state = 'dead') AS dead, SUM(state = 'pending') AS pending FROM webhook_deliveries",
      );

      const strayUnavailable = balancer.answers.filter(
        (answer) => answer.status === 503 && !drainingAt(answer.backend, answer.at),
      );
      const violations = [
        ...improperAnswers(sent).map(
          (s) => `neither 200 nor a proper 503: ${s.method} ${s.path} → ${s.status}`,
        ),
        ...strayUnavailable.map(
          (a) => `503 from ${a.backend}, which was not draining: ${a.method} ${a.path}`,
        ),
        ...badExits,
        ...(delivered === true ? [] : ['deliveries left undelivered']),
        ...(missing.length ? [`${missing.length} of ${events.length} events never received`] : []),
        ...(Number(counts?.dead ?? 0) > 0 ? [`${counts!.dead} deliveries dead`] : []),
        ...settled.violations,
      ];
      const unavailable = balancer.answers.filter((answer) => answer.status === 503).length;
      const refused = balancer.answers.reduce((sum, answer) => sum + answer.refused, 0);
      const { whole } = settled;
      return {
        load: `${options.videos} videos; ${settled.deletes.length} deletes (soft, soft now, permanent in turn) and ${sent.length - settled.deletes.length} exact-title searches at ${options.searchRate}/s through a round-robin proxy; every change delivered to a webhook receiver`,
        faults: `${options.rollouts} rolling deploy(s) of 2 APIs and 2 workers, one process at a time (start, ready, SIGTERM the old one; the proxy drops an API ${options.endpointLagMs} ms after its SIGTERM), ${(rolloutMs / 1000).toFixed(0)} s in all`,
        expected:
          'every answer 200, or 503 + Retry-After from an API during its own drain; every process ends its drain; every deletion ends once; every event delivered',
        observed:
          `during the rollouts ${tally(during(sent, 'stopping'))}; overall ${tally(sent)}; proxy: ${unavailable} draining 503s, ${refused} refused connections sent on; ` +
          `drains ${badExits.length ? badExits.join(', ') : 'all ended'}; events ${valid.size} of ${events.length} received (dead ${counts?.dead ?? 0}, pending ${counts?.pending ?? 0}); ` +
          `end states: ${whole.counts.untouched} untouched, ${whole.counts.soft_deleted} soft deleted, ${whole.counts.purged} purged (one audit each), ${whole.violations.length} partial`,
        violations,
      };
    });
  } finally {
    await proxy?.close();
    await receiver.close();
  }
}

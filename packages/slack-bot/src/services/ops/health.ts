import type { ServerResponse } from 'node:http';
import { type AgentSessionsClient, AuthenticationError, NotFoundError } from '@agent-sessions/core';
import type { CustomRoute } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/store.js';
import type { BotMetrics } from './metrics.js';
import { metricsRoute } from './metrics-route.js';
import type { Readiness, ReplicaPhase } from './readiness.js';

type Check = { ok: boolean; detail?: string };
export type HealthBody = { ok: boolean; store: Check; service: Check; surface?: object };
/** `waiting`: what the start still waits for (`slack: auth.test not answered yet`), when anything. */
export type ReadyBody = { ok: boolean; store: Check; replica: ReplicaPhase; waiting?: string[] };

/** How long one store ping's answer serves every `/readyz` caller: probes come every few seconds. */
const READY_CACHE_MS = 1_000;
/** A store that takes longer than this to answer a ping is not ready (probes time out at about 1 s). */
const STORE_PING_TIMEOUT_MS = 2_000;

/** How long one probe's answer serves every caller (the endpoint is unauthenticated). */
const CACHE_MS = 5_000;

/**
 * GET /healthz: the store answers and the service is reachable with our key. The service has no health
 * endpoint in its contract, so we read a session that can't exist: 404 means reachable and authorized.
 * Anyone who reaches the port may call it, so: one probe at a time however many callers wait (each probe
 * sends our key to the service), its answer kept a few seconds, and the answer says which part failed
 * in fixed words — error text (host names, addresses) goes to the log only.
 */
export function healthProbe(deps: {
  store: Pick<Store, 'ping'>;
  client: AgentSessionsClient;
  logger: Pick<Logger, 'warn'>;
  now?: () => number;
}): () => Promise<HealthBody> {
  const now = deps.now ?? Date.now;
  let cached: { at: number; body: HealthBody } | undefined;
  let inFlight: Promise<HealthBody> | undefined;
  const failed = (part: 'store' | 'service', detail: string) => (error: unknown) => {
    deps.logger.warn({ err: error, part }, 'health check failed');
    return { ok: false, detail };
  };
  const probe = async (): Promise<HealthBody> => {
    const store: Check = await deps.store
      .ping()
      .then(() => ({ ok: true }), failed('store', 'the store did not answer'));
    const service: Check = await deps.client.sessions
      .get('healthcheck-probe', { timeoutMs: 3_000, maxRetries: 0 })
      .then(
        () => ({ ok: true }),
        (error: unknown) =>
          error instanceof NotFoundError
            ? { ok: true }
            : error instanceof AuthenticationError
              ? failed('service', 'the API key was refused (401)')(error)
              : failed('service', 'the service did not answer as expected')(error),
      );
    return { ok: store.ok && service.ok, store, service };
  };
  return () => {
    if (cached && now() - cached.at < CACHE_MS) return Promise.resolve(cached.body);
    inFlight ??= probe()
      .then((body) => {
        cached = { at: now(), body };
        return body;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}

/**
 * GET /readyz: the store answers, and this replica takes work (started, Slack's first answer in, not
 * draining); the body names what the start still waits for. It asks only the store, never the service: a service outage must not take every replica out of the load balancer, where
 * they still answer people with a clear word. Like /healthz, one ping at a time, kept a moment.
 */
export function readyProbe(deps: {
  store: Pick<Store, 'ping'>;
  readiness: Pick<Readiness, 'phase' | 'waiting'>;
  logger: Pick<Logger, 'warn'>;
  now?: () => number;
}): () => Promise<ReadyBody> {
  const now = deps.now ?? Date.now;
  let cached: { at: number; store: Check } | undefined;
  let inFlight: Promise<Check> | undefined;
  const ping = (): Promise<Check> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('store ping timed out')), STORE_PING_TIMEOUT_MS);
    });
    return Promise.race([deps.store.ping(), timedOut])
      .then(
        (): Check => ({ ok: true }),
        (error: unknown): Check => {
          deps.logger.warn({ err: error, part: 'store' }, 'readiness check failed');
          return { ok: false, detail: 'the store did not answer' };
        },
      )
      .finally(() => clearTimeout(timer));
  };
  const storeCheck = (): Promise<Check> => {
    if (cached && now() - cached.at < READY_CACHE_MS) return Promise.resolve(cached.store);
    inFlight ??= ping()
      .then((store) => {
        cached = { at: now(), store };
        return store;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
  return async () => {
    const store = await storeCheck();
    const replica = deps.readiness.phase;
    const waiting = replica === 'draining' ? [] : deps.readiness.waiting;
    return {
      ok: store.ok && replica === 'ready',
      store,
      replica,
      ...(waiting.length > 0 ? { waiting } : {}),
    };
  };
}

/** A JSON answer: 200 when `ok`, else 503 (what probes and load balancers read). */
function answer(res: ServerResponse, body: { ok: boolean }): void {
  res.writeHead(body.ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export function healthRoutes(deps: {
  store: Pick<Store, 'ping'>;
  client: AgentSessionsClient;
  metrics: BotMetrics;
  /** METRICS_TOKEN: its bearer also reads the per-workspace series. */
  metricsToken?: string | undefined;
  logger: Pick<Logger, 'warn'>;
  /** Whether this replica takes work, and what its start still waits for, for /readyz. */
  readiness: Pick<Readiness, 'phase' | 'waiting'>;
  /** Which of Slack's surfaces sessions use: shown, never a reason to be unhealthy. */
  surface?: { report(): object } | undefined;
}): CustomRoute[] {
  const probe = healthProbe(deps);
  const ready = readyProbe(deps);
  const check = async (): Promise<HealthBody> => {
    const body = await probe();
    return deps.surface ? { ...body, surface: deps.surface.report() } : body;
  };
  return [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => {
        check().then(
          (body) => {
            res.writeHead(body.ok ? 200 : 503, { 'content-type': 'application/json' });
            res.end(JSON.stringify(body));
          },
          () => {
            res.writeHead(503, { 'content-type': 'application/json' });
            res.end('{"ok":false}');
          },
        );
      },
    },
    {
      // The process is alive: its event loop runs. No I/O, so a slow store or service never restarts it.
      path: '/livez',
      method: ['GET'],
      handler: (_req, res) => answer(res, { ok: true }),
    },
    {
      path: '/readyz',
      method: ['GET'],
      handler: (_req, res) => {
        ready().then(
          (body) => answer(res, body),
          () => answer(res, { ok: false }),
        );
      },
    },
    metricsRoute(deps.metrics, deps.metricsToken),
  ];
}

import { type AgentSessionsClient, AuthenticationError, NotFoundError } from '@agent-sessions/core';
import type { CustomRoute } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/store.js';
import type { BotMetrics } from './metrics.js';
import { metricsRoute } from './metrics-route.js';

type Check = { ok: boolean; detail?: string };
export type HealthBody = { ok: boolean; store: Check; service: Check; surface?: object };

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

export function healthRoutes(deps: {
  store: Pick<Store, 'ping'>;
  client: AgentSessionsClient;
  metrics: BotMetrics;
  /** METRICS_TOKEN: its bearer also reads the per-workspace series. */
  metricsToken?: string | undefined;
  logger: Pick<Logger, 'warn'>;
  /** Which of Slack's surfaces sessions use: shown, never a reason to be unhealthy. */
  surface?: { report(): object } | undefined;
}): CustomRoute[] {
  const probe = healthProbe(deps);
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
    metricsRoute(deps.metrics, deps.metricsToken),
  ];
}

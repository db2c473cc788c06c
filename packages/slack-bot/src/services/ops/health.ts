import { type AgentSessionsClient, AuthenticationError, NotFoundError } from '@agent-sessions/core';
import type { CustomRoute } from '@slack/bolt';
import type { Store } from '../../store/store.js';
import type { BotMetrics } from './metrics.js';

type Check = { ok: boolean; detail?: string };

/**
 * GET /healthz: the store answers and the service is reachable with our key. The service has no health
 * endpoint in its contract, so we read a session that can't exist: 404 means reachable and authorized.
 */
export function healthRoutes(deps: {
  store: Pick<Store, 'ping'>;
  client: AgentSessionsClient;
  metrics: BotMetrics;
}): CustomRoute[] {
  let cached: { at: number; body: { ok: boolean; store: Check; service: Check } } | undefined;
  const check = async () => {
    if (cached && Date.now() - cached.at < 5_000) return cached.body;
    const store: Check = await deps.store.ping().then(
      () => ({ ok: true }),
      (error: unknown) => ({ ok: false, detail: messageOf(error) }),
    );
    const service: Check = await deps.client.sessions
      .get('healthcheck-probe', { timeoutMs: 3_000, maxRetries: 0 })
      .then(
        () => ({ ok: true }),
        (error: unknown) =>
          error instanceof NotFoundError
            ? { ok: true }
            : error instanceof AuthenticationError
              ? { ok: false, detail: 'the API key was refused (401)' }
              : { ok: false, detail: messageOf(error) },
      );
    const body = { ok: store.ok && service.ok, store, service };
    cached = { at: Date.now(), body };
    return body;
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
      path: '/metrics',
      method: ['GET'],
      handler: (_req, res) => {
        deps.metrics.text().then(
          (text) => {
            res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
            res.end(text);
          },
          () => {
            res.writeHead(500);
            res.end();
          },
        );
      },
    },
  ];
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

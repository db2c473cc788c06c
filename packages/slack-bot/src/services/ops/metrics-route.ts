/**
 * GET /metrics. Anyone who reaches the port reads the series that name no workspace. The per-workspace
 * series (labelled by team id, which names a tenant) are served only with METRICS_TOKEN set and presented
 * as `Authorization: Bearer …`; a bearer that isn't it is 401, so a scraper with a stale token finds out
 * instead of silently losing series. Tokens are compared as SHA-256 digests in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { BotMetrics } from './metrics.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Who is asking: anyone (no bearer, or no token set: then nothing more is served to anyone), the holder
 * of the token, or someone presenting another.
 */
function reader(req: IncomingMessage, expected: Buffer | undefined): 'anyone' | 'tenants' | 'refused' {
  const header = req.headers.authorization;
  if (header === undefined || expected === undefined) return 'anyone';
  const given = /^Bearer\s+(.+)$/i.exec(header)?.[1];
  if (!given || !timingSafeEqual(digest(given), expected)) return 'refused';
  return 'tenants';
}

export function metricsRoute(metrics: BotMetrics, token: string | undefined): CustomRoute {
  const expected = token ? digest(token) : undefined;
  return {
    path: '/metrics',
    method: ['GET'],
    handler: (req, res) => {
      const who = reader(req, expected);
      if (who === 'refused') {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
        res.end(JSON.stringify({ error: 'a valid METRICS_TOKEN bearer token is required for this request' }));
        return;
      }
      metrics.text(who === 'tenants').then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    },
  };
}

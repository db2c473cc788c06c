import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { BotMetrics } from '../../../src/services/ops/metrics.js';
import { metricsRoute } from '../../../src/services/ops/metrics-route.js';

// /metrics is reachable by anyone who reaches the port: series labelled by workspace name a tenant, so
// they are served only to whoever presents METRICS_TOKEN.
const TOKEN = 'metrics-token-0123456789';
const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function serve(token: string | undefined): Promise<string> {
  const metrics = new BotMetrics(() => undefined);
  const perTeam = new Counter({
    name: 'agent_service_requests_by_team_total',
    help: 'by team',
    labelNames: ['team'],
    registers: [metrics.tenantRegistry],
  });
  perTeam.inc({ team: 'T0TENANT' }, 3);
  const route = metricsRoute(metrics, token);
  const server = createServer((req, res) => void route.handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

const get = async (url: string, authorization?: string) => {
  const res = await fetch(url, authorization ? { headers: { authorization } } : {});
  return { status: res.status, body: await res.text() };
};

describe('GET /metrics and the tenants it names', () => {
  it('without METRICS_TOKEN: the series that name no workspace, whatever the request presents', async () => {
    const url = await serve(undefined);
    for (const auth of [undefined, `Bearer ${TOKEN}`, 'Bearer anything']) {
      const { status, body } = await get(url, auth);
      expect(status).toBe(200);
      expect(body).toContain('slack_api_calls_total');
      expect(body).not.toContain('T0TENANT');
      expect(body).not.toContain('by_team');
    }
  });

  it('with METRICS_TOKEN: its bearer also reads the per-workspace series; no bearer reads none of them', async () => {
    const url = await serve(TOKEN);
    const open = await get(url);
    expect(open.status).toBe(200);
    expect(open.body).toContain('slack_api_calls_total');
    expect(open.body).not.toContain('T0TENANT');
    const bearer = await get(url, `Bearer ${TOKEN}`);
    expect(bearer.status).toBe(200);
    expect(bearer.body).toContain('agent_service_requests_by_team_total{team="T0TENANT"} 3');
    expect(bearer.body).toContain('slack_api_calls_total');
  });

  it('with METRICS_TOKEN: a wrong or malformed bearer is 401, and names nothing', async () => {
    const url = await serve(TOKEN);
    for (const auth of [`Bearer ${TOKEN}x`, 'Bearer short', `Basic ${TOKEN}`, TOKEN]) {
      const { status, body } = await get(url, auth);
      expect(status).toBe(401);
      expect(body).not.toContain('T0TENANT');
      expect(body).not.toContain(TOKEN);
    }
  });
});

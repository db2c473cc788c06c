import type { Server } from 'node:http';
import { AgentSessionsClient } from '@agent-sessions/core';
import { afterEach, describe, expect, it } from 'vitest';
import { serveRoutes, urlOf } from '../../../src/http/routes-server.js';
import { healthRoutes } from '../../../src/services/ops/health.js';
import { BotMetrics } from '../../../src/services/ops/metrics.js';
import { Readiness } from '../../../src/services/ops/readiness.js';

// A kubelet restarts a container whose liveness probe fails and takes a pod out of its Service while its
// readiness probe fails: the two must answer different questions, over the same HTTP a kubelet speaks.
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

async function serveProbes(store: { ping(): Promise<void> }) {
  const readiness = new Readiness();
  let pings = 0;
  const counted = {
    ping: () => {
      pings += 1;
      return store.ping();
    },
  };
  const routes = healthRoutes({
    store: counted,
    // Nothing listens on port 9: only /healthz would ask the service, and this test never calls it.
    client: new AgentSessionsClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k_probe' }),
    metrics: new BotMetrics(() => undefined),
    logger: { warn: () => {} },
    readiness,
  });
  const server = await serveRoutes(routes, { port: 0, host: '127.0.0.1' });
  servers.push(server);
  const url = urlOf(server, '127.0.0.1') as string;
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { readiness, get, pings: () => pings };
}

describe('GET /livez and GET /readyz', () => {
  it('/readyz says starting, then ready, then draining for good; /livez is 200 throughout', async () => {
    const probes = await serveProbes({ ping: async () => {} });
    expect(await probes.get('/readyz')).toEqual({
      status: 503,
      body: { ok: false, store: { ok: true }, replica: 'starting' },
    });
    expect(await probes.get('/livez')).toEqual({ status: 200, body: { ok: true } });

    probes.readiness.started();
    expect(await probes.get('/readyz')).toEqual({
      status: 200,
      body: { ok: true, store: { ok: true }, replica: 'ready' },
    });

    probes.readiness.drain();
    probes.readiness.started();
    expect(await probes.get('/readyz')).toEqual({
      status: 503,
      body: { ok: false, store: { ok: true }, replica: 'draining' },
    });
    expect(await probes.get('/livez')).toEqual({ status: 200, body: { ok: true } });
  });

  it('/readyz is 503 while the store fails, in fixed words; /livez never asks the store', async () => {
    const probes = await serveProbes({
      ping: async () => Promise.reject(new Error('connect ECONNREFUSED db.internal.example:5432')),
    });
    probes.readiness.started();
    for (let i = 0; i < 5; i++) expect((await probes.get('/livez')).status).toBe(200);
    expect(probes.pings()).toBe(0);
    const ready = await probes.get('/readyz');
    expect(ready).toEqual({
      status: 503,
      body: { ok: false, store: { ok: false, detail: 'the store did not answer' }, replica: 'ready' },
    });
    expect(probes.pings()).toBe(1);
  });

  it('callers at once share one store ping', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const probes = await serveProbes({ ping: () => held });
    probes.readiness.started();
    const answers = Promise.all(Array.from({ length: 10 }, () => probes.get('/readyz')));
    await expect.poll(probes.pings).toBe(1);
    release();
    const statuses = (await answers).map((a) => a.status);
    expect(statuses).toEqual(Array.from({ length: 10 }, () => 200));
    expect(probes.pings()).toBe(1);
  });
});

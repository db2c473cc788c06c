import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentSessionsClient } from '@agent-sessions/core';
import { afterEach, describe, expect, it } from 'vitest';
import { healthProbe } from '../../../src/services/ops/health.js';

// /healthz is reachable by anyone who reaches the port: it must not multiply requests carrying our key,
// nor tell a caller where the service lives.
const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A service that holds each request until `release()`, then answers 404 (reachable, key accepted). */
async function heldService() {
  const held: ServerResponse[] = [];
  let requests = 0;
  const server = createServer((_req, res) => {
    requests += 1;
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => server.close() });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    release: () => {
      for (const res of held.splice(0)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"session not found"}');
      }
    },
  };
}

const warnings: unknown[] = [];
const logger = { warn: (...args: unknown[]) => void warnings.push(args) };
const store = { ping: async () => {} };

describe('the health probe', () => {
  it('callers during a slow probe share it: one request to the service, one answer; then cached', async () => {
    const service = await heldService();
    let time = 1_000;
    const check = healthProbe({
      store,
      client: new AgentSessionsClient({ baseUrl: service.url, apiKey: 'k_health' }),
      logger,
      now: () => time,
    });
    const answers = Promise.all(Array.from({ length: 20 }, () => check()));
    await expect.poll(service.requests).toBe(1);
    service.release();
    const bodies = await answers;
    expect(new Set(bodies).size).toBe(1);
    expect(bodies[0]).toEqual({ ok: true, store: { ok: true }, service: { ok: true } });
    expect(service.requests()).toBe(1);

    time += 4_000;
    await check();
    expect(service.requests()).toBe(1);
    time += 2_000;
    const next = check();
    await expect.poll(service.requests).toBe(2);
    service.release();
    expect((await next).ok).toBe(true);
  });

  it('names the failing part in fixed words; the error (hosts, addresses) goes to the log only', async () => {
    warnings.length = 0;
    const check = healthProbe({
      store: { ping: async () => Promise.reject(new Error('connect ECONNREFUSED db.internal.example:5432')) },
      // Nothing listens on port 9: the client's error names the address.
      client: new AgentSessionsClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k_health' }),
      logger,
    });
    const body = await check();
    expect(body).toEqual({
      ok: false,
      store: { ok: false, detail: 'the store did not answer' },
      service: { ok: false, detail: 'the service did not answer as expected' },
    });
    const logged = warnings.map((args) => ((args as [{ err: Error }])[0].err as Error).message);
    expect(logged).toEqual([expect.stringMatching(/db\.internal\.example/), expect.any(String)]);
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|internal|ECONNREFUSED/);
  });
});

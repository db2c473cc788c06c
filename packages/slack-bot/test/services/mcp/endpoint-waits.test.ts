import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../../src/logger.js';
import {
  type McpCaller,
  McpEndpoint,
  mcpRoutes,
  RequestBudget,
  SignInGuard,
  WaitSlots,
} from '../../../src/services/mcp/index.js';

// Open wait_for_session calls, bounded at the endpoint: each holds a request (and a socket) open, so a
// person's agents can't pile them up on the shared bot. Here one a person, two a workspace. A
// subscriptions/listen stream (held open by the SDK while the server says its tools may change) counts too.
const callers: Record<string, McpCaller> = Object.fromEntries(
  [
    ['asm_mcp_alice_one', 'U1', 'T1'],
    ['asm_mcp_alice_two', 'U1', 'T1'],
    ['asm_mcp_bob', 'U2', 'T1'],
    ['asm_mcp_carol', 'U3', 'T1'],
  ].map(([token, userId, team], i) => [
    token,
    {
      tokenId: `tok${i}`,
      userId,
      workspace: { teamId: team, key: team, isEnterpriseInstall: false, isolated: true },
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    },
  ]),
);

/** The waits running in the tool now, each ended when its gate opens. */
const inside: Array<() => void> = [];
let server: Server;
let url: URL;

beforeAll(async () => {
  const endpoint = new McpEndpoint({
    tokens: { verify: async (token) => callers[token], used: async () => {} },
    budget: new RequestBudget({ perMinute: 1000 }),
    signIns: new SignInGuard({ perMinute: 1000 }),
    waits: new WaitSlots({ perPerson: 1, perWorkspace: 2 }),
    serverFor: () => {
      const mcp = new McpServer({ name: 'test', version: '1' });
      mcp.registerTool(
        'wait_for_session',
        { inputSchema: z.object({ session_id: z.string() }) },
        () =>
          new Promise((resolve) =>
            inside.push(() => resolve({ content: [{ type: 'text', text: 'ended' }] })),
          ),
      );
      return mcp;
    },
    settings: { allowedOrigins: [], maxBodyBytes: 4096, version: '1' },
    logger: createLogger({ secrets: [], level: 'silent' }),
  });
  const routes = mcpRoutes(endpoint);
  server = createServer((req, res) => {
    const route = routes.find((r) => r.path === new URL(req.url ?? '/', 'http://x').pathname);
    if (!route) return res.writeHead(404).end();
    route.handler(Object.assign(req, { params: {} }), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A host; a 2026-07-28 one (`modern`) may open subscriptions/listen streams. */
async function host(token: string, modern = false) {
  const client = new Client(
    { name: 'test-host', version: '1' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(url, { authProvider: { token: async () => token } }),
  );
  return client;
}

const wait = (client: Client) =>
  client.callTool({ name: 'wait_for_session', arguments: { session_id: 's1' } });

/** Resolves once `count` waits are inside the tool. */
async function waitsInside(count: number): Promise<void> {
  while (inside.length < count) await new Promise((resolve) => setImmediate(resolve));
}

describe('open wait_for_session calls', () => {
  it('past the limit per person (any of their tokens) or per workspace, refused at once naming it; a returned wait frees its slot', async () => {
    const [aliceOne, aliceTwo, bob, carol] = await Promise.all(
      ['asm_mcp_alice_one', 'asm_mcp_alice_two', 'asm_mcp_bob', 'asm_mcp_carol'].map((token) => host(token)),
    );
    if (!(aliceOne && aliceTwo && bob && carol)) throw new Error('a host did not connect');
    const first = wait(aliceOne);
    await waitsInside(1);
    await expect(wait(aliceTwo)).rejects.toThrow(/one person may \(1\)/);
    const bobs = wait(bob);
    await waitsInside(2);
    await expect(wait(carol)).rejects.toThrow(/one workspace may \(2\)/);
    inside.shift()?.();
    expect(await first).toMatchObject({ content: [{ text: 'ended' }] });
    const again = wait(aliceTwo);
    await waitsInside(2);
    for (const open of inside.splice(0)) open();
    await Promise.all([bobs, again]);
    await Promise.all([aliceOne, aliceTwo, bob, carol].map((c) => c.close()));
  });

  it('an open subscriptions/listen stream takes a slot of the same count, freed when the host closes it', async () => {
    const [aliceOne, aliceTwo] = await Promise.all([
      host('asm_mcp_alice_one', true),
      host('asm_mcp_alice_two'),
    ]);
    if (!(aliceOne && aliceTwo)) throw new Error('a host did not connect');
    const listening = await aliceOne.listen({ toolsListChanged: true });
    expect(listening.honoredFilter).toEqual({ toolsListChanged: true });
    await expect(wait(aliceTwo)).rejects.toThrow(/one person may \(1\)/);
    await listening.close();
    const again = wait(aliceTwo);
    await waitsInside(1);
    for (const open of inside.splice(0)) open();
    expect(await again).toMatchObject({ content: [{ text: 'ended' }] });
    await Promise.all([aliceOne, aliceTwo].map((c) => c.close()));
  });
});

import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import {
  type McpCaller,
  McpEndpoint,
  mcpRoutes,
  RequestBudget,
  SignInGuard,
} from '../../../src/services/mcp/index.js';

// The endpoint's checks over real HTTP, in the order a request meets them, before the SDK sees it.
const GOOD = 'asm_mcp_good_token';
/** A token of its own for the budget's test, so no other test spends its requests. */
const THRIFTY = 'asm_mcp_thrifty_token';
/** Another token of THRIFTY's person: the budget is theirs, not each token's. */
const THRIFTY_TWIN = 'asm_mcp_thrifty_twin_token';
/** A token of a workspace the bot no longer serves (uninstalled, or dropped from SLACK_ALLOWED_TEAMS). */
const DROPPED = 'asm_mcp_dropped_token';
/** A token whose person Slack says is deactivated; and one whose person Slack can't be asked about. */
const LEFT = 'asm_mcp_left_token';
const UNSURE = 'asm_mcp_unsure_token';
/** A token of its own person, for the test of what a request's server is made for (its own budget). */
const MAKER = 'asm_mcp_maker_token';
/** The callers whose request reached the SDK's server; and what each request's server was made for. */
const served: string[] = [];
const madeFor: Array<{ calls?: string; callArguments?: unknown }> = [];
const caller: McpCaller = {
  tokenId: 'tok1',
  userId: 'U1',
  workspace: { teamId: 'T1', key: 'T1', isEnterpriseInstall: false, isolated: false },
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
};
let server: Server;
let base = '';
/** The client address each token check was admitted for. */
const admittedFor: string[] = [];
const guard = new SignInGuard({ perMinute: 1000 });

beforeAll(async () => {
  const endpoint = new McpEndpoint({
    tokens: {
      verify: async (token) =>
        token === GOOD
          ? caller
          : token === THRIFTY
            ? { ...caller, tokenId: 'tok2', userId: 'U2' }
            : token === THRIFTY_TWIN
              ? { ...caller, tokenId: 'tok2b', userId: 'U2' }
              : token === DROPPED
                ? { ...caller, tokenId: 'tok3', workspace: { ...caller.workspace, teamId: 'T9', key: 'T9' } }
                : token === MAKER
                  ? { ...caller, tokenId: 'tok4', userId: 'U0MAKER' }
                  : token === LEFT || token === UNSURE
                    ? { ...caller, tokenId: token, userId: token === LEFT ? 'U0LEFT' : 'U0UNSURE' }
                    : undefined,
      used: async () => {},
    },
    served: async (workspace) => workspace.key !== 'T9',
    activePeople: {
      standing: async (c) =>
        c.userId === 'U0LEFT'
          ? { active: false, gone: true, message: 'Slack says this token’s person is deactivated' }
          : c.userId === 'U0UNSURE'
            ? { active: false, gone: false, message: 'Slack could not confirm', retryAfterSeconds: 60 }
            : { active: true },
    },
    budget: new RequestBudget({ perMinute: 2 }),
    signIns: {
      admit: (address, token) => {
        admittedFor.push(address);
        return guard.admit(address, token);
      },
      passed: (address, token, admission) => guard.passed(address, token, admission),
    },
    waits: { take: () => ({ taken: true, release: () => {} }) },
    serverFor: (c) => {
      served.push(c.userId);
      madeFor.push({ calls: c.calls, callArguments: c.callArguments });
      return new McpServer({ name: 'test', version: '1' });
    },
    settings: {
      allowedOrigins: ['https://app.example.com'],
      maxBodyBytes: 1024,
      trustedProxies: ['loopback'],
      version: '1',
    },
    logger: createLogger({
      secrets: [],
      destination: { write: () => true } as unknown as NodeJS.WritableStream,
    }),
  });
  const routes = mcpRoutes(endpoint);
  server = createServer((req, res) => {
    const route = routes.find((r) => r.path === new URL(req.url ?? '/', 'http://x').pathname);
    if (!route) return res.writeHead(404).end();
    route.handler(Object.assign(req, { params: {} }), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (headers: Record<string, string>, body = '{"jsonrpc":"2.0","id":1,"method":"ping"}') =>
  fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });

describe('the /mcp endpoint’s checks', () => {
  it('a request whose one call is a tool’s has its server made knowing the tool and its arguments as sent', async () => {
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'get_session', arguments: { session_id: 'sess_1', messages: 0 } },
    });
    const auth = { authorization: `Bearer ${MAKER}`, 'mcp-protocol-version': '2025-03-26' };
    madeFor.length = 0;
    await post(auth, JSON.stringify(call(1)));
    expect(madeFor).toEqual([{ calls: 'get_session', callArguments: { session_id: 'sess_1', messages: 0 } }]);
    // A batch is several calls: its server is made for none in particular.
    madeFor.length = 0;
    await post(auth, JSON.stringify([call(2), call(3)]));
    expect(madeFor.length).toBeGreaterThan(0);
    expect(madeFor.every((m) => m.calls === undefined && m.callArguments === undefined)).toBe(true);
  });

  it('behind a trusted proxy (here the loopback), failed tokens count against the forwarded client address', async () => {
    const refused = await post({ 'x-forwarded-for': '198.51.100.1, 203.0.113.9' });
    expect(refused.status).toBe(401);
    expect(admittedFor.at(-1)).toBe('203.0.113.9');
    expect((await post({})).status).toBe(401);
    expect(admittedFor.at(-1)).toBe('127.0.0.1');
  });

  it('an Origin nobody listed is refused before the token is read; a listed one passes to the token check', async () => {
    expect((await post({ origin: 'https://evil.example', authorization: `Bearer ${GOOD}` })).status).toBe(
      403,
    );
    expect((await post({ origin: 'https://app.example.com' })).status).toBe(401);
  });

  it('a chunked body over the bound is 413, though it announced no length', async () => {
    const big = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"pad":"${'x'.repeat(4096)}"}`));
        controller.close();
      },
    });
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GOOD}` },
      body: big,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('a valid token of a workspace the bot no longer serves is refused, in words that say why', async () => {
    const refused = await post({ authorization: `Bearer ${DROPPED}` });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toMatch(/no longer served by this bot.*SLACK_ALLOWED_TEAMS/);
    expect((await post({ authorization: `Bearer ${GOOD}` })).status).toBe(200);
  });

  it('a person Slack says left is refused 403; one Slack can’t be asked about 503 with Retry-After; neither reaches the SDK', async () => {
    const left = await post({ authorization: `Bearer ${LEFT}` });
    expect(left.status).toBe(403);
    expect(JSON.stringify(await left.json())).toMatch(/deactivated/);
    const unsure = await post({ authorization: `Bearer ${UNSURE}` });
    expect(unsure.status).toBe(503);
    expect(unsure.headers.get('retry-after')).toBe('60');
    expect(served.filter((u) => u === 'U0LEFT' || u === 'U0UNSURE')).toEqual([]);
  });

  it("a person's budget spent: 429 with Retry-After, in words a host shows; another token of theirs buys no more", async () => {
    for (let i = 0; i < 2; i++)
      expect((await post({ authorization: `Bearer ${THRIFTY}` })).status).not.toBe(429);
    const spent = await post({ authorization: `Bearer ${THRIFTY}` });
    expect(spent.status).toBe(429);
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(JSON.stringify(await spent.json())).toMatch(/MCP_REQUESTS_PER_MINUTE/);
    expect((await post({ authorization: `Bearer ${THRIFTY_TWIN}` })).status).toBe(429);
  });

  it('without MCP_PUBLIC_URL, the metadata and the 401 (built from the request’s Host) are never cached', async () => {
    const metadata = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
    expect(await metadata.json()).toMatchObject({ resource: `${base}/mcp` });
    expect(metadata.headers.get('cache-control')).toBe('no-store');
    const challenge = await post({});
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('cache-control')).toBe('no-store');
  });

  it('without Slack identity auth (MCP_SLACK_IDENTITY off), a request Slackbot signed is one without a token', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_sessions', _meta: { slack: { user_id: 'U1', team_id: 'T1' } } },
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', 'a-secret').update(`v0:${timestamp}:${body}`).digest('hex')}`;
    const refused = await post(
      { 'x-slack-signature': signature, 'x-slack-request-timestamp': String(timestamp) },
      body,
    );
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
  });
});

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isValidSlackRequest } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/index.js';

// Slackbot's MCP client as the sandbox plays it, seen from an MCP server: each request checked with Bolt's
// own verification of Slack's signature (as Slack's sample servers check theirs), the person in
// params._meta.slack.
let sandbox: RunningSandbox;
let server: Server;
let base = '';
const received: Array<{ valid: boolean; path: string; body: Record<string, unknown> }> = [];

const bodyOf = async (req: IncomingMessage) => {
  let raw = '';
  for await (const chunk of req) raw += String(chunk);
  return raw;
};

beforeAll(async () => {
  sandbox = await startSandbox({ triggerTtlMs: 60_000 });
  server = createServer(async (req, res) => {
    const raw = await bodyOf(req);
    const valid = isValidSlackRequest({
      signingSecret: sandbox.signingSecret,
      headers: req.headers as never,
      body: raw,
    });
    const body = JSON.parse(raw) as Record<string, unknown>;
    received.push({ valid, path: req.url ?? '', body });
    res.writeHead(valid ? 200 : 401, { 'content-type': 'text/event-stream' });
    res.end(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { ok: true } })}\n\n`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await sandbox?.close();
});

describe('driver.slackbot: Slackbot’s MCP client', () => {
  it('signs as Slack does and names the person; calls /mcp beside the events URL', async () => {
    const slackbot = sandbox.driver(`${base}/slack/events`).slackbot;
    received.length = 0;
    const reply = await slackbot.callTool('U0ALICE', 'list_sessions');
    expect(reply).toMatchObject({ status: 200, message: { result: { ok: true } } });
    expect(received.map((r) => [r.path, r.valid, r.body.method])).toEqual([
      ['/mcp', true, 'initialize'],
      ['/mcp', true, 'tools/call'],
    ]);
    expect(received[1]?.body.params).toMatchObject({
      _meta: { slack: { user_id: 'U0ALICE', team_id: sandbox.workspace.seed.teamId } },
    });
  });

  it('a forged signature or a stale timestamp fails Bolt’s check; anonymous names no one', async () => {
    const slackbot = sandbox.driver(`${base}/slack/events`).slackbot;
    received.length = 0;
    await slackbot.request('U0ALICE', 'tools/list', {}, { forgeSignature: true });
    await slackbot.request('U0ALICE', 'tools/list', {}, { timestampOffsetSeconds: -600 });
    await slackbot.request('U0ALICE', 'tools/list', {}, { anonymous: true });
    expect(received.map((r) => r.valid)).toEqual([false, false, true]);
    expect(received[2]?.body.params).toEqual({});
  });
});

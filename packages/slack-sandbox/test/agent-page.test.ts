import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../src/index.js';
import { type RenderContext, renderBlock, renderBlocks } from '../src/web/render.js';
import { botClient } from './bot-client.js';

// The page's side of the agent surfaces: task cards and plans rendered (with the data-* attributes the
// browser suite finds them by), the state the page reads, and its routes for Stop, the Messages tab and
// suggested prompts reaching a bot as Slack's events.
const ctx: RenderContext = {
  users: {},
  channels: {},
  container: { kind: 'message', channel: 'C0AGENTS', ts: '1.000001' },
};
const card = (status: string, extra: Record<string, unknown> = {}) => ({
  type: 'task_card',
  task_id: 'call_1',
  title: 'Read <the> changelog',
  status,
  ...extra,
});

describe('task cards and plans', () => {
  it('shows a task with its status as an icon and data-status, details, output and safe sources', () => {
    const html = renderBlock(
      card('in_progress', {
        details: {
          type: 'rich_text',
          elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'reading' }] }],
        },
        sources: [
          { type: 'url', url: 'https://example.com/a', text: 'A' },
          { type: 'url', url: 'javascript:alert(1)', text: 'B' },
        ],
      }),
      0,
      ctx,
    );
    expect(html).toContain('data-testid="task-card" data-task-id="call_1" data-status="in_progress"');
    expect(html).toContain('Read &lt;the&gt; changelog');
    expect(html).toContain('<div class="task-details">reading</div>');
    expect(html).toContain('href="https://example.com/a"');
    expect(html).not.toContain('javascript:');
    const done = renderBlock(card('complete', { output: '3 <entries>' }), 0, ctx);
    expect(done).toContain('data-status="complete"');
    expect(done).toContain('<span class="task-state">Done</span>');
    expect(done).toContain('<pre class="task-output">3 &lt;entries&gt;</pre>');
  });

  it('shows a plan with its progress and every task', () => {
    const html = renderBlocks(
      [
        {
          type: 'plan',
          title: 'Release',
          tasks: [card('complete'), { ...card('pending'), task_id: 'call_2' }],
        },
      ],
      ctx,
    );
    expect(html).toContain('data-testid="plan"');
    expect(html).toContain('<small data-testid="plan-progress">1/2 done</small>');
    expect(html.match(/data-testid="task-card"/g)).toHaveLength(2);
    expect(html).not.toContain('unsupported');
  });
});

let sandbox: RunningSandbox;
let client: WebClient;
let bot: Server;
const events: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: false });
  client = botClient(sandbox);
  // A bot that only records what Slack sends it (the driver signs; this one doesn't check).
  bot = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      events.push((JSON.parse(body) as { event: Record<string, unknown> }).event);
      res.end();
    });
  });
  await new Promise<void>((r) => bot.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  bot?.close();
  await sandbox?.close();
});

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { ok: boolean; error?: string; result?: unknown },
  };
};

describe('the page', () => {
  it('loads the agent renderer beside render.js, as built (the sandbox as npm start runs it, from dist/)', async () => {
    const built = (await import(
      new URL('../dist/index.js', import.meta.url).href
    )) as typeof import('../src/index.js');
    const served = await built.startSandbox({ rateLimits: false });
    try {
      const res = await fetch(`${served.url}/web/render-agent.js`);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(await res.text()).toBe(
        readFileSync(new URL('../dist/web/render-agent.js', import.meta.url), 'utf8'),
      );
      // render.js imports it by that name, beside itself (in either quotes: tsc keeps the source's, esbuild
      // writes double ones).
      const render = await (await fetch(`${served.url}/web/render.js`)).text();
      expect(render).toMatch(/from ["']\.\/render-agent\.js["']/);
      expect(await (await fetch(`${served.url}/`)).text()).toContain('/web/agent.css');
    } finally {
      await served.close();
    }
  });

  it('reads sessions, streams and prompts from /sandbox/state, and its clicks reach the bot as Slack events', async () => {
    expect((await post('/sandbox/messages-tab', { user: 'U0ALICE' })).status).toBe(503);
    sandbox.connectBot(`http://127.0.0.1:${(bot.address() as AddressInfo).port}/`);
    const root = sandbox.workspace.post({ channel: 'C0AGENTS', user: 'U0ALICE', text: 'go' }).ts;
    await client.agents.sessions.setStatus({
      channel_id: 'C0AGENTS',
      thread_ts: root,
      status: 'processing',
      title: 'Go',
    });
    await client.chat.startStream({
      channel: 'C0AGENTS',
      thread_ts: root,
      recipient_user_id: 'U0ALICE',
      recipient_team_id: 'T0SANDBOX',
      chunks: [{ type: 'task_update', id: 't1', title: 'Look', status: 'in_progress' }],
    });
    // Alice opens the app's Messages tab: its DM exists from then on, and the app sets its prompts there.
    expect((await post('/sandbox/messages-tab', { user: 'U0ALICE' })).body.ok).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'app_home_opened', tab: 'messages', channel: 'D0ALICE' });
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: 'D0ALICE',
      prompts: [{ title: 'Release', message: 'ship the release notes' }],
    });
    const state = (await (await fetch(`${sandbox.url}/sandbox/state`)).json()) as {
      agent: { sessions: unknown[]; streams: unknown[]; prompts: unknown[]; stopEventSubscribed: boolean };
    };
    expect(state.agent.sessions).toEqual([
      expect.objectContaining({ threadTs: root, status: 'processing', title: 'Go' }),
    ]);
    expect(state.agent.streams).toEqual([
      expect.objectContaining({ state: 'in_progress', tasks: [expect.any(Object)] }),
    ]);
    expect(state.agent.prompts).toEqual([expect.objectContaining({ channel: 'D0ALICE' })]);
    expect(state.agent.stopEventSubscribed).toBe(true);

    expect((await post('/sandbox/prompt', { user: 'U0ALICE', index: 0 })).body.ok).toBe(true);
    expect(events.at(-1)).toMatchObject({
      type: 'message',
      channel: 'D0ALICE',
      text: 'ship the release notes',
    });
    expect(
      (await post('/sandbox/stop-session', { user: 'U0BOB', channel: 'C0AGENTS', threadTs: root })).body.ok,
    ).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'agent_session_stopped', user: 'U0BOB', thread_ts: root });
    const again = await post('/sandbox/stop-session', {
      user: 'U0BOB',
      channel: 'C0AGENTS',
      threadTs: 'nope',
    });
    expect(again).toMatchObject({
      status: 400,
      body: { ok: false, error: expect.stringContaining('no agent session') },
    });
  });
});
